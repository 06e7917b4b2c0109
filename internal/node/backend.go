package node

import (
	"context"
	"errors"
	"sync"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// backend serves the RPC interfaces from the chain and the pool.
type backend struct {
	chain *chain.Chain
	pool  *txpool.Pool

	rcMu     sync.Mutex
	rcCache  map[types.Hash]types.Receipts // derived receipts of recent blocks
	rcRecent []types.Hash
}

const receiptCacheBlocks = 256

func newBackend(c *chain.Chain, p *txpool.Pool) *backend {
	return &backend{chain: c, pool: p, rcCache: map[types.Hash]types.Receipts{}}
}

func (b *backend) Config() *chain.Config { return b.chain.Config }
func (b *backend) Head() *types.Block    { return b.chain.Head() }
func (b *backend) GetHash(n uint64) types.Hash {
	return b.chain.GetHash(n)
}
func (b *backend) TrieReader() trie.Reader { return b.chain.DB() }

func (b *backend) BlockByNumber(n uint64) (*types.Block, error) { return b.chain.BlockByNumber(n) }
func (b *backend) BlockByHash(h types.Hash) (*types.Block, error) {
	return b.chain.DB().Block(h)
}

func (b *backend) TxLookup(h types.Hash) (types.Hash, int, bool) { return b.chain.DB().TxLookup(h) }

func (b *backend) StateAt(root types.Hash) (*state.StateDB, error) { return b.chain.StateAt(root) }

// Receipts derives the full receipts of a block, caching recent blocks:
// explorers and log filters ask for the same few blocks over and over.
func (b *backend) Receipts(blk *types.Block) (types.Receipts, error) {
	h := blk.Hash()
	b.rcMu.Lock()
	if rs, ok := b.rcCache[h]; ok {
		b.rcMu.Unlock()
		return rs, nil
	}
	b.rcMu.Unlock()
	rs, err := b.chain.DB().Receipts(h)
	if errors.Is(err, chain.ErrNotFound) {
		return types.Receipts{}, nil
	}
	if err != nil {
		return nil, err
	}
	hd := blk.HeaderRef()
	cfg := b.chain.Config
	var blobPrice *uint256.Int
	if hd.ExcessBlobGas != nil {
		blobPrice = cfg.Blob(hd.Number, hd.Time).BaseFee(*hd.ExcessBlobGas)
	}
	if err := types.DeriveReceiptFields(rs, h, hd.Number, hd.Time, hd.BaseFee, blobPrice, blk.Transactions(), cfg.Signer(hd.Number, hd.Time)); err != nil {
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

func (b *backend) SendTransaction(_ context.Context, tx *types.Transaction) error {
	return b.pool.Add(tx)
}

func (b *backend) PoolTransaction(h types.Hash) (*types.Transaction, types.Address, bool) {
	return b.pool.Get(h)
}

func (b *backend) PendingNonce(addr types.Address) uint64 { return b.pool.Nonce(addr) }

// PoolContent serves the txpool_ namespace.
func (b *backend) PoolContent() (pending, queued map[types.Address][]*types.Transaction) {
	return b.pool.Content()
}

// Syncing: a node that produces or imports blocks itself is never behind
// a peer; the p2p layer will report real sync progress.
func (b *backend) Syncing() (any, bool) { return nil, false }

// BloomScanner reads block blooms from the chain store's bloom table.
func (b *backend) BloomScanner() func(uint64) (types.Bloom, bool, error) {
	return b.chain.DB().NewBloomReader().Bloom
}

// PeerCount is zero until the p2p layer connects nodes.
func (b *backend) PeerCount() int { return 0 }

// poolHead describes the next block to the pool.
func poolHead(c *chain.Chain) (txpool.Head, error) {
	head := c.Head()
	h := head.HeaderRef()
	cfg := c.Config
	next, t := h.Number+1, h.Time+1
	st, err := c.StateAt(h.Root)
	if err != nil {
		return txpool.Head{}, err
	}
	ph := txpool.Head{
		Signer:   cfg.Signer(next, t),
		Fork:     cfg.Fork(next, t),
		GasLimit: h.GasLimit,
		State:    st,
	}
	if cfg.IsLondon(next) {
		ph.BaseFee = cfg.CalcBaseFee(h)
	}
	if ph.Fork >= forks.Cancun {
		bc := cfg.Blob(next, t)
		ph.MaxBlobs = bc.Max
		if h.ExcessBlobGas != nil {
			ph.BlobBaseFee = bc.BaseFee(bc.ExcessBlobGas(ph.Fork, *h.ExcessBlobGas, *h.BlobGasUsed, h.BaseFee))
		} else {
			ph.BlobBaseFee = bc.BaseFee(0)
		}
	}
	return ph, nil
}
