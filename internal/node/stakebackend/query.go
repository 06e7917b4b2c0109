package stakebackend

import (
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// Supply is the total supply of a chain without staking contracts, summed
// over its state (see supplyCounter).
func (n *Backend) Supply() backend.CosmosSupply { return &supplyCounter{n: n} }

// ConsensusSets reads the consensus engine's validator sets.
func (n *Backend) ConsensusSets() backend.ConsensusSet { return consensusSets{n} }

// supplyCounter sums the balances of every account in a state, once per
// state root: the chain keeps no running total, and a sum over the state
// is exact whatever minted or burnt coins.
type supplyCounter struct {
	n     *Backend
	mu    sync.Mutex
	root  types.Hash
	total *uint256.Int
}

func (s *supplyCounter) TotalSupply(h *types.Header) (*uint256.Int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	root := s.n.view.StateRoot(h) // with a development node's edits
	if s.total != nil && s.root == root {
		return s.total.Clone(), nil
	}
	t, err := trie.NewSecure(root, s.n.Chain.DB())
	if err != nil {
		return nil, err
	}
	total := new(uint256.Int)
	it := t.NewIterator(nil)
	for it.Next() {
		acc, err := state.DecodeAccount(it.Value())
		if err != nil {
			return nil, err
		}
		if _, overflow := total.AddOverflow(total, &acc.Balance); overflow {
			return nil, errors.New("total supply overflows 256 bits")
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	s.root, s.total = root, total
	return total.Clone(), nil
}

// consensusSets reads the BFT engine's validator sets. The engine does
// not expose proposer priorities or public keys, so those are left out.
type consensusSets struct{ n *Backend }

func (c consensusSets) ConsensusValidators(height uint64) ([]backend.ConsensusValidator, error) {
	src := c.n.Validators()
	if src == nil {
		return nil, fmt.Errorf("%w: this node runs no consensus engine", backend.ErrUnavailable)
	}
	set, err := src.ValidatorSet(height)
	if err != nil {
		return nil, fmt.Errorf("%w: validator set of height %s: %v", backend.ErrNotFound, strconv.FormatUint(height, 10), err)
	}
	out := make([]backend.ConsensusValidator, set.Len())
	for i := range out {
		v := set.Validator(i)
		out[i] = backend.ConsensusValidator{Address: v.Address, VotingPower: v.Power}
	}
	return out, nil
}
