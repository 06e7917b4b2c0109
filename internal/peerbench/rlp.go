package main

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	gtypes "github.com/ethereum/go-ethereum/core/types"
	grlp "github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
)

// benchChainID is the chain the benchmark transactions are signed for.
const benchChainID = 8118

// mixedInner returns the i-th transaction payload of the benchmark mix:
// every type from legacy to set-code, with varied call data and access
// lists, so that no single field shape dominates.
func mixedInner(i int) types.TxData {
	to := types.Address{byte(i), 0xaa, byte(i >> 8)}
	data := bytes.Repeat([]byte{byte(i), 0, 0xff}, i%70)
	cid := *uint256.NewInt(benchChainID)
	var al types.AccessList
	if i%3 == 0 {
		al = types.AccessList{{Address: to, StorageKeys: []types.Hash{{byte(i)}, {1, byte(i)}}}}
	}
	value := *uint256.NewInt(uint64(i) * 1e15)
	switch i % 5 {
	case 0:
		return &types.LegacyTx{Nonce: uint64(i), GasPrice: *uint256.NewInt(2e9 + uint64(i)), Gas: 21000 + uint64(i)*100, To: &to, Value: value, Data: data}
	case 1:
		return &types.AccessListTx{ChainID: cid, Nonce: uint64(i), GasPrice: *uint256.NewInt(3e9), Gas: 60000, To: &to, Value: value, Data: data, AccessList: al}
	case 2:
		return &types.DynamicFeeTx{ChainID: cid, Nonce: uint64(i), GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(5e10), Gas: 90000, To: &to, Value: value, Data: data, AccessList: al}
	case 3:
		return &types.BlobTx{ChainID: cid, Nonce: uint64(i), GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(5e10), Gas: 90000, To: to, Value: value, Data: data, AccessList: al,
			BlobFeeCap: *uint256.NewInt(1e9), BlobHashes: []types.Hash{{0x01, byte(i)}, {0x01, 2, byte(i)}}}
	default:
		k := crypto.Keccak256([]byte{byte(i), 'a'})
		key, _ := crypto.ToPrivateKey(k[:])
		auth := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: cid, Address: types.Address{0xde, byte(i)}, Nonce: uint64(i)})
		return &types.SetCodeTx{ChainID: cid, Nonce: uint64(i), GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(5e10), Gas: 90000, To: to, Value: value, Data: data, AccessList: al,
			AuthList: []types.SetCodeAuthorization{auth}}
	}
}

func benchKey() *types.Signer {
	s := types.LatestSigner(benchChainID)
	return &s
}

// benchBlock builds the 200-transaction block and its encoding. The geth
// side decodes these very bytes, so both implementations handle identical
// blocks.
func benchBlock() (*types.Block, []byte) {
	k := crypto.Keccak256([]byte("peerbench"))
	key, err := crypto.ToPrivateKey(k[:])
	if err != nil {
		panic(err)
	}
	signer := benchKey()
	txs := make([]*types.Transaction, 200)
	for i := range txs {
		tx, err := types.SignTx(types.NewTx(mixedInner(i)), *signer, key)
		if err != nil {
			panic(err)
		}
		txs[i] = tx
	}
	u64 := func(x uint64) *uint64 { return &x }
	wr, pbr, rh := types.EmptyRootHash, types.Hash{7}, types.EmptyRequestsHash
	h := &types.Header{
		ParentHash: types.Hash{1}, UncleHash: types.EmptyUncleHash, Coinbase: types.Address{2}, Root: types.Hash{3},
		TxHash: types.Hash{4}, ReceiptHash: types.Hash{5}, Number: 1234567, GasLimit: 60_000_000, GasUsed: 12_345_678,
		Time: 1_750_000_000, Extra: []byte("chaind peerbench"), MixDigest: types.Hash{6},
		BaseFee: uint256.NewInt(7e9), WithdrawalsHash: &wr, BlobGasUsed: u64(131072 * 6), ExcessBlobGas: u64(0),
		ParentBeaconRoot: &pbr, RequestsHash: &rh,
	}
	ws := make([]*types.Withdrawal, 16)
	for i := range ws {
		ws[i] = &types.Withdrawal{Index: uint64(i), Validator: uint64(100 + i), Address: types.Address{byte(i)}, Amount: 32e9}
	}
	b := types.NewBlock(h, &types.Body{Transactions: txs, Withdrawals: ws})
	return b, b.EncodeRLP()
}

func init() {
	ours, enc := benchBlock()
	var geth gtypes.Block
	if err := grlp.DecodeBytes(enc, &geth); err != nil {
		panic("peerbench rlp: geth cannot decode our block: " + err.Error())
	}
	if genc, _ := grlp.EncodeToBytes(&geth); !bytes.Equal(genc, enc) {
		panic("peerbench rlp: geth re-encodes our block differently")
	}
	if geth.Hash() != [32]byte(ours.Hash()) {
		panic("peerbench rlp: block hashes differ")
	}

	register(Case{
		Area: "rlp", Name: "encode block (200 mixed txs)",
		Ours: func(b *testing.B) {
			var buf []byte
			for i := 0; i < b.N; i++ {
				buf = ours.AppendRLP(buf[:0])
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := grlp.EncodeToBytes(&geth); err != nil {
					b.Fatal(err)
				}
			}
		},
	}, Case{
		Area: "rlp", Name: "decode block (200 mixed txs)",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := types.DecodeBlock(enc); err != nil {
					b.Fatal(err)
				}
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var blk gtypes.Block
				if err := grlp.DecodeBytes(enc, &blk); err != nil {
					b.Fatal(err)
				}
			}
		},
	})
}
