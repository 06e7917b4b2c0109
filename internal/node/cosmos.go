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
		listener := grpcsrv.Listener
		if l, ok := grpcsrv.Servers[n.cfg.GRPCServer]; ok {
			listener = l
		}
		ls = append(ls, listener(addr(*grpc), grpcsrv.New(q), front.Options{}))
	}
	return ls
}

// queryBackend is what the query layer reads: the chain through the
// node's backend, the consensus sets from the BFT engine, and the staking,
// distribution, governance and slashing views and the supply from the
// staking contracts' state. A chain without those contracts has no such
// modules (their queries answer Unavailable) and its supply is summed
// over the state.
func (n *Node) queryBackend() query.Backend {
	b := query.Backend{
		Blocks: n.backend, State: n.backend, Config: n.backend, Network: n.backend,
		Supply: &supplyCounter{n: n}, Consensus: consensusSets{n},
		Staking: n.Staking(), Governance: n.Governance(),
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
