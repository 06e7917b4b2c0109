// Package ethbackend implements the node's backend (the interfaces of
// package backend) over the chain, the transaction pool, the EVM, the
// state and the trie: it is where every interface's reads and
// executions meet the execution layer.
package ethbackend

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Options are the node's limits on what its interfaces may ask for.
type Options struct {
	// GasCap bounds the gas of eth_call, eth_estimateGas,
	// eth_createAccessList and of all calls of one eth_simulateV1 request
	// together (default 50M).
	GasCap uint64
	// StateRetention is how many recent blocks keep a readable state; 0
	// for an archive node, which keeps every one.
	StateRetention uint64
	// CallTimeout bounds the time of one such request (default 5 s), and
	// of one debug_trace* request.
	CallTimeout time.Duration
	// TraceBytes bounds the size of one trace answer (default 25 MiB, the
	// JSON-RPC response cap): a tracer that would record more stops the
	// execution and fails with a TraceSizeError.
	TraceBytes int
	// Network reports peers and sync progress; nil: a node on its own.
	Network backend.Network
	// AllowUnprotected accepts transactions without EIP-155 replay
	// protection from clients (never on a public node); peers' gossip
	// and imported blocks are not the clients' way in and are not asked.
	AllowUnprotected bool
}

// Backend serves every interface package from the chain and the pool.
type Backend struct {
	view  *chainview.View // the chain as every backend reads it
	chain *chain.Chain
	pool  *txpool.Pool
	opts  Options

	rcMu     sync.Mutex
	rcCache  map[types.Hash]types.Receipts // derived receipts of recent blocks
	rcRecent []types.Hash

	sent    func(context.Context, *types.Transaction) error // see SetSentHook
	console atomic.Pointer[func(lines []string)]            // see SetConsole

	forkSigner atomic.Pointer[forkSigner]
}

const receiptCacheBlocks = 256

// New returns the backend of a chain, read through its view, and its pool.
func New(v *chainview.View, p *txpool.Pool, opts Options) *Backend {
	if opts.GasCap == 0 {
		opts.GasCap = 50_000_000
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 5 * time.Second
	}
	if opts.TraceBytes <= 0 {
		opts.TraceBytes = DefaultTraceBytes
	}
	return &Backend{view: v, chain: v.Chain(), pool: p, opts: opts, rcCache: map[types.Hash]types.Receipts{}}
}

// The interfaces Backend serves.
var (
	_ backend.Blocks        = (*Backend)(nil)
	_ backend.Receipts      = (*Backend)(nil)
	_ backend.TxIndex       = (*Backend)(nil)
	_ backend.Blooms        = (*Backend)(nil)
	_ backend.HeadFeed      = (*Backend)(nil)
	_ backend.ChainConfig   = (*Backend)(nil)
	_ backend.StateReader   = (*Backend)(nil)
	_ backend.Proofs        = (*Backend)(nil)
	_ backend.TxPool        = (*Backend)(nil)
	_ backend.PendingFeed   = (*Backend)(nil)
	_ backend.Network       = (*Backend)(nil)
	_ backend.Executor      = (*Backend)(nil)
	_ backend.Tracer        = (*Backend)(nil)
	_ backend.BlockBuilder  = (*Backend)(nil)
	_ backend.PendingBlocks = (*Backend)(nil)
	_ backend.Difficulty    = (*Backend)(nil)
)

// Head is the canonical head. While a fork's head is its genesis made of
// the upstream's fork block, that block has the upstream's body; if the
// upstream cannot be read then, the head is the stored header alone.
func (b *Backend) Head() *types.Block {
	h := b.chain.Head()
	if up, _, err := b.forkBlock(h); err == nil && up != nil {
		return up
	}
	return h
}

func (b *Backend) CanonicalHash(n uint64) types.Hash { return b.chain.GetHash(n) }

func (b *Backend) BlockByNumber(n uint64) (*types.Block, error) {
	blk, err := notFound(b.chain.BlockByNumber(n))
	if err != nil {
		return nil, err
	}
	return b.whole(blk)
}

// FirstBlock implements backend.FirstBlocker: a fork's chain starts at its
// genesis, above block 0.
func (b *Backend) FirstBlock() uint64 { return b.chain.Genesis().Number() }

func (b *Backend) BlockByHash(h types.Hash) (*types.Block, error) {
	blk, err := notFound(b.chain.DB().Block(h))
	if err != nil {
		return nil, err
	}
	return b.whole(blk)
}

// notFound turns the store's not-found error into the backend's.
func notFound(blk *types.Block, err error) (*types.Block, error) {
	if errors.Is(err, chain.ErrNotFound) {
		return nil, backend.ErrNotFound
	}
	return blk, err
}

// TxLookup finds a canonical transaction: in the store, or in a fork's
// genesis that is the upstream's fork block, whose transactions the store
// does not index.
func (b *Backend) TxLookup(h types.Hash) (types.Hash, int, bool) {
	if bh, i, ok := b.chain.DB().TxLookup(h); ok {
		return bh, i, ok
	}
	g := b.chain.Genesis()
	if g == nil || b.chain.GetHash(g.Number()) != g.Hash() {
		return types.Hash{}, 0, false
	}
	up, _, err := b.forkBlock(g)
	if err != nil || up == nil {
		return types.Hash{}, 0, false
	}
	for i, tx := range up.Transactions() {
		if tx.Hash() == h {
			return up.Hash(), i, true
		}
	}
	return types.Hash{}, 0, false
}

// SubscribeHeads delivers the chain's new heads.
func (b *Backend) SubscribeHeads(buffer int) (<-chan *types.Block, func()) {
	return b.chain.Subscribe(buffer)
}

// Receipts derives the full receipts of a block, caching recent blocks:
// explorers and log filters ask for the same few blocks over and over.
func (b *Backend) Receipts(blk *types.Block) (types.Receipts, error) {
	h := blk.Hash()
	b.rcMu.Lock()
	if rs, ok := b.rcCache[h]; ok {
		b.rcMu.Unlock()
		return rs, nil
	}
	b.rcMu.Unlock()
	up, rs, err := b.forkBlock(blk)
	if err != nil {
		return nil, err
	}
	if up != nil {
		// The upstream's receipts: a copy, as deriving fills them in.
		blk, rs = up, cloneReceipts(rs)
	} else {
		rs, err = b.chain.DB().Receipts(h)
		if errors.Is(err, chain.ErrNotFound) {
			return types.Receipts{}, nil
		}
		if err != nil {
			return nil, err
		}
	}
	if err := b.deriveReceipts(blk, rs); err != nil {
		return nil, err
	}
	b.rcMu.Lock()
	b.rcCache[h] = rs
	b.rcRecent = append(b.rcRecent, h)
	if len(b.rcRecent) > receiptCacheBlocks {
		delete(b.rcCache, b.rcRecent[0])
		b.rcRecent = b.rcRecent[1:]
	}
	b.rcMu.Unlock()
	return rs, nil
}

// deriveReceipts fills in the fields of blk's receipts that follow from
// the block (hashes, indexes, prices, addresses).
func (b *Backend) deriveReceipts(blk *types.Block, rs types.Receipts) error {
	hd := blk.HeaderRef()
	cfg := b.chain.Config
	var blobPrice *uint256.Int
	if hd.ExcessBlobGas != nil {
		blobPrice = cfg.Blob(hd.Number, hd.Time).BaseFee(*hd.ExcessBlobGas)
	}
	return types.DeriveReceiptFields(rs, blk.Hash(), hd.Number, hd.Time, hd.BaseFee, blobPrice, blk.Transactions(), b.Signer(hd.Number, hd.Time))
}

// admit refuses what no client may submit.
func (b *Backend) admit(tx *types.Transaction) error {
	if !tx.Protected() && !b.opts.AllowUnprotected {
		return backend.ErrUnprotectedTx
	}
	return nil
}

// SendTransaction adds a client's transaction to the pool.
func (b *Backend) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if err := b.admit(tx); err != nil {
		return err
	}
	if err := b.pool.Add(tx); err != nil {
		return err
	}
	return b.afterSend(ctx, tx)
}

// SendPooledTransaction adds a transaction with its blob sidecar.
func (b *Backend) SendPooledTransaction(ctx context.Context, tx *types.Transaction, sc *types.BlobSidecar) error {
	if err := b.admit(tx); err != nil {
		return err
	}
	if err := b.pool.AddPooled(tx, sc); err != nil {
		return err
	}
	return b.afterSend(ctx, tx)
}

func (b *Backend) PoolTransaction(h types.Hash) (*types.Transaction, types.Address, bool) {
	return b.pool.Get(h)
}

func (b *Backend) PendingNonce(addr types.Address) (uint64, error) { return b.pool.Nonce(addr) }

func (b *Backend) PoolContent() (pending, queued map[types.Address][]*types.Transaction) {
	return b.pool.Content()
}

// Syncing reports the p2p network's sync progress; a node on its own
// produces or imports its blocks itself and is never behind a peer.
func (b *Backend) Syncing() (backend.SyncProgress, bool) {
	if b.opts.Network == nil {
		return backend.SyncProgress{}, false
	}
	return b.opts.Network.Syncing()
}

// BloomScanner reads block blooms from the chain store's bloom table.
func (b *Backend) BloomScanner() func(uint64) (types.Bloom, bool, error) {
	return b.chain.DB().NewBloomReader().Bloom
}

// SubscribePending delivers transactions as they enter the pool.
func (b *Backend) SubscribePending(buffer int) (<-chan *types.Transaction, func()) {
	return b.pool.Subscribe(buffer)
}

// PeerCount is the number of connected p2p peers.
func (b *Backend) PeerCount() int {
	if b.opts.Network == nil {
		return 0
	}
	return b.opts.Network.PeerCount()
}
