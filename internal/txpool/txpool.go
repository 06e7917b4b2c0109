// Package txpool keeps the transactions a node has accepted but not yet
// included: per sender, ordered by nonce, split into pending (executable
// now) and queued (waiting for a nonce gap to close). It validates against
// the head state with the EVM's own error values, so a client sees the same
// wording whether a transaction fails here or in a block.
package txpool

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Pool-specific rejections, worded as go-ethereum words them.
var (
	ErrAlreadyKnown       = errors.New("already known")
	ErrReplaceUnderpriced = errors.New("replacement transaction underpriced")
	ErrUnderpriced        = errors.New("transaction underpriced")
	ErrPoolFull           = errors.New("txpool is full")
	ErrOversizedData      = errors.New("oversized data")
	ErrGasLimit           = errors.New("exceeds block gas limit")
	ErrInvalidSender      = errors.New("invalid sender")
	ErrAccountLimit       = errors.New("account limit exceeded")
	ErrFutureNonce        = errors.New("nonce too far in the future")
	// ErrStateRead: the head state could not be read, so the pool cannot
	// judge the transaction. A state that failed a read answers zeros
	// (State.Error); judged against them, a funded sender would be told
	// "insufficient funds ... have 0" and a used nonce would look free.
	ErrStateRead = errors.New("txpool: head state unreadable")
)

// Config holds the pool's limits.
type Config struct {
	PriceBump    uint64 // percent a replacement of a pending tx must raise both fee fields by (10)
	AccountSlots int    // transactions per sender, pending and queued (64)
	GlobalSlots  int    // transactions in the pool (32768)
	MaxNonceGap  uint64 // how far past the sender's pending nonce a queued tx may be (64)
	MaxTxSize    int    // encoded bytes (128 KiB)
	MinTip       uint64 // wei per gas a transaction must tip at least (0)
	// MaxBytes bounds the whole pool in the bytes Pool.Bytes counts
	// (encoded transactions and blob sidecars; 256 MiB). GlobalSlots
	// alone lets 32,768 transactions of MaxTxSize hold 4 GiB, and blob
	// sidecars far more. 256 MiB keeps the full count of transactions up
	// to 8 KiB each (ordinary ones are 100-300 bytes, so the count binds
	// first in normal use), is of the order of go-ethereum's worst case
	// (6,144 slots of 32 KiB, 192 MiB), and stops a flood of the largest
	// transactions at 2,048 of them.
	MaxBytes int64
	// FIFO orders blocks by arrival instead of by tip (Ordered), as
	// anvil's --order fifo: a development node's choice.
	FIFO bool
	// SubscriberBytes bounds what one subscriber's buffer holds, in the
	// transactions' encoded bytes (8 MiB), besides the count it asks for
	// (Subscribe): a transaction the pool dropped stays in memory while a
	// lagging subscriber holds it.
	SubscriberBytes int
	// Log receives the head state's read errors (nil: slog.Default).
	Log *slog.Logger
}

// DefaultConfig are the limits of a node that does not say otherwise.
var DefaultConfig = Config{PriceBump: 10, AccountSlots: 64, GlobalSlots: 32768, MaxNonceGap: 64, MaxTxSize: 128 << 10, MaxBytes: 256 << 20, SubscriberBytes: 8 << 20}

// State is the head state the pool validates against.
type State interface {
	GetNonce(types.Address) uint64
	GetBalance(types.Address) *uint256.Int
	GetCode(types.Address) []byte
	// Error is the first read error the state ran into (nil: none).
	// After one, the getters answer zeros, which the pool must not
	// judge by (state.StateDB.Error).
	Error() error
}

// Head describes the block the next one builds on.
type Head struct {
	Signer      types.Signer
	Fork        forks.Fork
	GasLimit    uint64
	BaseFee     *uint256.Int // of the next block; nil before London
	BlobBaseFee *uint256.Int // of the next block; nil before Cancun
	MaxBlobs    uint64
	MaxCodeSize uint64 // the chain's code size setting (StatelessRules)
	State       State
}

type entry struct {
	tx      *types.Transaction
	from    types.Address
	sidecar *types.BlobSidecar // a blob transaction's blobs, kept while it waits
	// announced is set once the transaction has been executable and was
	// handed to the subscribers; a queued one is announced when its gap
	// closes.
	announced bool
	seq       uint64 // arrival order (Config.FIFO)
	// cost is what the transaction may take from its sender at most
	// (tx.Cost), kept for the balance check of every head change.
	cost *uint256.Int
	// size is what the entry counts in Pool.bytes (entrySize), kept so
	// that its removal takes off exactly what its admission added.
	size int64
}

// account holds one sender's transactions by nonce.
type account struct {
	txs map[uint64]*entry
	// The executable run as last walked: every nonce in [base, end) is in
	// txs and announced. A sender streaming transactions adds them one at
	// a time; walking its run from the state nonce for each would cost
	// the pool quadratic time in the run. Valid while runOK; anything
	// that takes an entry out or replaces one clears it.
	base, end uint64
	runOK     bool
}

// runFrom is where a walk of acc's executable run from stateNonce may
// start: past the part known to be present and announced.
func (acc *account) runFrom(stateNonce uint64) uint64 {
	if acc.runOK && acc.base == stateNonce {
		return acc.end
	}
	return stateNonce
}

// Pool is a transaction pool. It is safe for concurrent use.
type Pool struct {
	cfg Config

	mu       sync.RWMutex
	head     Head
	stMu     sync.Mutex // head.State is not safe for concurrent use; readers under mu.RLock share it
	all      map[types.Hash]*entry
	accounts map[types.Address]*account
	seq      uint64 // the last arrival number given
	bytes    int64  // the sum of the entries' size, bounded by cfg.MaxBytes

	subMu sync.Mutex
	subs  map[chan *types.Transaction]*subscriber
	drops dropLog // transactions subscribers missed (subscribe.go)
	// stateLog throttles the log of head state read errors: while the
	// store fails, every transaction a client sends is refused with one.
	stateLog throttledLog

	// sync brings the pool to the chain's head if the head moved since
	// the last Reset (nil: the pool is only moved by Reset). See SetSync.
	sync func()
}

// New returns an empty pool validating against head.
func New(cfg Config, head Head) *Pool {
	if cfg.PriceBump == 0 {
		cfg.PriceBump = DefaultConfig.PriceBump
	}
	if cfg.AccountSlots == 0 {
		cfg.AccountSlots = DefaultConfig.AccountSlots
	}
	if cfg.GlobalSlots == 0 {
		cfg.GlobalSlots = DefaultConfig.GlobalSlots
	}
	if cfg.MaxNonceGap == 0 {
		cfg.MaxNonceGap = DefaultConfig.MaxNonceGap
	}
	if cfg.MaxTxSize == 0 {
		cfg.MaxTxSize = DefaultConfig.MaxTxSize
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultConfig.MaxBytes
	}
	if cfg.SubscriberBytes == 0 {
		cfg.SubscriberBytes = DefaultConfig.SubscriberBytes
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Pool{cfg: cfg, head: head, all: map[types.Hash]*entry{}, accounts: map[types.Address]*account{},
		subs: map[chan *types.Transaction]*subscriber{}}
}

// SetSync installs f, which the pool calls before it validates a
// transaction (Add, AddPooled) or answers a sender's next nonce (Nonce),
// to move itself to the chain's head if the head moved since its last
// Reset. The chain publishes a new head before whoever keeps the pool
// has reset it; without this, a client that saw a block (its receipt,
// the head's balance) and at once sent a transaction that block made
// possible would be refused against the state before it ("insufficient
// funds", "nonce too low"). f may call Reset; it is called with no lock
// of the pool held. Set it before the pool is used.
func (p *Pool) SetSync(f func()) { p.sync = f }

// current brings the pool to the chain's head (SetSync).
func (p *Pool) current() {
	if p.sync != nil {
		p.sync()
	}
}

// Add validates tx and adds it, replacing a transaction with the same
// sender and nonce if it pays enough more. A blob transaction needs its
// sidecar: see AddPooled.
func (p *Pool) Add(tx *types.Transaction) error { return p.AddPooled(tx, nil) }

// AddPooled is Add for a transaction as a client sends it: a blob
// transaction comes with its sidecar, which is verified against the
// transaction's versioned hashes and kept with it until it is included.
func (p *Pool) AddPooled(tx *types.Transaction, sc *types.BlobSidecar) error {
	p.current()
	// Recover the sender and check the blobs before taking the lock: they
	// are the costly steps, so concurrent submitters overlap here.
	p.mu.RLock()
	signer, fork := p.head.Signer, p.head.Fork
	rules := p.statelessRules()
	p.mu.RUnlock()
	if signer.Supports(tx.Type()) {
		signer.Sender(tx)
	}
	if tx.Type() == types.BlobTxType {
		// The transaction's own rules first: a malformed blob transaction
		// is refused before its blobs cost a proof check.
		if _, _, err := ValidateStateless(tx, rules); err != nil {
			return err
		}
	}
	if err := VerifySidecar(tx, sc, fork); err != nil {
		return err
	}
	p.mu.Lock()
	ready, err := p.add(tx, sc)
	p.mu.Unlock()
	for _, r := range ready {
		p.notify(r)
	}
	return err
}

// add pools tx and returns the transactions that became executable by it
// (tx itself, and the queued ones whose gap it closed), to be announced.
func (p *Pool) add(tx *types.Transaction, sc *types.BlobSidecar) ([]*types.Transaction, error) {
	h := tx.Hash()
	if _, ok := p.all[h]; ok {
		return nil, ErrAlreadyKnown
	}
	from, stateNonce, err := p.validate(tx)
	if err != nil {
		return nil, err
	}
	size := entrySize(tx, sc)
	acc := p.accounts[from]
	var old *entry
	if acc != nil {
		old = acc.txs[tx.Nonce()]
	}
	slots, room := 1, p.cfg.MaxBytes-p.bytes // what tx may take without evicting
	if old != nil {
		// A pending transaction has been announced to peers and may be in
		// a block being built: replacing it costs the network, so the fee
		// must rise by the price bump. A queued one, behind a nonce gap,
		// was never announced and is in no block; replacing it costs only
		// this pool, so any higher fee does.
		pending := tx.Nonce() < p.pendingNonce(from, stateNonce)
		if pending && !p.bumped(old.tx, tx) || !pending && !raised(old.tx, tx) {
			return nil, ErrReplaceUnderpriced
		}
		slots, room = 0, room+old.size
	} else if acc != nil && len(acc.txs) >= p.cfg.AccountSlots && 2*len(p.all) >= p.cfg.GlobalSlots {
		// AccountSlots is what every sender is guaranteed; while the pool
		// is less than half full a busy sender may use more, so one account
		// streaming transactions is not capped at a few per block.
		return nil, ErrAccountLimit
	}
	// Full in count or in bytes: cheaper transactions make way, or tx is
	// refused with nothing evicted.
	if slots += len(p.all) - p.cfg.GlobalSlots; slots > 0 || size > room {
		if !p.makeRoom(tx, from, slots, size-room) {
			return nil, ErrPoolFull
		}
	}
	if acc = p.accounts[from]; acc == nil { // makeRoom may have emptied it
		acc = &account{txs: map[uint64]*entry{}}
		p.accounts[from] = acc
	}
	if old != nil {
		delete(p.all, old.tx.Hash())
		p.bytes -= old.size
		acc.runOK = false // the replacement is not announced yet
	}
	cost, _ := tx.Cost() // validate refused one that overflows
	p.seq++
	e := &entry{tx: tx, from: from, sidecar: sc, cost: cost, seq: p.seq, size: size}
	acc.txs[tx.Nonce()] = e
	p.all[h] = e
	p.bytes += size
	return p.promote(acc, stateNonce, nil), nil
}

// promote marks the not yet announced transactions of acc's executable run
// (from stateNonce on) as announced and appends them to out. Called with
// p.mu held.
func (p *Pool) promote(acc *account, stateNonce uint64, out []*types.Transaction) []*types.Transaction {
	for n := acc.runFrom(stateNonce); ; n++ {
		e, ok := acc.txs[n]
		if !ok {
			acc.base, acc.end, acc.runOK = stateNonce, n, true
			return out
		}
		if !e.announced {
			e.announced = true
			out = append(out, e.tx)
		}
	}
}

// validate runs the checks a transaction must pass to enter the pool:
// the stateless ones, then those against the head. It returns the sender
// and its state nonce.
func (p *Pool) validate(tx *types.Transaction) (from types.Address, stateNonce uint64, err error) {
	hd := &p.head
	from, _, err = ValidateStateless(tx, p.statelessRules())
	if err != nil {
		return from, 0, err
	}
	if hd.BaseFee != nil && tx.GasFeeCap().Lt(hd.BaseFee) {
		return from, 0, fmt.Errorf("%w: address %s, maxFeePerGas: %s, baseFee: %s", evm.ErrFeeCapTooLow, from.Hex(), tx.GasFeeCap(), hd.BaseFee)
	}
	if p.cfg.MinTip > 0 && tx.GasTipCap().LtUint64(p.cfg.MinTip) {
		return from, 0, fmt.Errorf("%w: tip %s below the pool minimum %d", ErrUnderpriced, tx.GasTipCap(), p.cfg.MinTip)
	}
	if tx.Type() == types.BlobTxType && hd.BlobBaseFee != nil && tx.BlobGasFeeCap().Lt(hd.BlobBaseFee) {
		return from, 0, evm.ErrBlobFeeCapTooLow
	}
	nonce, code, bal, err := p.stateAccount(from)
	if err != nil {
		return from, 0, err
	}
	if tx.Nonce() < nonce {
		return from, 0, fmt.Errorf("%w: address %s, tx: %d state: %d", evm.ErrNonceTooLow, from.Hex(), tx.Nonce(), nonce)
	}
	if tx.Nonce() > p.pendingNonce(from, nonce)+p.cfg.MaxNonceGap {
		return from, 0, fmt.Errorf("%w: address %s, tx: %d state: %d", ErrFutureNonce, from.Hex(), tx.Nonce(), nonce)
	}
	if len(code) > 0 {
		if _, delegated := evm.ParseDelegation(code); !delegated {
			return from, 0, fmt.Errorf("%w: address %s, len(code): %d", evm.ErrSenderNoEOA, from.Hex(), len(code))
		}
	}
	cost, ok := tx.Cost()
	if !ok {
		return from, 0, fmt.Errorf("%w: cost overflows 256 bits", evm.ErrInsufficientFunds)
	}
	if bal.Lt(cost) {
		return from, 0, fmt.Errorf("%w: address %s have %s want %s", evm.ErrInsufficientFunds, from.Hex(), bal, cost)
	}
	return from, nonce, nil
}

// statelessRules are the head's rules for ValidateStateless. Called with
// p.mu held.
func (p *Pool) statelessRules() StatelessRules {
	hd := &p.head
	return StatelessRules{Signer: hd.Signer, Fork: hd.Fork, GasLimit: hd.GasLimit, MaxSize: p.cfg.MaxTxSize, MaxBlobs: hd.MaxBlobs, MaxCodeSize: hd.MaxCodeSize}
}

// pendingNonce is the nonce after the run of pooled transactions of from
// that starts at the state nonce: the gap limit counts from there, so a
// sender may keep any number of consecutive transactions in flight.
func (p *Pool) pendingNonce(from types.Address, stateNonce uint64) uint64 {
	n := stateNonce
	if acc := p.accounts[from]; acc != nil {
		n = acc.runFrom(stateNonce)
		for {
			if _, ok := acc.txs[n]; !ok {
				break
			}
			n++
		}
	}
	return n
}

// bumped reports whether repl raises both fee fields of old by the price
// bump.
func (p *Pool) bumped(old, repl *types.Transaction) bool {
	bump := func(x *uint256.Int) *uint256.Int {
		y := new(uint256.Int).Mul(x, uint256.NewInt(100+p.cfg.PriceBump))
		return y.Div(y, uint256.NewInt(100))
	}
	return !repl.GasFeeCap().Lt(bump(old.GasFeeCap())) && !repl.GasTipCap().Lt(bump(old.GasTipCap()))
}

// raised reports whether repl pays more than old: neither fee field lower
// and at least one higher.
func raised(old, repl *types.Transaction) bool {
	fc, tc := repl.GasFeeCap().Cmp(old.GasFeeCap()), repl.GasTipCap().Cmp(old.GasTipCap())
	return fc >= 0 && tc >= 0 && (fc > 0 || tc > 0)
}

func (p *Pool) remove(e *entry) {
	delete(p.all, e.tx.Hash())
	p.bytes -= e.size
	if acc := p.accounts[e.from]; acc != nil {
		delete(acc.txs, e.tx.Nonce())
		acc.runOK = false
		if len(acc.txs) == 0 {
			delete(p.accounts, e.from)
		}
	}
}

// Reset moves the pool to a new head: included and stale transactions go,
// and those the new state can no longer pay for are dropped.
// Transactions that the new state makes executable (their gap closed by a
// block that included transactions this pool never had) are announced.
//
// If the new state fails a read, Reset drops nothing (a read error is no
// evidence against a transaction) and returns the error (ErrStateRead);
// until a Reset with a readable state the pool refuses transactions with
// it and offers none for a block (StateErr).
func (p *Pool) Reset(head Head) error {
	p.mu.Lock()
	ready, err := p.reset(head)
	p.mu.Unlock()
	for _, tx := range ready {
		p.notify(tx)
	}
	return err
}

// reset is Reset under p.mu; it returns the transactions to announce.
// The state is read for every sender first and judged after: a read error
// anywhere voids all the answers.
func (p *Pool) reset(head Head) ([]*types.Transaction, error) {
	p.head = head
	type acct struct {
		nonce uint64
		bal   *uint256.Int
	}
	seen := make(map[types.Address]acct, len(p.accounts))
	for from := range p.accounts {
		seen[from] = acct{head.State.GetNonce(from), head.State.GetBalance(from)}
	}
	if err := p.stateErr(); err != nil {
		return nil, err
	}
	var ready []*types.Transaction
	for from, acc := range p.accounts {
		a := seen[from]
		for n, e := range acc.txs {
			if n < a.nonce || e.cost == nil || a.bal.Lt(e.cost) {
				p.remove(e)
			}
		}
		ready = p.promote(acc, a.nonce, ready)
	}
	return ready, nil
}

// Get returns a pooled transaction and its sender.
func (p *Pool) Get(h types.Hash) (*types.Transaction, types.Address, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.all[h]
	if !ok {
		return nil, types.Address{}, false
	}
	return e.tx, e.from, true
}

// Nonce returns the next nonce of addr counting its pending transactions,
// or ErrStateRead if the head state cannot tell addr's nonce.
func (p *Pool) Nonce(addr types.Address) (uint64, error) {
	p.current()
	p.mu.RLock()
	defer p.mu.RUnlock()
	n, err := p.stateNonce(addr)
	if err != nil {
		return 0, err
	}
	return p.pendingNonce(addr, n), nil
}

// StateErr is the read error of the head state the pool stands on
// (wrapping ErrStateRead), nil while it reads soundly. Whoever keeps the
// pool on the head gives it a fresh state when this is set, even if the
// head has not moved: a read error may pass.
func (p *Pool) StateErr() error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	p.stMu.Lock()
	defer p.stMu.Unlock()
	if err := p.head.State.Error(); err != nil {
		return fmt.Errorf("%w: %w", ErrStateRead, err)
	}
	return nil
}

// stateErr is StateErr with p.mu held; it logs the error, which is the
// node's fault, not the client's, once per logEvery with the count of
// refusals since the line before.
func (p *Pool) stateErr() error {
	p.stMu.Lock()
	err := p.head.State.Error()
	p.stMu.Unlock()
	if err == nil {
		return nil
	}
	p.stateLog.log(p.cfg.Log, slog.LevelError, "txpool: head state read failed", "err", err)
	return fmt.Errorf("%w: %w", ErrStateRead, err)
}

// stateNonce is a's nonce in the head state, or ErrStateRead. Called with
// p.mu held.
func (p *Pool) stateNonce(a types.Address) (uint64, error) {
	p.stMu.Lock()
	n := p.head.State.GetNonce(a)
	p.stMu.Unlock()
	return n, p.stateErr()
}

// stateAccount reads what validate judges a sender by, or ErrStateRead.
// Called with p.mu held.
func (p *Pool) stateAccount(a types.Address) (nonce uint64, code []byte, bal *uint256.Int, err error) {
	p.stMu.Lock()
	nonce, code, bal = p.head.State.GetNonce(a), p.head.State.GetCode(a), p.head.State.GetBalance(a)
	p.stMu.Unlock()
	if err := p.stateErr(); err != nil {
		return 0, nil, nil, err
	}
	return nonce, code, bal, nil
}

// executableFrom is where a's executable run starts: its state nonce;
// false if the head state cannot say (a read failed), so nothing of a's
// counts as executable. Called with p.mu held.
func (p *Pool) executableFrom(a types.Address) (uint64, bool) {
	p.stMu.Lock()
	n := p.head.State.GetNonce(a)
	err := p.head.State.Error()
	p.stMu.Unlock()
	return n, err == nil
}

// Stats counts pending (executable) and queued transactions.
func (p *Pool) Stats() (pending, queued int) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for from, acc := range p.accounts {
		n, ok := p.executableFrom(from)
		run := 0
		for ok {
			if _, found := acc.txs[n+uint64(run)]; !found {
				break
			}
			run++
		}
		pending += run
		queued += len(acc.txs) - run
	}
	return pending, queued
}

// Bytes is what the pool's transactions take: their encoded size and
// the blobs, commitments and proofs of those that carry a sidecar.
func (p *Pool) Bytes() int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.bytes
}

// Pending returns the executable transactions of each sender in nonce order.
func (p *Pool) Pending() map[types.Address][]*types.Transaction {
	out, _ := p.pending(false)
	return out
}

// pending is Pending, with each transaction's arrival number if asked.
func (p *Pool) pending(seqs bool) (map[types.Address][]*types.Transaction, map[*types.Transaction]uint64) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make(map[types.Address][]*types.Transaction, len(p.accounts))
	var arrival map[*types.Transaction]uint64
	if seqs {
		arrival = make(map[*types.Transaction]uint64, len(p.all))
	}
	for from, acc := range p.accounts {
		n, ok := p.executableFrom(from)
		var run []*types.Transaction
		for ok {
			e, found := acc.txs[n]
			if !found {
				break
			}
			run = append(run, e.tx)
			if seqs {
				arrival[e.tx] = e.seq
			}
			n++
		}
		if len(run) > 0 {
			out[from] = run
		}
	}
	return out, arrival
}

// Ordered is the pending transactions in the order a block takes them
// (at most limit; 0: all):
// by tip at the base fee (ByPrice), or with Config.FIFO in the order they
// arrived, each sender's still in nonce order (a replacement counts from
// its own arrival), as anvil's --order fifo.
func (p *Pool) Ordered(baseFee *uint256.Int, limit int) []*types.Transaction {
	if !p.cfg.FIFO {
		return ByPriceN(p.Pending(), baseFee, limit)
	}
	pending, arrival := p.pending(true)
	// The same merge as ByPrice with an earlier arrival as the better
	// "tip": 2^64 - seq.
	key := func(tx *types.Transaction) uint256.Int {
		var k uint256.Int
		k.SubUint64(k.Lsh(uint256.NewInt(1), 64), arrival[tx])
		return k
	}
	return merge(pending, key, limit)
}

// Content returns, under one lock, each sender's executable run (pending,
// in nonce order) and the rest of its transactions (queued, behind a nonce
// gap, in nonce order), as txpool_content shows them.
func (p *Pool) Content() (pending, queued map[types.Address][]*types.Transaction) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	pending = make(map[types.Address][]*types.Transaction)
	queued = make(map[types.Address][]*types.Transaction)
	for from, acc := range p.accounts {
		next, ok := p.executableFrom(from)
		nonces := make([]uint64, 0, len(acc.txs))
		for n := range acc.txs {
			nonces = append(nonces, n)
		}
		slices.Sort(nonces)
		for _, n := range nonces {
			tx := acc.txs[n].tx
			if ok && n == next {
				pending[from] = append(pending[from], tx)
				next++
			} else {
				queued[from] = append(queued[from], tx)
			}
		}
	}
	return pending, queued
}

// Remove drops transactions by hash (e.g. ones a block builder found
// invalid) and returns how many of them the pool held.
func (p *Pool) Remove(hashes ...types.Hash) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range hashes {
		if e, ok := p.all[h]; ok {
			p.remove(e)
			n++
		}
	}
	return n
}

// Len is the number of transactions in the pool.
func (p *Pool) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.all)
}

// ByPrice orders pending transactions for a block: repeatedly the best
// paying next transaction among all senders, keeping each sender's nonce
// order. Equal tips go to the lower sender address, so the order is
// deterministic. A heap of the senders' next transactions makes it
// O(n log senders).
func ByPrice(pending map[types.Address][]*types.Transaction, baseFee *uint256.Int) []*types.Transaction {
	return ByPriceN(pending, baseFee, 0)
}

// ByPriceN is ByPrice stopping after limit transactions (0: none): a
// proposer orders only what a block can take, not a full pool, whose
// ordering would otherwise spend its build budget.
func ByPriceN(pending map[types.Address][]*types.Transaction, baseFee *uint256.Int, limit int) []*types.Transaction {
	return merge(pending, func(tx *types.Transaction) uint256.Int { return tipOf(tx, baseFee) }, limit)
}

// merge orders pending transactions by repeatedly taking the sender whose
// next transaction has the highest key, stopping after limit (0: none).
func merge(pending map[types.Address][]*types.Transaction, key func(*types.Transaction) uint256.Int, limit int) []*types.Transaction {
	h := make(priceHeap, 0, len(pending))
	total := 0
	for from, txs := range pending {
		if len(txs) == 0 {
			continue
		}
		h = append(h, &priceHead{from: from, txs: txs, tip: key(txs[0])})
		total += len(txs)
	}
	heap.Init(&h)
	if limit > 0 {
		total = min(total, limit)
	}
	out := make([]*types.Transaction, 0, total)
	for len(h) > 0 && len(out) < total {
		top := h[0]
		out = append(out, top.txs[top.i])
		top.i++
		if top.i == len(top.txs) {
			heap.Pop(&h)
			continue
		}
		top.tip = key(top.txs[top.i])
		heap.Fix(&h, 0)
	}
	return out
}

func tipOf(tx *types.Transaction, baseFee *uint256.Int) uint256.Int {
	t, err := tx.EffectiveGasTip(baseFee)
	if err != nil {
		return uint256.Int{}
	}
	return *t
}

type priceHead struct {
	from types.Address
	txs  []*types.Transaction
	i    int
	tip  uint256.Int
}

type priceHeap []*priceHead

func (h priceHeap) Len() int { return len(h) }
func (h priceHeap) Less(i, j int) bool {
	if c := h[i].tip.Cmp(&h[j].tip); c != 0 {
		return c > 0
	}
	return bytes.Compare(h[i].from[:], h[j].from[:]) < 0
}
func (h priceHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *priceHeap) Push(x any)   { *h = append(*h, x.(*priceHead)) }
func (h *priceHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
