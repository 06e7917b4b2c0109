package cometrpc

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// chain is querytest's fake chain with what the transaction methods read:
// receipts, the transaction and history indexes, a pool and a head feed.
type chain struct {
	*querytest.Fake
	receipts map[types.Hash]types.Receipts
	lookup   map[types.Hash]backend.TxRef
	refs     []backend.TxRef
	byAddr   map[types.Address][]backend.TxRef
	counts   []uint64 // transactions through block n
	pending  map[types.Address][]*types.Transaction

	mu   sync.Mutex
	subs []chan *types.Block
}

func newChain() *chain {
	c := &chain{Fake: querytest.New(3), receipts: map[types.Hash]types.Receipts{}, lookup: map[types.Hash]backend.TxRef{},
		byAddr: map[types.Address][]backend.TxRef{}, counts: []uint64{0, 0, 0}, pending: map[types.Address][]*types.Transaction{}}
	return c
}

// key is a fixed sender key, so signatures and hashes are the same on
// every run (the golden files hold them).
func key(i byte) *secp256k1.PrivateKey {
	b := make([]byte, 32)
	b[31] = i
	return secp256k1.PrivKeyFromBytes(b)
}

func sender(i byte) types.Address { return types.Address(crypto.PrivkeyToAddress(key(i))) }

// signedTx is a transfer of value from sender i with nonce n.
func signedTx(i byte, n uint64, to types.Address, value uint64) *types.Transaction {
	return types.MustSignNewTx(key(i), types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: n,
		GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2_000_000_000), Gas: 21_000, To: &to, Value: *uint256.NewInt(value)})
}

// addBlock adds a block of txs; the transaction at index fail (if any)
// failed, and every transaction logged one event.
func (c *chain) addBlock(fail int, txs ...*types.Transaction) *types.Block {
	b := c.AddBlockWith(txs...)
	var rs types.Receipts
	for i, tx := range txs {
		from, err := types.Sender(tx)
		if err != nil {
			panic(err)
		}
		r := &types.Receipt{Type: tx.Type(), Status: types.ReceiptStatusSuccessful, GasUsed: 21_000, TxHash: tx.Hash(),
			EffectiveGasPrice: uint256.NewInt(1_000_000_001), From: from, To: tx.To(), BlockHash: b.Hash(), BlockNumber: b.Number(), TransactionIndex: uint(i)}
		if i == fail {
			r.Status = types.ReceiptStatusFailed
		}
		r.Logs = []*types.Log{{Address: *tx.To(), Topics: []types.Hash{{0xdd}}, Data: []byte{1}, BlockNumber: b.Number(),
			BlockHash: b.Hash(), TxHash: tx.Hash(), TxIndex: uint(i), Index: uint(i)}}
		rs = append(rs, r)
		ref := backend.TxRef{Block: b.Number(), Index: i, Hash: tx.Hash()}
		c.lookup[tx.Hash()] = ref
		c.refs = append(c.refs, ref)
		c.byAddr[from] = append(c.byAddr[from], ref)
		c.byAddr[*tx.To()] = append(c.byAddr[*tx.To()], ref)
	}
	c.receipts[b.Hash()] = rs
	c.counts = append(c.counts, uint64(len(c.refs)))
	c.mu.Lock()
	for _, s := range c.subs {
		s <- b
	}
	c.mu.Unlock()
	return b
}

func (c *chain) Receipts(b *types.Block) (types.Receipts, error) { return c.receipts[b.Hash()], nil }

func (c *chain) TxLookup(h types.Hash) (types.Hash, int, bool) {
	r, ok := c.lookup[h]
	if !ok {
		return types.Hash{}, 0, false
	}
	return c.CanonicalHash(r.Block), r.Index, true
}

func (c *chain) TxCountThrough(n uint64) (uint64, error) {
	if n >= uint64(len(c.counts)) {
		return 0, backend.ErrNotFound
	}
	return c.counts[n], nil
}

func (c *chain) TxAt(i uint64) (backend.TxRef, error) {
	if i >= uint64(len(c.refs)) {
		return backend.TxRef{}, backend.ErrNotFound
	}
	return c.refs[i], nil
}

func (c *chain) AddressTxCount(a types.Address) (uint64, error) { return uint64(len(c.byAddr[a])), nil }

func (c *chain) AddressTxAt(a types.Address, i uint64) (backend.TxRef, error) {
	if i >= uint64(len(c.byAddr[a])) {
		return backend.TxRef{}, backend.ErrNotFound
	}
	return c.byAddr[a][i], nil
}

func (c *chain) AddressTxCountBefore(types.Address, uint64) (uint64, error) {
	return 0, errors.New("not used")
}

func (c *chain) HistoryFrom() (uint64, error) { return 0, nil }

func (c *chain) SendTransaction(context.Context, *types.Transaction) error {
	return errors.New("read-only")
}

func (c *chain) PoolTransaction(types.Hash) (*types.Transaction, types.Address, bool) {
	return nil, types.Address{}, false
}

func (c *chain) PendingNonce(types.Address) uint64 { return 0 }

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
