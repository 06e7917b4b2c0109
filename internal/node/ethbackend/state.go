package ethbackend

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// StateAt opens the state after block h.
func (b *Backend) StateAt(h *types.Header) (backend.State, error) {
	st, err := b.view.State(h)
	if err != nil {
		return nil, err
	}
	return stateView{st}, nil
}

// stateView reads a StateDB through the backend's names; being one
// pointer, it fits an interface value without an allocation.
type stateView struct{ st *state.StateDB }

func (v stateView) Balance(a types.Address) *uint256.Int             { return v.st.GetBalance(a) }
func (v stateView) Nonce(a types.Address) uint64                     { return v.st.GetNonce(a) }
func (v stateView) Code(a types.Address) []byte                      { return v.st.GetCode(a) }
func (v stateView) Storage(a types.Address, k types.Hash) types.Hash { return v.st.GetState(a, k) }

// Err implements backend.StateError: a forked state's upstream may fail
// a read.
func (v stateView) Err() error { return v.st.Error() }

// IndexedAccounts implements backend.AccountIndex over the chain's
// account index.
func (b *Backend) IndexedAccounts(bound []byte, reverse bool, n int) ([]types.Address, error) {
	out, err := b.chain.IndexedAccounts(bound, reverse, n)
	if errors.Is(err, chain.ErrNoAccountIndex) || errors.Is(err, chain.ErrForkAccounts) {
		return nil, fmt.Errorf("%w: %v", backend.ErrUnavailable, err)
	}
	return out, err
}
