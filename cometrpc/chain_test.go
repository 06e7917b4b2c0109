package cometrpc

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
)

// chain is querytest's fake chain with transactions (querytest.TxChain)
// and what else the CometBFT methods read: a pool and a head feed.
type chain struct {
	*querytest.TxChain
	pending map[types.Address][]*types.Transaction

	mu   sync.Mutex
	subs []chan *types.Block
}

func newChain() *chain {
	return &chain{TxChain: querytest.NewTxChain(3), pending: map[types.Address][]*types.Transaction{}}
}

// The fixed keys, senders and transfers of querytest: signatures and
// hashes are the same on every run (the golden files hold them).
var (
	sender   = querytest.Sender
	signedTx = querytest.SignedTx
)

// addBlock adds a block of txs (querytest.TxChain.AddTxBlock) and
// announces it to the head subscribers.
func (c *chain) addBlock(fail int, txs ...*types.Transaction) *types.Block {
	b := c.AddTxBlock(fail, txs...)
	c.mu.Lock()
	for _, s := range c.subs {
		s <- b
	}
	c.mu.Unlock()
	return b
}

func (c *chain) SendTransaction(context.Context, *types.Transaction) error {
	return errors.New("read-only")
}

func (c *chain) PoolTransaction(types.Hash) (*types.Transaction, types.Address, bool) {
	return nil, types.Address{}, false
}

func (c *chain) PendingNonce(types.Address) (uint64, error) { return 0, nil }

func (c *chain) PoolContent() (pending, queued map[types.Address][]*types.Transaction) {
	return c.pending, nil
}

func (c *chain) SubscribeHeads(buffer int) (<-chan *types.Block, func()) {
	ch := make(chan *types.Block, buffer)
	c.mu.Lock()
	c.subs = append(c.subs, ch)
	c.mu.Unlock()
	return ch, func() {}
}

// Peers makes the fake a backend.PeerList.
func (c *chain) Peers() []backend.PeerInfo {
	return []backend.PeerInfo{{ID: []byte{0xab, 0xcd}, RemoteAddr: "10.0.0.2:30303", ListenAddr: "10.0.0.2:30303"}}
}

// fixture is a chain of five blocks: blocks 3 and 4 hold transfers of
// senders 1 and 2 (the second transfer of block 3 failed), and sender 3
// has a transaction pending.
func fixture() *chain {
	c := newChain()
	c.addBlock(1, signedTx(1, 0, querytest.Addr(2), 5), signedTx(2, 0, querytest.Addr(1), 7))
	c.addBlock(-1, signedTx(1, 1, querytest.Addr(2), 9))
	// Block 4 carries evidence that validator 0x101 precommitted two
	// blocks at height 3.
	vote := func(id byte) backend.EvidenceVote {
		return backend.EvidenceVote{Type: 2, Height: 3, BlockHash: types.Hash{id}, Validator: querytest.Addr(0x101), Signature: bytes.Repeat([]byte{id}, 65)}
	}
	c.EvidenceAt = map[uint64][]backend.DoubleSignEvidence{4: {{A: vote(1), B: vote(2), Encoded: []byte("evidence")}}}
	c.pending[sender(3)] = []*types.Transaction{signedTx(3, 0, querytest.Addr(1), 1)}
	return c
}

func serveChain(t *testing.T, c *chain) (string, *Server) {
	t.Helper()
	qb := c.Backend()
	qb.Receipts, qb.TxIndex, qb.History = c, c, c
	s := New(query.New(qb), Backend{Blocks: qb.Blocks, Consensus: qb.Consensus, Network: c, Validator: querytest.Addr(0x100),
		Pool: c, Heads: c,
		Genesis: func() ([]byte, error) { return []byte(`{"config":{"chainId":8118},"alloc":{}}`), nil },
		Params:  Params{BlockMaxBytes: 4 << 20, EvidenceMaxAgeBlocks: 100, EvidenceMaxBytes: 64 << 10, BlockTime: 2e9}})
	srv, err := front.New(front.Config{}).Listen(Listener("127.0.0.1:0", s, front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return "http://" + srv.Addr(), s
}
