package bft

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// ChainAppConfig configures the chain application of one validator.
type ChainAppConfig struct {
	Chain *chain.Chain
	// View is the chain as the node reads it: the state a block builds on
	// and the next block's parameters, with a development node's edits and
	// choices. nil: the chain as it is.
	View       *chainview.View
	Pool       *txpool.Pool
	Validators consensus.ValidatorSource
	Coinbase   types.Address
	GasLimit   uint64 // block gas limit to aim for (0: keep the parent's)
	// Validated, if set, runs after another validator's block passed
	// validation (its transactions' senders are recovered by then).
	Validated func(*types.Block)
	// BlockTime is the minimum time between the blocks this validator
	// proposes and the block before them.
	BlockTime time.Duration
	// OnlyWithTransactions makes Propose wait, as long as it takes, until
	// a block would carry transactions: no empty blocks. Only right for a
	// validator that is the whole set; in a larger one the others would
	// time the round out while it waits.
	OnlyWithTransactions bool
	// Committed, if set, runs after each block is stored, before the next
	// height starts: the node moves its pool to the new head there, so the
	// next block is built from a pool that knows what this one took.
	Committed func(*types.Block)
	// Log, if set, gets one debug line per committed block with where its
	// time went on this validator (blocklog.go).
	Log *slog.Logger
	// Miner, if set, decides when blocks are made and with what time
	// instead of BlockTime and OnlyWithTransactions: a development
	// node's mining controls (miner.go). Only for a validator that is the
	// whole set.
	Miner Miner
}

// minTxGas is the least gas a transaction uses (a transfer's): a block
// holds at most its gas limit over it.
const minTxGas = 21_000

// burstWait lets a burst of submissions land in one block when an idle
// validator that proposes only blocks with transactions wakes up for the
// first of them.
const burstWait = 5 * time.Millisecond

// ChainApp is the consensus application of one validator: blocks of its chain.
// It builds proposals from the pool, validates others' proposals with the
// chain's own block validation plus the parent-certificate checks, and
// stores decided blocks with their commit certificates.
type ChainApp struct {
	cfg     ChainAppConfig
	chainID uint64
	txs     <-chan *types.Transaction // pool arrivals, to wake a waiting Propose
	unsub   func()

	mu      sync.Mutex
	pending map[types.Hash]*chain.Built // built or validated, not yet committed
	arrived map[types.Hash]time.Time    // when others' proposals pending came in
	timings map[types.Hash]blockTiming  // where the pending blocks' time went (blocklog.go)
	// built is the timing of our last build, until keepBuilt files it.
	built blockTiming
	last  time.Time // start of the last block: our build, or the arrival of another's
	cost  validationCost
	lead  buildLead // how long our builds take, to start them that much early
	// parentCerts are the parent certificates the pending blocks carry,
	// stored with them when decided (Chain.CommitDecided).
	parentCerts map[types.Hash][]byte
	// lastCert is the widest certificate of the head the driver reported
	// (LastCommit): the parent certificate of the next block we propose.
	lastCert *consensus.Certificate
	// committed is when the head was decided here; gathered is signalled
	// when lastCert grows; lastSigned is the last height each validator's
	// precommit was seen in a certificate (lastcommit.go).
	committed  time.Time
	gathered   chan struct{}
	lastSigned map[types.Address]uint64

	// pos is the chain's proof-of-stake engine (nil on other chains): it
	// keeps the double-sign evidence for the blocks we propose.
	pos *pos.Engine
}

// NewChainApp returns the application; Close releases its pool subscription.
func NewChainApp(cfg ChainAppConfig) *ChainApp {
	if cfg.View == nil {
		cfg.View = chainview.New(cfg.Chain)
	}
	a := &ChainApp{cfg: cfg, chainID: cfg.Chain.Config.ChainID, pos: pos.Of(cfg.Chain), pending: make(map[types.Hash]*chain.Built), arrived: make(map[types.Hash]time.Time),
		timings: make(map[types.Hash]blockTiming), parentCerts: make(map[types.Hash][]byte), gathered: make(chan struct{}, 1),
		lastSigned: make(map[types.Address]uint64), last: time.Now()}
	// Subscribed before the first Propose checks the pool, so no arrival
	// between that check and the wait goes unnoticed.
	a.txs, a.unsub = cfg.Pool.Subscribe(1024)
	return a
}

// AddEvidence verifies double-sign evidence (from a peer, or a test) and
// pools it for the next block this validator proposes (pos.Engine.AddEvidence).
func (a *ChainApp) AddEvidence(ev consensus.DuplicateVoteEvidence) error {
	if a.pos == nil {
		return fmt.Errorf("%w: this chain has no penalties", consensus.ErrEvidence)
	}
	return a.pos.AddEvidence(a.cfg.Chain, ev)
}

// ReportDoubleSign implements consensus.EvidenceSink: evidence this
// validator's core found, verified by the driver, goes to the pool.
func (a *ChainApp) ReportDoubleSign(ev consensus.DuplicateVoteEvidence) {
	_ = a.AddEvidence(ev) // refused only when stale or punished already
}

// PendingEvidence returns the pooled evidence no block has carried yet.
func (a *ChainApp) PendingEvidence() []consensus.DuplicateVoteEvidence {
	if a.pos == nil {
		return nil
	}
	return a.pos.PendingEvidence()
}

// Close releases the pool subscription.
func (a *ChainApp) Close() { a.unsub() }

// Propose implements App. It waits for the block time, and, with
// OnlyWithTransactions, for a transaction that a block would take.
func (a *ChainApp) Propose(ctx context.Context, height uint64) (consensus.Value, error) {
	if a.cfg.Miner != nil {
		return a.proposeMined(ctx, height)
	}
	a.mu.Lock()
	// The block is due a block time after the last one started; building
	// it takes time too, so the build starts that much early and the
	// proposal goes out when the block is due, not a build later.
	ready := a.last.Add(a.cfg.BlockTime - a.lead.get(buildBudget(a.cfg.BlockTime)))
	a.mu.Unlock()
	if err := sleep(ctx, time.Until(ready)); err != nil {
		return consensus.Value{}, err
	}
	awaitFrom := time.Now()
	if err := a.awaitLastCommit(ctx, height); err != nil {
		return consensus.Value{}, err
	}
	waited := time.Since(awaitFrom)
	for {
		for len(a.txs) > 0 { // arrivals so far are covered by the check below
			<-a.txs
		}
		if pending, _ := a.cfg.Pool.Stats(); pending > 0 || !a.cfg.OnlyWithTransactions {
			built, parentCert, err := a.build(height, MineOrder{TimeMs: uint64(time.Now().UnixMilli())})
			if err != nil {
				return consensus.Value{}, err
			}
			if len(built.Block.Transactions()) > 0 || !a.cfg.OnlyWithTransactions {
				a.mu.Lock()
				a.built.waited = waited
				a.mu.Unlock()
				a.keepBuilt(built, parentCert)
				return EncodeValue(built.Block, parentCert), nil
			}
			// Pending transactions none of which applies (e.g. a fee below
			// the base fee): wait for the pool to change rather than spin.
		}
		select {
		case <-ctx.Done():
			return consensus.Value{}, ctx.Err()
		case <-a.txs:
			if err := sleep(ctx, burstWait); err != nil {
				return consensus.Value{}, err
			}
		}
	}
}

// keepBuilt keeps a block we built, with the parent certificate it
// commits to, until it is decided or passed over.
func (a *ChainApp) keepBuilt(built *chain.Built, parentCert []byte) {
	a.mu.Lock()
	a.pending[built.Block.Hash()] = built
	a.parentCerts[built.Block.Hash()] = parentCert
	a.timed(built.Block.Hash(), a.built)
	a.mu.Unlock()
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// build assembles a block on the head from the pool's pending transactions,
// at o's time and with o's choices of fee recipient, base fee and
// PREVRANDAO where it makes them.
func (a *ChainApp) build(height uint64, o MineOrder) (*chain.Built, []byte, error) {
	c := a.cfg.Chain
	head := c.Head()
	if head.Number()+1 != height {
		return nil, nil, fmt.Errorf("bft: asked for block %d on head %d", height, head.Number())
	}
	parentCert, err := c.Certificate(head.Number())
	if errors.Is(err, chain.ErrNotFound) {
		// The genesis block, or a chain produced before certificates were
		// kept: nothing to commit to.
		parentCert, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	a.mu.Lock()
	if lc := a.lastCert; lc != nil && lc.Height == head.Number() && lc.BlockHash == head.Hash() && parentCert != nil {
		// Every precommit for the head that arrived by now, not only the
		// quorum that decided it: validators whose precommits came later
		// are not counted absent (consensus.LastCommit).
		parentCert = lc.Encode()
	}
	a.last = time.Now()
	var deadline time.Time // none for a validator alone: nobody else executes its blocks
	if set, err := a.cfg.Validators.ValidatorSet(height); err == nil && set.Len() > 1 {
		deadline = a.last.Add(buildBudget(a.cfg.BlockTime)) // ordering the pool counts too
	}
	a.mu.Unlock()
	// The next block's parameters, with a development node's choices of
	// fee recipient, base fee and PREVRANDAO: the pool is ordered by the
	// base fee the block will have.
	ph := head.HeaderRef()
	nb := a.cfg.View.NextBlockParams(ph, &chain.Attributes{Coinbase: a.cfg.Coinbase, Time: o.Time, TimeMs: o.TimeMs, GasLimit: a.cfg.GasLimit,
		Random: types.Hash(crypto.Keccak256(head.Hash().Bytes()))})
	// Only what the block can take is ordered: its gas in transfers, or
	// fewer if the others' validation cost caps it.
	limit := int(nb.GasLimit / minTxGas)
	if n := a.cost.maxTxs(validationBudget(a.cfg.BlockTime)); n > 0 {
		limit = min(limit, n)
	}
	orderFrom := time.Now()
	ordered := a.cfg.Pool.Ordered(nb.BaseFee, max(limit, 1))
	start := time.Now()
	built, err := c.BuildBlock(chain.BuildParams{
		Coinbase:         nb.Coinbase,
		Time:             nb.Time,
		TimeMs:           o.TimeMs,
		GasLimit:         a.cfg.GasLimit,
		Random:           nb.Random,
		ParentBeaconRoot: pos.CertRoot(parentCert), // what a chain without an engine of its own commits to
		ParentCert:       parentCert,               // a proof-of-stake engine's Prepare makes the block commit to it

		BaseFee:     nb.BaseFee,
		DevGasLimit: a.cfg.View.ChoicesOn(ph.Hash()).GasLimit,
		Deadline:    deadline,
		MinTxs:      minCostSample, // a late build still carries what the validation cap allows at least
		MaxTxBytes:  maxProposalTxBytes,
		State:       a.cfg.View.StateRoot(ph),
	}, ordered)
	if err != nil {
		return nil, nil, err
	}
	took := time.Since(start)
	a.mu.Lock()
	if !deadline.IsZero() {
		a.lead.observe(took)
	}
	a.built = blockTiming{start: a.last, order: start.Sub(orderFrom), exec: took}
	a.mu.Unlock()
	if len(built.Dropped) > 0 {
		a.cfg.Pool.Remove(built.Dropped...)
	}
	return built, parentCert, nil
}

// Validate implements App: the parent certificate checks, then the chain's
// own validation, which executes the block on the head's state. The result
// is kept so that a decided block is stored without a second execution.
func (a *ChainApp) Validate(ctx context.Context, height uint64, v consensus.Value) error {
	a.mu.Lock()
	known, ok := a.pending[v.ID]
	a.mu.Unlock()
	if ok && known.Block.Number() == height {
		return nil // built or validated already
	}
	arrived := time.Now()
	b, parentCert, err := DecodeValue(v)
	if err != nil {
		return err
	}
	if b.Number() != height {
		return fmt.Errorf("bft: block %d proposed at height %d", b.Number(), height)
	}
	adoptSenders(a.cfg.Pool, b)
	c := a.cfg.Chain
	head := c.Head()
	if b.ParentHash() != head.Hash() {
		return fmt.Errorf("bft: block %d does not build on head %d", b.Number(), head.Number())
	}
	if e := c.Engine(); e.ProofOfStake() {
		if err := e.VerifyHeader(c, head.HeaderRef(), b.HeaderRef(), parentCert); err != nil {
			return err
		}
	} else if err := pos.CheckParentCert(a.chainID, a.cfg.Validators, head.HeaderRef(), b.HeaderRef(), parentCert); err != nil {
		// A chain with no engine of its own, run by BFT over a fixed set:
		// the certificate rule alone.
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // the core has moved on: skip the execution
	}
	start := time.Now()
	built, err := c.Validate(b)
	if err != nil {
		return err
	}
	took := time.Since(start)
	if a.cfg.Validated != nil {
		a.cfg.Validated(b)
	}
	a.mu.Lock()
	a.pending[v.ID] = built
	a.arrived[v.ID] = arrived
	a.timed(v.ID, blockTiming{start: arrived, exec: took})
	a.parentCerts[v.ID] = parentCert
	a.mu.Unlock()
	return nil
}

// Commit implements App: the block is stored with its certificate in one
// write, and the parent certificate the block commits to replaces the one
// this node stored for its parent (it may hold more precommits), so every
// node keeps the same certificate for every block but the head.
func (a *ChainApp) Commit(v consensus.Value, cert *consensus.Certificate) error {
	a.mu.Lock()
	built, ok := a.pending[v.ID]
	parentCert := a.parentCerts[v.ID]
	a.mu.Unlock()
	c := a.cfg.Chain
	decided := time.Now()
	var b *types.Block
	if ok {
		b = built.Block
		if err := c.CommitDecided(built, cert.Encode(), committedTo(b, parentCert)); err != nil {
			return err
		}
	} else {
		var err error
		if b, parentCert, err = DecodeValue(v); err != nil {
			return err
		}
		if _, err := c.InsertDecided(b, cert.Encode(), committedTo(b, parentCert)); err != nil {
			return err
		}
	}
	if a.pos != nil {
		a.pos.Committed(b)
	}
	a.mu.Lock()
	a.committed = time.Now()
	commitTook := a.committed.Sub(decided)
	arrived, seen := a.arrived[v.ID]
	timing, timed := a.timings[v.ID]
	if timed && b.Coinbase() != a.cfg.Coinbase {
		// Another's block we validated: its validation and its commit
		// are what a block of ours costs the others (pace.go).
		a.cost.observe(len(b.Transactions()), timing.exec+commitTook)
	}
	for id, p := range a.pending {
		if p.Block.Number() <= b.Number() {
			delete(a.pending, id)
			delete(a.arrived, id)
			delete(a.timings, id)
			delete(a.parentCerts, id)
		}
	}
	if !ok || b.Coinbase() != a.cfg.Coinbase {
		// Another's block: its time started when it arrived, as far as we
		// know, or now if it was decided before we saw it.
		a.last = time.Now()
		if seen {
			a.last = arrived
		}
	}
	a.mu.Unlock()
	if a.cfg.Committed != nil {
		a.cfg.Committed(b)
	}
	a.logCommit(b, timing, timed, decided, commitTook, time.Since(decided.Add(commitTook)))
	return nil
}
