// Package stakebackend implements the views of package backend that read
// the chain's own state rather than Ethereum's: staking and governance
// (backend.Staking, backend.Governance), the validator network and its
// cycles (backend.Validators and backend.NetworkEvents, for the chain_
// namespace and the explorer), an address's staking roles, and the total
// supply and consensus sets of the Cosmos-style query layer. Its sibling
// ethbackend serves the Ethereum side; the node wires both.
package stakebackend

import (
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Config is what the views read of the node besides its chain.
type Config struct {
	// Validator is the node's validator key; nil on a node that does not
	// validate. On a chain without staking the node reports itself.
	Validator     *secp256k1.PrivateKey
	Host          string // the node's listen host
	P2PListenAddr string // its p2p host:port; empty: it accepts no p2p connections
	BlockTime     time.Duration
	ClientVersion string
	// Syncing returns the node IDs (validator addresses for validators)
	// of the nodes this node knows to be catching up: itself and its
	// peers. nil: none known.
	Syncing func() map[types.Address]bool
	// Announced returns the full and RPC nodes that announced themselves
	// on the p2p network, by ID; nil: none.
	Announced func() []backend.NodeInfo
	// Validators returns the validator sets of the node's consensus
	// engine, nil on a node that runs none.
	Validators func() consensus.ValidatorSource
}

// Backend serves the views over one chain.
type Backend struct {
	Chain *chain.Chain
	view  *chainview.View // every state is read through it
	cfg   Config
}

// New returns the views of the chain under v.
func New(v *chainview.View, cfg Config) *Backend {
	return &Backend{Chain: v.Chain(), view: v, cfg: cfg}
}

// stateOf opens the state after block h as every interface of the node
// sees it (with a development node's edits); the caller releases it.
func (n *Backend) stateOf(h *types.Header) (*state.StateDB, error) { return n.view.State(h) }

// Network is the validator network's view: chain_getNodeList,
// chain_getCycleInfo, the node and cycle feeds, the explorer's validators.
type Network interface {
	backend.Validators
	backend.NetworkEvents
}

// Network returns the validator network's view.
func (n *Backend) Network() Network { return &network{n: n} }

// Validators returns the validator sets of the node's consensus engine,
// nil on a node that runs none.
func (n *Backend) Validators() consensus.ValidatorSource {
	if n.cfg.Validators == nil {
		return nil
	}
	return n.cfg.Validators()
}

// syncingNodes returns the node IDs of the nodes known to catch up.
func (n *Backend) syncingNodes() map[types.Address]bool {
	if n.cfg.Syncing == nil {
		return nil
	}
	return n.cfg.Syncing()
}
