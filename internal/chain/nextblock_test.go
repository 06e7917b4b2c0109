package chain

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestNextBlockParams: the one derivation of the next block agrees with
// the header a builder makes from the same attributes, puts a time not
// after the parent's one second after it, and lets a chosen base fee
// replace the parent's.
func TestNextBlockParams(t *testing.T) {
	_, c, _ := execFixture(t)
	parent := c.Head().Header()
	cases := []struct {
		name     string
		a        Attributes
		wantTime uint64
		wantFee  *uint256.Int
	}{
		{"earliest", Attributes{}, parent.Time + 1, c.Config.CalcBaseFee(parent)},
		{"time at the parent's", Attributes{Time: parent.Time}, parent.Time + 1, c.Config.CalcBaseFee(parent)},
		{"later", Attributes{Time: parent.Time + 9, Coinbase: types.Address{3}, Random: types.Hash{4}, GasLimit: 1}, parent.Time + 9, c.Config.CalcBaseFee(parent)},
		{"chosen base fee", Attributes{Time: parent.Time + 2, BaseFee: uint256.NewInt(7)}, parent.Time + 2, uint256.NewInt(7)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nb := c.Config.NextBlockParams(parent, &tc.a)
			if nb.Number != parent.Number+1 || nb.Time != tc.wantTime || !nb.BaseFee.Eq(tc.wantFee) {
				t.Fatalf("next block %d at %d fee %s, want %d at %d fee %s", nb.Number, nb.Time, nb.BaseFee, parent.Number+1, tc.wantTime, tc.wantFee)
			}
			if nb.Fork != c.Config.Fork(nb.Number, nb.Time) || nb.Signer.Fork() != c.Config.Signer(nb.Number, nb.Time).Fork() {
				t.Fatalf("fork %v, signer %v", nb.Fork, nb.Signer.Fork())
			}
			a := tc.a
			a.Time = nb.Time
			h, err := c.Config.NextHeader(parent, a)
			if err != nil {
				t.Fatal(err)
			}
			if h.Time != nb.Time || h.GasLimit != nb.GasLimit || h.Coinbase != nb.Coinbase || h.MixDigest != nb.Random || !h.BaseFee.Eq(nb.BaseFee) ||
				h.ExcessBlobGas == nil || nb.ExcessBlobGas == nil || *h.ExcessBlobGas != *nb.ExcessBlobGas {
				t.Fatalf("header %+v disagrees with %+v", h, nb)
			}
			if want := nb.Blob.BaseFee(*nb.ExcessBlobGas); !nb.BlobBaseFee.Eq(want) {
				t.Fatalf("blob base fee %s, want %s", nb.BlobBaseFee, want)
			}
		})
	}
}
