package backend

import (
	"errors"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The reads below serve the Cosmos-style REST and gRPC queries beside the
// staking state (read through Staking and Governance in staking.go): the
// bank supply of a chain without staking contracts, and the consensus
// validator sets the BFT engine keeps. Amounts are in the native coin's
// base unit (achain = wei).

// ErrUnavailable is returned by a read whose state the node does not keep
// (a module not running on this chain).
var ErrUnavailable = errors.New("state not available")

// CosmosSupply reads the native coin's total supply.
type CosmosSupply interface {
	// TotalSupply is the sum of every balance in the state after block h.
	TotalSupply(h *types.Header) (*uint256.Int, error)
}

// ConsensusSet reads the BFT validator sets.
type ConsensusSet interface {
	// ConsensusValidators is the validator set that decides block height,
	// sorted by address; ErrNotFound for a height without a known set.
	ConsensusValidators(height uint64) ([]ConsensusValidator, error)
}

// ConsensusValidator is one member of a BFT validator set.
type ConsensusValidator struct {
	Address          types.Address
	PubKey           []byte // compressed secp256k1; nil when the set does not record it
	VotingPower      int64
	ProposerPriority int64
}
