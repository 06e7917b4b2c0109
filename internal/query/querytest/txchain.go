package querytest

import (
	"errors"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// TxChain is a Fake whose blocks hold signed transactions, with what the
// transaction queries read: receipts, the transaction index and the
// per-address history (the tx service, CometBFT's tx, tx_search and
// block_results).
type TxChain struct {
	*Fake
	receipts map[types.Hash]types.Receipts
	lookup   map[types.Hash]backend.TxRef
	refs     []backend.TxRef
	byAddr   map[types.Address][]backend.TxRef
	counts   []uint64 // transactions through block n
}

// NewTxChain is New(validators) with no transactions yet.
func NewTxChain(validators int) *TxChain {
	c := &TxChain{Fake: New(validators), receipts: map[types.Hash]types.Receipts{}, lookup: map[types.Hash]backend.TxRef{},
		byAddr: map[types.Address][]backend.TxRef{}}
	c.counts = make([]uint64, len(c.blocks))
	return c
}

// Backend is the Fake's with the transaction readers.
func (c *TxChain) Backend() query.Backend {
	b := c.Fake.Backend()
	b.Receipts, b.TxIndex, b.History = c, c, c
	return b
}

// Key is a fixed sender key, so signatures and hashes are the same on
// every run (golden files hold them).
func Key(i byte) *secp256k1.PrivateKey {
	b := make([]byte, 32)
	b[31] = i
	return secp256k1.PrivKeyFromBytes(b)
}

// Sender is Key(i)'s address.
func Sender(i byte) types.Address { return types.Address(crypto.PrivkeyToAddress(Key(i))) }

// SignedTx is a transfer of value from sender i with nonce n.
func SignedTx(i byte, n uint64, to types.Address, value uint64) *types.Transaction {
	return types.MustSignNewTx(Key(i), types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: n,
		GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2_000_000_000), Gas: 21_000, To: &to, Value: *uint256.NewInt(value)})
}

// AddTxBlock adds a block of txs; the transaction at index fail (if any)
// failed, and every transaction logged one event.
func (c *TxChain) AddTxBlock(fail int, txs ...*types.Transaction) *types.Block {
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
	return b
}

func (c *TxChain) Receipts(b *types.Block) (types.Receipts, error) { return c.receipts[b.Hash()], nil }

func (c *TxChain) TxLookup(h types.Hash) (types.Hash, int, bool) {
	r, ok := c.lookup[h]
	if !ok {
		return types.Hash{}, 0, false
	}
	return c.CanonicalHash(r.Block), r.Index, true
}

func (c *TxChain) TxCountThrough(n uint64) (uint64, error) {
	if n >= uint64(len(c.counts)) {
		return 0, backend.ErrNotFound
	}
	return c.counts[n], nil
}

func (c *TxChain) TxAt(i uint64) (backend.TxRef, error) {
	if i >= uint64(len(c.refs)) {
		return backend.TxRef{}, backend.ErrNotFound
	}
	return c.refs[i], nil
}

func (c *TxChain) AddressTxCount(a types.Address) (uint64, error) {
	return uint64(len(c.byAddr[a])), nil
}

func (c *TxChain) AddressTxAt(a types.Address, i uint64) (backend.TxRef, error) {
	if i >= uint64(len(c.byAddr[a])) {
		return backend.TxRef{}, backend.ErrNotFound
	}
	return c.byAddr[a][i], nil
}

func (c *TxChain) AddressTxCountBefore(types.Address, uint64) (uint64, error) {
	return 0, errors.New("not used")
}

func (c *TxChain) HistoryFrom() (uint64, error) { return 0, nil }
