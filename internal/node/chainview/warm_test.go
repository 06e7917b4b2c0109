package chainview

import (
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The accounts warmed for a pooled transaction are its sender and its
// recipient, when it has one, while the pool holds it; none once it left.
func TestAppendAccounts(t *testing.T) {
	from, to := types.Address{1}, types.Address{2}
	call := types.NewTx(&types.LegacyTx{Nonce: 1, To: &to, Value: *uint256.NewInt(1), Gas: 21_000, GasPrice: *uint256.NewInt(1)})
	create := types.NewTx(&types.LegacyTx{Nonce: 2, Gas: 60_000, GasPrice: *uint256.NewInt(1)})
	pooled := func(types.Hash) (*types.Transaction, types.Address, bool) { return nil, from, true }
	gone := func(types.Hash) (*types.Transaction, types.Address, bool) { return nil, types.Address{}, false }
	for _, c := range []struct {
		name string
		tx   *types.Transaction
		get  func(types.Hash) (*types.Transaction, types.Address, bool)
		want []types.Address
	}{
		{"transfer", call, pooled, []types.Address{from, to}},
		{"contract creation", create, pooled, []types.Address{from}},
		{"left the pool", call, gone, nil},
		{"creation that left the pool", create, gone, nil},
	} {
		prev := []types.Address{{9}}
		got := appendAccounts(c.get, prev, c.tx)
		if want := append([]types.Address{{9}}, c.want...); !slices.Equal(got, want) {
			t.Errorf("%s: %x, want %x", c.name, got, want)
		}
	}
}

// Repeated accounts are warmed once, in the order they first came.
func TestDedupe(t *testing.T) {
	a, b, c := types.Address{1}, types.Address{2}, types.Address{3}
	seen := map[types.Address]struct{}{c: {}} // scratch left from a last batch
	for _, tc := range []struct{ in, want []types.Address }{
		{nil, nil},
		{[]types.Address{a, b, a, a, c, b}, []types.Address{a, b, c}},
		{[]types.Address{c, c}, []types.Address{c}},
	} {
		if got := dedupe(slices.Clone(tc.in), seen); !slices.Equal(got, tc.want) {
			t.Errorf("dedupe(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
}
