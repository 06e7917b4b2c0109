package backend

import (
	"errors"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The reads below serve the Cosmos-style REST and gRPC queries (the Cosmos*
// names are those views; the native staking state is read through Staking
// and Governance in staking.go): the bank
// supply, the consensus validator set, and the staking, distribution,
// governance and slashing state. Amounts are in the native coin's base
// unit (achain = wei); a Dec is a non-negative decimal held as its value
// times 10^18. Lists are returned whole, sorted as the doc of each method
// says; the query layer pages them.

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

// CosmosStaking reads the proof-of-stake state at the head.
type CosmosStaking interface {
	// StakingValidators lists every validator known to staking (bonded,
	// unbonding and unbonded), sorted by operator address.
	StakingValidators() ([]CosmosStakingValidator, error)
	// StakingValidator returns one validator; ErrNotFound when absent.
	StakingValidator(operator types.Address) (CosmosStakingValidator, error)
	// Delegations lists the delegations of a delegator, sorted by
	// validator address.
	Delegations(delegator types.Address) ([]Delegation, error)
	// ValidatorDelegations lists the delegations to a validator, sorted by
	// delegator address.
	ValidatorDelegations(operator types.Address) ([]Delegation, error)
	// Unbondings lists the unbonding delegations of a delegator, sorted by
	// validator address.
	Unbondings(delegator types.Address) ([]UnbondingDelegation, error)
	StakingParams() (CosmosStakingParams, error)
	// StakingPool is the total of bonded and of not-bonded tokens.
	StakingPool() (bonded, notBonded *uint256.Int, err error)
}

// BondStatus is a validator's place in the set.
type BondStatus int

const (
	StatusUnbonded  BondStatus = iota + 1 // not in the set, no tokens locked for it
	StatusUnbonding                       // left the set; its tokens unlock after the unbonding time
	StatusBonded                          // in the active set
)

// CosmosStakingValidator is a validator as staking keeps it.
type CosmosStakingValidator struct {
	Operator          types.Address
	ConsensusPubKey   []byte // compressed secp256k1
	Jailed            bool
	Status            BondStatus
	Tokens            *uint256.Int // base units bonded to it
	DelegatorShares   *uint256.Int // Dec
	Description       ValidatorDescription
	UnbondingHeight   int64
	UnbondingTime     time.Time
	Commission        ValidatorCommission
	MinSelfDelegation *uint256.Int
}

// ValidatorDescription is what a validator says of itself.
type ValidatorDescription struct {
	Moniker, Identity, Website, SecurityContact, Details string
}

// ValidatorCommission is a validator's commission rates (Decs) and when
// they last changed.
type ValidatorCommission struct {
	Rate, MaxRate, MaxChangeRate *uint256.Int
	UpdateTime                   time.Time
}

// Delegation is one delegator's stake in one validator.
type Delegation struct {
	Delegator, Validator types.Address
	Shares               *uint256.Int // Dec
	Balance              *uint256.Int // the shares' worth in base units
}

// UnbondingDelegation is the unbonding stake of one delegator from one validator.
type UnbondingDelegation struct {
	Delegator, Validator types.Address
	Entries              []CosmosUnbondingEntry
}

// CosmosUnbondingEntry is one undelegation in progress.
type CosmosUnbondingEntry struct {
	CreationHeight int64
	CompletionTime time.Time
	InitialBalance *uint256.Int
	Balance        *uint256.Int
	UnbondingID    uint64
}

// CosmosStakingParams are the staking module's parameters.
type CosmosStakingParams struct {
	UnbondingTime     time.Duration
	MaxValidators     uint32
	MaxEntries        uint32
	HistoricalEntries uint32
	MinCommissionRate *uint256.Int // Dec
}

// Distribution reads the reward distribution state at the head. Every
// amount here is a Dec of the native coin.
type Distribution interface {
	// DelegationRewards are the rewards a delegation has accrued;
	// ErrNotFound when there is no such delegation.
	DelegationRewards(delegator, validator types.Address) (*uint256.Int, error)
	// DelegatorRewards lists the accrued rewards of each delegation of a
	// delegator, sorted by validator address.
	DelegatorRewards(delegator types.Address) ([]ValidatorReward, error)
	// ValidatorCommission is a validator's accumulated, unwithdrawn
	// commission; ErrNotFound for an unknown validator.
	AccumulatedCommission(operator types.Address) (*uint256.Int, error)
	// OutstandingRewards are a validator's rewards not yet withdrawn by it
	// or its delegators; ErrNotFound for an unknown validator.
	OutstandingRewards(operator types.Address) (*uint256.Int, error)
	CommunityPool() (*uint256.Int, error)
	DistributionParams() (DistributionParams, error)
}

// ValidatorReward is a delegator's accrued reward from one validator.
type ValidatorReward struct {
	Validator types.Address
	Reward    *uint256.Int // Dec
}

// DistributionParams are the distribution module's parameters (Decs).
type DistributionParams struct {
	CommunityTax        *uint256.Int
	BaseProposerReward  *uint256.Int
	BonusProposerReward *uint256.Int
	WithdrawAddrEnabled bool
}

// Gov reads the governance state at the head.
type Gov interface {
	// Proposals lists every proposal, sorted by id.
	Proposals() ([]CosmosProposal, error)
	// Proposal returns one proposal; ErrNotFound when absent.
	Proposal(id uint64) (CosmosProposal, error)
	// Votes lists the votes on a proposal, sorted by voter;
	// ErrNotFound for an unknown proposal.
	Votes(id uint64) ([]Vote, error)
	// Deposits lists the deposits on a proposal, sorted by depositor;
	// ErrNotFound for an unknown proposal.
	Deposits(id uint64) ([]Deposit, error)
	// Tally counts a proposal's votes as they stand; ErrNotFound for an
	// unknown proposal.
	Tally(id uint64) (TallyResult, error)
	GovParams() (GovParams, error)
}

// ProposalStatus is where a proposal is in its life.
type ProposalStatus int

const (
	ProposalDepositPeriod ProposalStatus = iota + 1
	ProposalVotingPeriod
	ProposalPassed
	ProposalRejected
	ProposalFailed
)

// VoteOption is a voter's choice.
type VoteOption int

const (
	VoteYes VoteOption = iota + 1
	VoteAbstain
	VoteNo
	VoteNoWithVeto
)

// CosmosProposal is one governance proposal (a text proposal).
type CosmosProposal struct {
	ID                 uint64
	Title, Description string
	Status             ProposalStatus
	FinalTally         TallyResult // set once voting has ended
	SubmitTime         time.Time
	DepositEndTime     time.Time
	TotalDeposit       *uint256.Int
	VotingStartTime    time.Time
	VotingEndTime      time.Time
}

// TallyResult counts voting power by option.
type TallyResult struct {
	Yes, Abstain, No, NoWithVeto *uint256.Int
}

// Vote is one voter's (possibly split) vote.
type Vote struct {
	ProposalID uint64
	Voter      types.Address
	Options    []WeightedVote
}

// WeightedVote is one option of a vote with its weight (a Dec; the
// weights of a vote add up to 1).
type WeightedVote struct {
	Option VoteOption
	Weight *uint256.Int
}

// Deposit is one depositor's total deposit on a proposal.
type Deposit struct {
	ProposalID uint64
	Depositor  types.Address
	Amount     *uint256.Int
}

// GovParams are the governance module's parameters.
type GovParams struct {
	MinDeposit       *uint256.Int
	MaxDepositPeriod time.Duration
	VotingPeriod     time.Duration
	Quorum           *uint256.Int // Dec
	Threshold        *uint256.Int // Dec
	VetoThreshold    *uint256.Int // Dec
}

// Slashing reads validators' liveness records and the slashing rules.
type Slashing interface {
	// SigningInfos lists the liveness record of every validator, sorted
	// by consensus address.
	SigningInfos() ([]SigningInfo, error)
	// SigningInfo returns one record; ErrNotFound when absent.
	SigningInfo(consensus types.Address) (SigningInfo, error)
	SlashingRules() (SlashingRules, error)
}

// SigningInfo is a validator's liveness record.
type SigningInfo struct {
	Address             types.Address // consensus address
	StartHeight         int64
	IndexOffset         int64
	JailedUntil         time.Time
	Tombstoned          bool
	MissedBlocksCounter int64
}

// SlashingRules are the slashing rules.
type SlashingRules struct {
	SignedBlocksWindow      int64
	MinSignedPerWindow      *uint256.Int // Dec
	DowntimeJailDuration    time.Duration
	SlashFractionDoubleSign *uint256.Int // Dec
	SlashFractionDowntime   *uint256.Int // Dec
}
