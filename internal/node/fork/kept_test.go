package fork

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func keptSample() *keptBlock {
	to := types.Address{0x22}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: *uint256.NewInt(5), Nonce: 3, To: &to, Gas: 21000})
	hdr := &types.Header{Number: 7, GasLimit: 30_000_000, Time: 1_700_000_000}
	blk := types.NewBlock(hdr, &types.Body{Transactions: []*types.Transaction{tx}})
	rs := types.Receipts{{Type: types.DynamicFeeTxType, Status: 1, CumulativeGasUsed: 21000,
		Logs: []*types.Log{{Address: to, Topics: []types.Hash{{1}}, Data: []byte{2}}}}}
	return &keptBlock{hash: blk.Hash(), blk: blk, rs: rs, chainID: 777}
}

// The kept fork block reads back as it was written.
func TestKeptContentsRoundTrip(t *testing.T) {
	k := keptSample()
	enc := encodeContents(k)
	got, err := decodeContents(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got.blk.Hash() != k.hash || got.chainID != k.chainID || len(got.rs) != 1 ||
		!bytes.Equal(types.AppendReceiptsRLP(nil, got.rs), types.AppendReceiptsRLP(nil, k.rs)) {
		t.Fatalf("kept contents changed: %+v", got)
	}
	for _, bad := range [][]byte{nil, enc[:len(enc)-1], append(append([]byte(nil), enc...), 0)} {
		if _, err := decodeContents(bad); err == nil {
			t.Errorf("decodeContents accepted %x", bad)
		}
	}
}

// FuzzDecodeContents: a damaged record is an error, never a panic.
func FuzzDecodeContents(f *testing.F) {
	f.Add(encodeContents(keptSample()))
	f.Add([]byte{0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, err := decodeContents(b); err == nil {
			// What decodes encodes again and decodes to the same block.
			again, err := decodeContents(encodeContents(k))
			if err != nil || again.blk.Hash() != k.blk.Hash() || again.chainID != k.chainID || len(again.rs) != len(k.rs) {
				t.Fatalf("re-encoded contents do not decode alike: %v", err)
			}
		}
	})
}
