package chain

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// ErrGenesisMismatch is returned when a data directory holds another chain.
var ErrGenesisMismatch = errors.New("data directory holds a different chain")

// ErrKnownBlock is returned when inserting a block that is already stored.
var ErrKnownBlock = errors.New("block already known")

// Chain is the canonical chain of one node: it validates and executes new
// blocks, stores them and tells subscribers. Blocks of the node's own
// network are final once inserted (BFT finality); only imported
// proof-of-work history can change branch, by total difficulty (see
// forkchoice.go).
type Chain struct {
	Config  *Config
	engine  Engine
	db      *DB
	genesis *types.Block

	// wmu serialises every change of the chain: inserts, commits,
	// rewinds, resets, history pruning. mu guards head and genesis only
	// and is held just to swap them once a change is written, so readers
	// of the head never wait behind a block's execution, its state commit
	// or its fsync. Under wmu, head may be read without mu.
	wmu  sync.Mutex
	mu   sync.RWMutex
	head *types.Block

	histMu sync.Mutex // one history prune at a time (historyprune.go)

	subMu sync.Mutex
	subs  map[chan *types.Block]struct{}

	// keys are the addresses and slots committed states touched, when a
	// development chain asks (RecordKeys); nil otherwise.
	keysMu sync.Mutex
	keys   map[types.Address]map[types.Hash]struct{}

	// reads is shared by the StateDBs StateAt opens: RPC calls open many
	// on the same few roots and read the same accounts and slots.
	reads *state.ReadCache

	fork atomic.Pointer[ForkPoint] // nil: the chain is no fork

	obs atomic.Pointer[Observer] // nil: nobody is told (observe.go)

	live   atomic.Pointer[livePruner] // nil: pruning by mark and sweep (prunelive.go)
	reorgs atomic.Uint64              // canonical changes other than a new head block
	pins   statePins                  // states long reads hold (statepin.go)
}

// stateReadCacheBytes bounds the shared read cache (some 20,000 reads).
const stateReadCacheBytes = 4 << 20

// Open opens the chain stored in kv, writing the genesis block first if kv
// is empty. A store that holds another genesis is refused. The engine
// (nil: Ethereum) is the chain's own rules; its genesis accounts are part
// of block 0.
func Open(g *Genesis, kv store.KV, e Engine) (*Chain, error) {
	if e == nil {
		e = Ethereum{}
	}
	db := NewDB(kv)
	if g.Fork == nil { // a fork's state is partial: no flat copy
		_, hasHead := db.HeadHash()
		if err := db.openFlat(!hasHead); err != nil {
			return nil, err
		}
	}
	if err := db.openAcctIndex(); err != nil {
		return nil, err
	}
	c := &Chain{Config: g.Config, engine: e, db: db, subs: map[chan *types.Block]struct{}{}, reads: state.NewReadCache(stateReadCacheBytes)}
	if g.Fork != nil {
		c.fork.Store(g.Fork)
	}
	gh, ok := db.GenesisHash()
	if ok {
		if err := migrateGenesisRecords(kv, e); err != nil {
			return nil, err
		}
	}
	same := false
	if ok {
		var err error
		if same, err = isStoredGenesis(kv, g, e, gh); err != nil {
			return nil, err
		}
	}
	switch {
	case same:
		// The genesis the store was initialised with: block 0 and its
		// state are there, so nothing is built again (a large allocation
		// takes seconds to commit). A fork's genesis is built in any case:
		// it reconnects the upstream state (Commit).
	case ok:
		if err := c.checkGenesis(g, kv, gh); err != nil {
			return nil, err
		}
	default:
		alloc, err := allocDigest(g.Alloc)
		if err != nil {
			return nil, err
		}
		head, eng, err := genesisRecords(g, e, alloc)
		if err != nil {
			return nil, err
		}
		full, err := genesisWith(g, e)
		if err != nil {
			return nil, err
		}
		var pin *bloom
		if g.Fork == nil {
			pin = newPinSet(pinKeysFor(len(g.Alloc), allocSlots(g.Alloc)))
			db.pin = pin
			db.startAcctIndex() // the genesis state's accounts are its first entries
		}
		blk, err := full.Commit(db)
		db.pin = nil
		if err != nil {
			return nil, err
		}
		if err := db.writeGenesisBlock(blk, head, alloc, eng, pin); err != nil {
			return nil, err
		}
		gh = blk.Hash()
	}
	var err error
	if c.genesis, err = db.Block(gh); err != nil {
		return nil, err
	}
	hh, ok := db.HeadHash()
	if !ok {
		return nil, errors.New("chain store has a genesis but no head")
	}
	if c.head, err = db.Block(hh); err != nil {
		return nil, fmt.Errorf("head block %s: %w", hh, err)
	}
	if err := c.openChainIDs(kv); err != nil {
		return nil, err
	}
	headState, err := state.NewWithRemote(c.stateRootOf(c.head.Root()), db, c.remote())
	if err != nil {
		return nil, fmt.Errorf("state of head block %d: %w", c.head.Number(), err)
	}
	if g.Fork == nil { // a fork's upstream chain has its own system contracts
		if err := c.Config.checkSystemContracts(headState.GetCodeSize); err != nil {
			return nil, err
		}
	}
	if err := db.migrateHistory(); err != nil {
		return nil, fmt.Errorf("history index: %w", err)
	}
	if err := db.ensureFlat(c.head.Root()); err != nil {
		return nil, fmt.Errorf("flat state of head block %d: %w", c.head.Number(), err)
	}
	if g.Fork == nil {
		lp, err := openLive(kv)
		if err != nil {
			return nil, err
		}
		c.live.Store(lp)
		if lp != nil {
			c.pins.floor = lp.st.applied // the states of older blocks are gone
			if lp.st.off > 0 {
				c.pins.floor++ // and a crash stopped the pass half way through this one's
			}
		}
	}
	return c, nil
}

// allocSlots is the number of storage slots an allocation gives.
func allocSlots(a Alloc) int {
	n := 0
	for _, acc := range a {
		n += len(acc.Storage)
	}
	return n
}

// writeGenesisBlock stores block 0, whose state is written, as the head
// of an empty store, with the genesis records. The records are kept so
// that a node restarted on this data directory needs no genesis file (and
// a --dev chain keeps its own), and so that a restart recognises its
// genesis without building it. With pin, the genesis state's pin filter,
// the chain prunes incrementally from block 0 on (prunelive.go).
func (db *DB) writeGenesisBlock(blk *types.Block, head, alloc, eng []byte, pin *bloom) error {
	var b store.Batch
	putGenesisRecords(&b, head, alloc, eng)
	if pin != nil {
		stagePinSet(&b, pin, blk.Number(), blk.Hash())
	}
	if err := db.kv.Write(&b); err != nil {
		return err
	}
	db.stageTD(blk.Hash(), &blk.HeaderRef().Difficulty)
	db.stageGenesis(blk)
	return db.WriteBlock(blk, nil)
}

// checkGenesis checks that g, which is not spelled as the stored spec, is
// the chain whose block 0 the store holds (gh): it builds g's block 0 (in
// memory; in the store for a fork, whose upstream nodes stay there and a
// restart reads them back instead of fetching them again; nodes of a
// refused genesis are harmless, keyed by hash) and compares.
func (c *Chain) checkGenesis(g *Genesis, kv store.KV, gh types.Hash) error {
	var scratch trie.Database = trie.NewMemoryDB()
	if g.Fork != nil {
		scratch = c.db
	}
	full, err := genesisWith(g, c.engine)
	if err != nil {
		return err
	}
	want, err := full.Commit(scratch)
	if err != nil {
		return err
	}
	if gh != want.Hash() {
		return fmt.Errorf("%w: stored genesis %s, genesis file gives %s", ErrGenesisMismatch, gh, want.Hash())
	}
	// The chain ID is not in block 0: two chains that differ only by it
	// share a genesis hash, and transactions signed for one are refused
	// by the other.
	if stored, ok, err := StoredGenesis(kv); err != nil {
		return err
	} else if ok && stored.Config.ChainID != g.Config.ChainID {
		return fmt.Errorf("%w: stored chain ID %d, genesis file gives %d", ErrGenesisMismatch, stored.Config.ChainID, g.Config.ChainID)
	}
	return nil
}

// Engine returns the chain's own rules.
func (c *Chain) Engine() Engine { return c.engine }

// Rules returns the chain's configuration and engine: what decides a block.
func (c *Chain) Rules() Rules { return Rules{Config: c.Config, Engine: c.engine} }

// DB returns the chain's store.
func (c *Chain) DB() *DB { return c.db }

// Genesis returns block 0.
func (c *Chain) Genesis() *types.Block {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.genesis
}

// Head returns the current head block.
func (c *Chain) Head() *types.Block {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.head
}

// setHead makes b the head, once what makes it so is written. Called
// with c.wmu held.
func (c *Chain) setHead(b *types.Block) {
	c.mu.Lock()
	c.head = b
	c.mu.Unlock()
	c.pins.lowered(b.Number())
}

// settledHead is the head once any change of the chain being made now is
// written. A pruning pass reads its head here after it begins tracking
// the nodes written: every block whose nodes were staged before that is
// then one it counts (or marks) — with Head, a block still being written
// could be neither, and its nodes deleted.
func (c *Chain) settledHead() *types.Block {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.head
}

// GetHash returns the canonical hash of block n (zero if unknown), for
// BLOCKHASH.
func (c *Chain) GetHash(n uint64) types.Hash {
	h, ok := c.db.CanonicalHash(n)
	if !ok {
		return c.fork.Load().upstreamHash(n)
	}
	return h
}

// BlockByNumber returns canonical block n.
func (c *Chain) BlockByNumber(n uint64) (*types.Block, error) {
	h, ok := c.db.CanonicalHash(n)
	if !ok {
		return nil, ErrNotFound
	}
	return c.db.Block(h)
}

// StateAt opens the world state at a root.
func (c *Chain) StateAt(root types.Hash) (*state.StateDB, error) {
	st, err := state.NewWithRemote(c.stateRootOf(root), c.db, c.remote())
	if err == nil {
		st.SetReadCache(c.reads)
	}
	return st, err
}

// InsertBlock validates b completely, executes it on its parent's state and
// stores it. A child of the head becomes the new head; a block on another
// branch becomes the head only by the proof-of-work fork-choice rule. On
// any error nothing is stored.
func (c *Chain) InsertBlock(b *types.Block) (types.Receipts, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.insert(b, senders{})
}

// InsertChain inserts blocks in order as InsertBlock does, recovering the
// senders of later blocks in the background while earlier ones execute and
// are stored. Blocks already stored are skipped; inserted, when not nil, is
// called for each block stored. It returns how many blocks it went
// through: on an error, blocks[n] is the one that failed and everything
// before it is stored.
func (c *Chain) InsertChain(blocks []*types.Block, inserted func(*types.Block)) (n int, err error) {
	r := recoverBlocks(blocks, c.Config.blockSigner)
	defer r.stop()
	off := 0
	for i, b := range blocks {
		// The chain is locked block by block, as InsertBlock does, so
		// readers of the head are not held up for a whole segment.
		c.wmu.Lock()
		_, err := c.insert(b, senders{r: r, off: off})
		c.wmu.Unlock()
		switch {
		case err == nil:
			if inserted != nil {
				inserted(b)
			}
		case !errors.Is(err, ErrKnownBlock):
			return i, err
		}
		off += len(b.Transactions())
	}
	return len(blocks), nil
}

// insert is InsertBlock under c.wmu.
func (c *Chain) insert(b *types.Block, s senders) (types.Receipts, error) {
	if b.ParentHash() != c.head.Hash() {
		if _, ok := c.db.BlockNumber(b.Hash()); ok {
			return nil, ErrKnownBlock
		}
		return c.insertBranch(b, s)
	}
	built, err := c.validate(b, c.head, c.GetHash, s)
	if err != nil {
		return nil, err
	}
	return built.Receipts, c.commit(built)
}

// Validate checks b completely and executes it on the head's state without
// storing anything: a validator votes on the result and, once the block is
// decided, stores it with CommitBuilt (no second execution).
func (c *Chain) Validate(b *types.Block) (*Built, error) {
	return c.validate(b, c.Head(), c.GetHash, senders{})
}

// validate checks b against parent and executes it on the parent's state;
// getHash answers BLOCKHASH along b's branch.
// With a zero s, b's senders are recovered in the background from here on,
// alongside the header and body checks.
func (c *Chain) validate(b *types.Block, parent *types.Block, getHash func(uint64) types.Hash, s senders) (*Built, error) {
	if _, ok := c.db.BlockNumber(b.Hash()); ok {
		return nil, ErrKnownBlock
	}
	if s.r == nil {
		s.r = recoverBlocks([]*types.Block{b}, c.Config.blockSigner)
		defer s.r.stop()
	}
	if b.ParentHash() != parent.Hash() {
		return nil, fmt.Errorf("%w: block %d builds on %s, head is %d (%s)", ErrUnknownParent, b.Number(), b.ParentHash(), parent.Number(), parent.Hash())
	}
	if err := c.Rules().ValidateHeader(parent.HeaderRef(), b.HeaderRef()); err != nil {
		return nil, err
	}
	if err := c.checkTerminal(parent.HeaderRef(), b.HeaderRef()); err != nil {
		return nil, err
	}
	if err := c.Config.ValidateBody(b); err != nil {
		return nil, err
	}
	st, err := state.NewWithRemote(c.stateRootOf(parent.Root()), c.db, c.remote())
	if err != nil {
		return nil, err
	}
	st.Prefetch() // as BuildBlock does
	defer st.StopPrefetch()
	start := time.Now()
	res, err := c.Rules().process(b, st, getHash, s)
	if err != nil {
		return nil, err
	}
	c.observeExec(b, false, start)
	if err := c.Config.ValidateResult(b, res); err != nil {
		return nil, err
	}
	return &Built{Block: b, State: st, Receipts: res.Receipts, Transfers: res.Transfers, Validators: res.Validators}, nil
}

// CommitBuilt stores a block this node built (BuildBlock) or checked
// (Validate) itself: its execution already produced the state, receipts
// and transfers, so it is not executed again.
func (c *Chain) CommitBuilt(built *Built) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if b := built.Block; b.ParentHash() != c.head.Hash() {
		return fmt.Errorf("%w: built on %s, head is %s", ErrUnknownParent, b.ParentHash(), c.head.Hash())
	}
	return c.commit(built)
}

// commit writes the block's state and the block. The state root the
// commit computes must be the header's: a block whose state does not
// match it is refused before anything of it is stored.
func (c *Chain) commit(built *Built) error {
	b, receipts := built.Block, built.Receipts
	start := time.Now()
	if err := c.commitState(b, built.State); err != nil {
		return err
	}
	if built.Validators != nil {
		c.db.stageValidators(b.Hash(), built.Validators)
	}
	if td := c.childTD(b.ParentHash(), &b.HeaderRef().Difficulty); td != nil {
		c.db.stageTD(b.Hash(), td)
	}
	err := c.switchCanonical(&canonSwitch{base: c.head, tip: b, tipReceipts: receipts, tipTransfers: built.Transfers})
	if err != nil {
		return err
	}
	c.setHead(b)
	c.observeCommit(b, start)
	c.notify(b)
	return nil
}

// commitState stages the block's state for writing. The root the commit
// computes must be the header's; on a mismatch nothing is staged.
func (c *Chain) commitState(b *types.Block, st *state.StateDB) error {
	root, err := st.Commit(c.Config.Fork(b.Number(), b.Time()) >= forks.SpuriousDragon)
	if err != nil {
		c.db.Discard()
		return err
	}
	if root != b.Root() {
		c.db.Discard()
		return fmt.Errorf("%w: state root %s, header says %s", ErrBadPostState, root, b.Root())
	}
	c.recordKeys(st)
	return nil
}

// Subscribe returns a channel that receives every new head. The channel is
// buffered; a subscriber that falls behind by more than its buffer misses
// blocks rather than stalling the chain, and can catch up by number.
func (c *Chain) Subscribe(buffer int) (<-chan *types.Block, func()) {
	ch := make(chan *types.Block, buffer)
	c.subMu.Lock()
	c.subs[ch] = struct{}{}
	c.subMu.Unlock()
	return ch, func() {
		c.subMu.Lock()
		if _, ok := c.subs[ch]; ok {
			delete(c.subs, ch)
			close(ch)
		}
		c.subMu.Unlock()
	}
}

func (c *Chain) notify(b *types.Block) {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	for ch := range c.subs {
		select {
		case ch <- b:
		default:
		}
	}
}
