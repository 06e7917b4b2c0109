package backend

import (
	"errors"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Staking reads the proof-of-stake state the system contracts keep:
// validators, delegations, unbonding, rewards, the supply and the network
// parameters. Height nil reads the head block; a height whose state is no
// longer kept gives ErrStateUnavailable-like errors from the node.
type Staking interface {
	// StakingEnabled reports whether the chain has the system contracts;
	// every other method returns ErrStakingDisabled when it has not.
	StakingEnabled() bool
	StakingValidators(height *uint64) ([]StakingValidator, error)
	// StakingValidator returns ErrValidatorNotFound for an unknown operator.
	StakingValidator(height *uint64, operator types.Address) (*StakingValidator, error)
	DelegatorDelegations(height *uint64, delegator types.Address) ([]StakingDelegation, error)
	ValidatorDelegations(height *uint64, operator types.Address) ([]StakingDelegation, error)
	// UnbondingDelegations lists pending unbonding entries, of one
	// delegator or (nil) all of them.
	UnbondingDelegations(height *uint64, delegator *types.Address) ([]UnbondingEntry, error)
	WithdrawAddress(height *uint64, delegator types.Address) (types.Address, error)
	Supply(height *uint64) (*Supply, error)
	StakingParams(height *uint64) (*StakingParams, error)
}

// Errors of the Staking interface.
var (
	ErrStakingDisabled   = errors.New("the chain has no staking contracts")
	ErrValidatorNotFound = errors.New("validator not found")
)

// StakingValidator is one validator as the state holds it.
type StakingValidator struct {
	Operator, ConsensusAddress types.Address
	ConsensusPubkey            []byte // compressed secp256k1
	NetAddress                 string // host:port
	Moniker, Identity, Website string
	SecurityContact, Details   string
	// Commission rates are 18-decimal fractions (1e18 = 100%).
	CommissionRate, MaxRate, MaxChangeRate *uint256.Int
	CommissionUpdated                      uint64 // Unix seconds
	MinSelfDelegation                      *uint256.Int
	Tokens, Shares, SelfDelegation         *uint256.Int
	Slashed                                *uint256.Int // burned by penalties so far
	Status                                 string       // active, standby, jailed or inactive
	Jailed                                 bool
	JailedUntil                            uint64 // Unix seconds
	Created                                uint64 // Unix seconds
	UnpaidCommission                       *uint256.Int
	Power                                  int64
	// MissedBlocks is how many blocks the validator failed to sign in the
	// current liveness window (missedBlocksWindow blocks) of the block read.
	MissedBlocks uint64
	// StartHeight is the block at whose end the validator last became
	// active (0: at genesis, or never); UnbondingHeight the block at whose
	// end it last stopped being active (0: never), and UnbondingEnd (Unix
	// seconds) that block's time plus restakeCooldown.
	StartHeight, UnbondingHeight, UnbondingEnd uint64
}

// StakingDelegation is one delegator's stake with one validator.
type StakingDelegation struct {
	Delegator, Validator types.Address
	Shares, Amount       *uint256.Int
	Rewards              *uint256.Int // withdrawable now
}

// UnbondingEntry is stake on its way back to its delegator.
type UnbondingEntry struct {
	ID                   uint64 // from 1, in the order entries were started
	Delegator, Validator types.Address
	Amount               *uint256.Int
	CompletionTime       uint64 // Unix seconds
	CreationHeight       uint64
}

// Supply is the coin supply: genesis + minted − burned.
type Supply struct {
	Total, Minted, Burned, CommunityPool *uint256.Int
}

// StakingParams are every network parameter in the state. Durations are
// milliseconds; fractions parts per million.
type StakingParams struct {
	ActiveVersion, LatestVersion, MinVersion string
	CertCycleDuration                        uint64
	MaintenanceFee                           *uint256.Int
	MaintenanceInterval                      uint64
	Penalty                                  *uint256.Int
	LeftNetworkEarlyPenaltyPPM               uint64
	NodeRefutedPenaltyPPM                    uint64
	SyncTimeoutPenaltyPPM                    uint64
	Reward                                   *uint256.Int
	NodeRewardInterval                       uint64
	RequiredStake                            *uint256.Int
	RestakeCooldown                          uint64
	Desired, MaxSyncTime                     uint64
	MissedBlocksWindow, MaxMissedBlocks      uint64
	MinDeposit                               *uint256.Int
	DepositPeriod, VotingPeriod              uint64
	QuorumPPM, ThresholdPPM, VetoPPM         uint64
	// CycleLength and SelectionOffset are the cycle rule in force from the
	// next cycle on (blocks per cycle; the block of each cycle, from 0,
	// that chooses the next set): types.CycleRule.
	CycleLength, SelectionOffset uint64
	Timestamp                    uint64 // ms: last change
}

// Governance reads the governance contract's proposals and votes.
type Governance interface {
	Proposals(height *uint64) ([]Proposal, error)
	// Proposal returns ErrProposalNotFound for an unknown id.
	Proposal(height *uint64, id uint64) (*Proposal, error)
	ProposalVotes(height *uint64, id uint64) ([]ProposalVote, error)
	// ProposalDeposits lists each depositor's total deposit.
	ProposalDeposits(height *uint64, id uint64) ([]ProposalDeposit, error)
	// ProposalTally is the final tally once voting is over, else the
	// votes so far weighted by the stake at height.
	ProposalTally(height *uint64, id uint64) (*Tally, error)
	// UpgradePlan is the scheduled software upgrade; nil when none is.
	UpgradePlan(height *uint64) (*UpgradePlan, error)
	// AppliedPlan is the block at which the upgrade plan of that name was
	// applied; 0 when it never was.
	AppliedPlan(height *uint64, name string) (uint64, error)
}

// ErrProposalNotFound is returned for an unknown proposal id.
var ErrProposalNotFound = errors.New("proposal not found")

// Proposal is a governance proposal. What it changes, when it passes,
// is in Changes (param_change and software_version) or Plan
// (software_upgrade); Param and Value are the raw strings it was
// submitted with.
type Proposal struct {
	ID                     uint64
	Kind                   string // text, param_change, software_version or software_upgrade
	Status                 string // deposit_period, voting_period, passed, rejected, failed or dropped
	Proposer               types.Address
	Title, Description     string
	Param, Value           string
	Changes                []ParamChange
	Plan                   *UpgradePlan
	SubmitTime, DepositEnd uint64 // Unix seconds
	VotingStart, VotingEnd uint64 // Unix seconds; 0 before voting
	TotalDeposit           *uint256.Int
}

// ParamSubspace is the subspace every network parameter is changed in:
// the staking contract keeps them all.
const ParamSubspace = "staking"

// ParamChange is one parameter a proposal sets: Key is the parameter's
// network-account name, Value its new value as the governance contract
// takes it (a decimal integer or a version).
type ParamChange struct {
	Subspace, Key, Value string
}

// UpgradePlan is a software upgrade: from block Height on, nodes must run
// version Name or later; Info says where to get it.
type UpgradePlan struct {
	Name   string
	Height uint64
	Info   string
}

// ProposalVote is one voter's weights, parts per million of its stake.
type ProposalVote struct {
	Voter                        types.Address
	Yes, Abstain, No, NoWithVeto uint64
}

// ProposalDeposit is one depositor's total deposit on a proposal, in wei.
type ProposalDeposit struct {
	Depositor types.Address
	Amount    *uint256.Int
}

// Tally is a proposal's votes by option, in stake (wei).
type Tally struct {
	Yes, Abstain, No, NoWithVeto *uint256.Int
}

// NetworkEvents delivers the validator network's own events as blocks are
// committed: the record of each cycle that closes and each change of a
// validator's state (active, standby, syncing, jailed, inactive).
type NetworkEvents interface {
	// SubscribeNetwork returns a channel of events and a cancel function;
	// a subscriber that falls more than buffer events behind misses some.
	SubscribeNetwork(buffer int) (<-chan NetworkEvent, func())
}

// NetworkEvent is either a closed cycle or a node's state change.
type NetworkEvent struct {
	Cycle *CycleInfo
	Node  *NodeStateChange
}

// NodeStateChange is a validator moving from one state to another at a
// block.
type NodeStateChange struct {
	Node     NodeInfo
	From, To string
	Block    uint64
}
