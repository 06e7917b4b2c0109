package fork

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The fork block's header is kept only when the fields the upstream
// reports hash to the hash it reports: then the fork can continue on the
// block itself.
func TestForkBlockHeader(t *testing.T) {
	u64 := func(v uint64) *uint64 { return &v }
	wr, br, rh := types.Hash{0xee}, types.Hash{0xbb}, types.Hash{0xcc}
	h := &types.Header{
		ParentHash: types.Hash{1}, UncleHash: types.EmptyUncleHash, Coinbase: types.Address{2}, Root: types.Hash{3},
		TxHash: types.Hash{4}, ReceiptHash: types.Hash{5}, Bloom: types.Bloom{6: 6}, Number: 9, GasLimit: 30_000_000,
		GasUsed: 21_000, Time: 1_700_000_000, Extra: []byte("x"), MixDigest: types.Hash{7}, BaseFee: uint256.NewInt(7),
		WithdrawalsHash: &wr, BlobGasUsed: u64(131072), ExcessBlobGas: u64(0), ParentBeaconRoot: &br, RequestsHash: &rh,
	}
	pre := &types.Header{ParentHash: types.Hash{1}, UncleHash: types.EmptyUncleHash, Root: types.Hash{3},
		TxHash: types.Hash{4}, ReceiptHash: types.Hash{5}, Difficulty: *uint256.NewInt(131072), Number: 9,
		GasLimit: 5000, Time: 1_500_000_000, Nonce: types.EncodeNonce(42)}
	tests := []struct {
		name string
		h    *types.Header
		edit func(string) string
		keep bool
	}{
		{"Prague header", h, nil, true},
		{"proof-of-work header", pre, nil, true},
		{"a field that does not hash to the hash", h, func(s string) string { return strings.Replace(s, `"gasUsed":"0x5208"`, `"gasUsed":"0x5209"`, 1) }, false},
		{"a field the upstream leaves out", h, func(s string) string { return strings.Replace(s, `"requestsHash"`, `"requestsHashX"`, 1) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := string(types.HeaderJSON(tt.h))
			if tt.edit != nil {
				if enc2 := tt.edit(enc); enc2 != enc {
					enc = enc2
				} else {
					t.Fatal("the edit changed nothing")
				}
			}
			var rh rpcHeader
			if err := json.Unmarshal([]byte(enc), &rh); err != nil {
				t.Fatal(err)
			}
			b := rh.block()
			if b.Hash != tt.h.Hash() || b.Number != tt.h.Number || b.StateRoot != tt.h.Root {
				t.Fatalf("block %+v", b)
			}
			if got := b.Header != nil; got != tt.keep {
				t.Fatalf("header kept: %v, want %v", got, tt.keep)
			}
			if tt.keep && string(b.Header.EncodeRLP()) != string(tt.h.EncodeRLP()) {
				t.Fatal("the kept header differs from the upstream's")
			}
		})
	}
}
