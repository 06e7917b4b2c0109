package node

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/chaind/chaind/grpcsrv"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/lcd"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// cosmosListeners declares the Cosmos-style REST and gRPC query ports,
// both served from one query layer.
func (n *Node) cosmosListeners(addr func(int) string) []front.Listener {
	rest, grpc := n.cfg.RESTPort, n.cfg.GRPCPort
	if (rest == nil || *rest < 0) && (grpc == nil || *grpc < 0) {
		return nil
	}
	q := query.New(n.queryBackend())
	var ls []front.Listener
	if rest != nil && *rest >= 0 {
		// The REST answers are public, read-only chain data fetched without
		// credentials, so any web page (a staking dashboard) may read them.
		ls = append(ls, lcd.Listener(addr(*rest), lcd.New(q), front.Options{CORSOrigins: []string{"*"}}))
	}
	if grpc != nil && *grpc >= 0 {
		ls = append(ls, grpcsrv.Listener(addr(*grpc), grpcsrv.New(q), front.Options{}))
	}
	return ls
}

// queryBackend is what the query layer reads: the chain through the
// node's backend, the supply from the state, the consensus sets from the
// BFT engine, and the staking modules' state.
func (n *Node) queryBackend() query.Backend {
	st := &stakingState{}
	b := query.Backend{
		Blocks: n.backend, State: n.backend, Config: n.backend, Network: n.backend,
		Supply: &supplyCounter{n: n}, Consensus: consensusSets{n},
		Staking: st, Distribution: st, Gov: st, Slashing: st,
		Moniker: "chaind", Version: n.cfg.ClientVersion, GoVersion: runtime.Version(),
	}
	if v := n.cfg.Validator; v != nil {
		id := crypto.Keccak256(crypto.PublicKey(v).SerializeCompressed())
		b.NodeID = fmt.Sprintf("%x", id[:20])
	}
	return b
}

// supplyCounter sums the balances of every account in a state, once per
// state root: the chain keeps no running total, and a sum over the state
// is exact whatever minted or burnt coins.
type supplyCounter struct {
	n     *Node
	mu    sync.Mutex
	root  types.Hash
	total *uint256.Int
}

func (s *supplyCounter) TotalSupply(h *types.Header) (*uint256.Int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.total != nil && s.root == h.Root {
		return s.total.Clone(), nil
	}
	t, err := trie.NewSecure(h.Root, s.n.Chain.DB())
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
	s.root, s.total = h.Root, total
	return total.Clone(), nil
}

// consensusSets reads the BFT engine's validator sets. The engine does
// not expose proposer priorities or public keys, so those are left out.
type consensusSets struct{ n *Node }

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

// stakingState reads the staking, distribution, governance and slashing
// state of the chain. The chain does not yet keep that state: there are
// no validators, delegations or proposals in it, so lists are empty,
// lookups find nothing, the pools hold nothing, and the modules'
// parameters, which no genesis sets yet, are unavailable.
type stakingState struct{}

var errNoStakingParams = fmt.Errorf("%w: the chain keeps no staking modules' parameters", backend.ErrUnavailable)

func (stakingState) StakingValidators() ([]backend.CosmosStakingValidator, error) { return nil, nil }
func (stakingState) StakingValidator(types.Address) (backend.CosmosStakingValidator, error) {
	return backend.CosmosStakingValidator{}, backend.ErrNotFound
}
func (stakingState) Delegations(types.Address) ([]backend.Delegation, error) { return nil, nil }
func (stakingState) ValidatorDelegations(types.Address) ([]backend.Delegation, error) {
	return nil, nil
}
func (stakingState) Unbondings(types.Address) ([]backend.UnbondingDelegation, error) {
	return nil, nil
}
func (stakingState) StakingParams() (backend.CosmosStakingParams, error) {
	return backend.CosmosStakingParams{}, errNoStakingParams
}
func (stakingState) StakingPool() (*uint256.Int, *uint256.Int, error) {
	return new(uint256.Int), new(uint256.Int), nil
}
func (stakingState) DelegationRewards(types.Address, types.Address) (*uint256.Int, error) {
	return nil, backend.ErrNotFound
}
func (stakingState) DelegatorRewards(types.Address) ([]backend.ValidatorReward, error) {
	return nil, nil
}
func (stakingState) AccumulatedCommission(types.Address) (*uint256.Int, error) {
	return nil, backend.ErrNotFound
}
func (stakingState) OutstandingRewards(types.Address) (*uint256.Int, error) {
	return nil, backend.ErrNotFound
}
func (stakingState) CommunityPool() (*uint256.Int, error) { return new(uint256.Int), nil }
func (stakingState) DistributionParams() (backend.DistributionParams, error) {
	return backend.DistributionParams{}, errNoStakingParams
}
func (stakingState) Proposals() ([]backend.CosmosProposal, error) { return nil, nil }
func (stakingState) Proposal(uint64) (backend.CosmosProposal, error) {
	return backend.CosmosProposal{}, backend.ErrNotFound
}
func (stakingState) Votes(uint64) ([]backend.Vote, error)       { return nil, backend.ErrNotFound }
func (stakingState) Deposits(uint64) ([]backend.Deposit, error) { return nil, backend.ErrNotFound }
func (stakingState) Tally(uint64) (backend.TallyResult, error) {
	return backend.TallyResult{}, backend.ErrNotFound
}
func (stakingState) GovParams() (backend.GovParams, error) {
	return backend.GovParams{}, errNoStakingParams
}
func (stakingState) SigningInfos() ([]backend.SigningInfo, error) { return nil, nil }
func (stakingState) SigningInfo(types.Address) (backend.SigningInfo, error) {
	return backend.SigningInfo{}, backend.ErrNotFound
}
func (stakingState) SlashingRules() (backend.SlashingRules, error) {
	return backend.SlashingRules{}, errNoStakingParams
}
