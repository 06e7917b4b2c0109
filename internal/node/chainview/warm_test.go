package chainview

import (
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The accounts warmed for a pooled transaction are its sender, while the
// pool holds it, and its recipient, when it has one.
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
		{"left the pool", call, gone, []types.Address{to}},
		{"creation that left the pool", create, gone, nil},
	} {
		prev := []types.Address{{9}}
		got := appendAccounts(c.get, prev, c.tx)
		if want := append([]types.Address{{9}}, c.want...); !slices.Equal(got, want) {
			t.Errorf("%s: %x, want %x", c.name, got, want)
		}
	}
}
