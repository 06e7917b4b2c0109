package eth

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// blockObj is a Block of a response: a canonical block, or an ommer, of
// which only the header is known.
type blockObj struct {
	s   *Service
	hdr *types.Header
	blk *types.Block // nil for an ommer

	once     sync.Once
	receipts types.Receipts
	rcErr    error
}

// block returns the request's one object for blk.
func (s *Service) block(ctx context.Context, blk *types.Block) *blockObj {
	c := cacheOf(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	h := blk.Hash()
	if o := c.blocks[h]; o != nil {
		return o
	}
	o := &blockObj{s: s, hdr: blk.HeaderRef(), blk: blk}
	c.blocks[h] = o
	return o
}

// blockByHash returns the request's object for the block with hash h,
// reading the block only when the request has not yet.
func (s *Service) blockByHash(ctx context.Context, h types.Hash) (*blockObj, error) {
	c := cacheOf(ctx)
	c.mu.Lock()
	o := c.blocks[h]
	c.mu.Unlock()
	if o != nil {
		return o, nil
	}
	blk, err := s.b.BlockByHash(h)
	if err != nil {
		return nil, err
	}
	return s.block(ctx, blk), nil
}

// Receipts are read once per block and request, whichever fields ask.
func (b *blockObj) getReceipts() (types.Receipts, error) {
	if b.blk == nil {
		return nil, errors.New("receipts of an ommer are not known")
	}
	b.once.Do(func() { b.receipts, b.rcErr = b.s.b.Receipts(b.blk) })
	return b.receipts, b.rcErr
}

func (b *blockObj) tx(i int) *txObj {
	return &txObj{s: b.s, tx: b.blk.Transactions()[i], block: b, index: i}
}

// txObj is a Transaction: in a block, or pending in the pool.
type txObj struct {
	s     *Service
	tx    *types.Transaction
	block *blockObj // nil while pending
	index int

	fromOnce sync.Once
	from     types.Address
	fromErr  error
}

func (t *txObj) sender() (types.Address, error) {
	t.fromOnce.Do(func() {
		if t.block == nil {
			t.from, t.fromErr = types.Sender(t.tx)
			return
		}
		// The block's receipts carry every sender, recovered once and
		// kept for recent blocks by the backend: reading them beats a
		// signature recovery per transaction and request.
		if r, err := t.receipt(); err == nil && r != nil {
			t.from = r.From
			return
		}
		h := t.block.hdr
		t.from, t.fromErr = t.s.b.Signer(h.Number, h.Time).Sender(t.tx)
	})
	return t.from, t.fromErr
}

// receipt returns the transaction's receipt, nil while pending.
func (t *txObj) receipt() (*types.Receipt, error) {
	if t.block == nil {
		return nil, nil
	}
	rs, err := t.block.getReceipts()
	if err != nil {
		return nil, err
	}
	if t.index >= len(rs) {
		return nil, fmt.Errorf("receipt %d of block %d is missing", t.index, t.block.hdr.Number)
	}
	return rs[t.index], nil
}

// logObj is a Log with the transaction that emitted it.
type logObj struct {
	s   *Service
	log *types.Log
	tx  *txObj
}

// accountObj is an Account on the state after a block.
type accountObj struct {
	s    *Service
	addr types.Address
	hdr  *types.Header
}

func (a *accountObj) state(ctx context.Context) (backend.State, error) {
	c := cacheOf(ctx)
	h := a.hdr.Hash()
	c.mu.Lock()
	st := c.states[h]
	c.mu.Unlock()
	if st != nil {
		return st, nil
	}
	st, err := a.s.b.StateAt(a.hdr)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", a.hdr.Number, err)
	}
	c.mu.Lock()
	c.states[h] = st
	c.mu.Unlock()
	return st, nil
}

// account returns addr at the block named by a Long argument, or at def.
func (s *Service) account(addr types.Address, blockArg any, def *types.Header) (*accountObj, error) {
	if n, ok := blockArg.(uint64); ok {
		blk, err := s.blockByNumber(n)
		if err != nil {
			return nil, err
		}
		def = blk.HeaderRef()
	}
	return &accountObj{s: s, addr: addr, hdr: def}, nil
}

// pendingObj is the Pending object: the pool on top of the head.
type pendingObj struct{ s *Service }

func (p *pendingObj) transactions() []*txObj {
	pending, _ := p.s.b.PoolContent()
	senders := make([]types.Address, 0, len(pending))
	for a := range pending {
		senders = append(senders, a)
	}
	sort.Slice(senders, func(i, j int) bool { return string(senders[i][:]) < string(senders[j][:]) })
	var out []*txObj
	for _, a := range senders {
		for _, tx := range pending[a] {
			o := &txObj{s: p.s, tx: tx}
			o.fromOnce.Do(func() { o.from = a })
			out = append(out, o)
		}
	}
	return out
}

// blockByNumber reads a canonical block, with the error a query shows
// when there is none.
func (s *Service) blockByNumber(n uint64) (*types.Block, error) {
	if n > s.b.Head().Number() {
		return nil, fmt.Errorf("block number %d was not found (head is %d)", n, s.b.Head().Number())
	}
	blk, err := s.b.BlockByNumber(n)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, fmt.Errorf("block number %d was not found", n)
	}
	return blk, err
}
