package query

import (
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The Cosmos modules' views of the chain's staking state, as the handlers
// render them; native.go fills them from the native readers. Amounts are
// in the native coin's base unit (achain = wei); a Dec is a non-negative
// decimal held as its value times 10^18.

// vBondStatus is a validator's place in the set.
type vBondStatus int

const (
	statusUnbonded  vBondStatus = iota + 1 // not in the set, no tokens locked for it
	statusUnbonding                        // left the set; its tokens unlock after the unbonding time
	statusBonded                           // in the active set
)

// vValidator is a validator as staking keeps it.
type vValidator struct {
	Operator          types.Address
	ConsensusPubKey   []byte // compressed secp256k1
	Jailed            bool
	Status            vBondStatus
	Tokens            *uint256.Int // base units bonded to it
	DelegatorShares   *uint256.Int // Dec
	Description       vDescription
	UnbondingHeight   int64
	UnbondingTime     time.Time
	Commission        vCommission
	MinSelfDelegation *uint256.Int
}

// vDescription is what a validator says of itself.
type vDescription struct {
	Moniker, Identity, Website, SecurityContact, Details string
}

// vCommission is a validator's commission rates (Decs) and when
// they last changed.
type vCommission struct {
	Rate, MaxRate, MaxChangeRate *uint256.Int
	UpdateTime                   time.Time
}

// vDelegation is one delegator's stake in one validator.
type vDelegation struct {
	Delegator, Validator types.Address
	Shares               *uint256.Int // Dec
	Balance              *uint256.Int // the shares' worth in base units
}

// vUnbonding is the unbonding stake of one delegator from one validator.
type vUnbonding struct {
	Delegator, Validator types.Address
	Entries              []vUnbondingEntry
}

// vUnbondingEntry is one undelegation in progress.
type vUnbondingEntry struct {
	CreationHeight int64
	CompletionTime time.Time
	InitialBalance *uint256.Int
	Balance        *uint256.Int
	UnbondingID    uint64
}

// vStakingParams are the staking module's parameters.
type vStakingParams struct {
	UnbondingTime     time.Duration
	MaxValidators     uint32
	MaxEntries        uint32
	HistoricalEntries uint32
	MinCommissionRate *uint256.Int // Dec
}

// vReward is a delegator's accrued reward from one validator.
type vReward struct {
	Validator types.Address
	Reward    *uint256.Int // Dec
}

// vDistributionParams are the distribution module's parameters (Decs).
type vDistributionParams struct {
	CommunityTax        *uint256.Int
	BaseProposerReward  *uint256.Int
	BonusProposerReward *uint256.Int
	WithdrawAddrEnabled bool
}

// vProposalStatus is where a proposal is in its life.
type vProposalStatus int

const (
	propDepositPeriod vProposalStatus = iota + 1
	propVotingPeriod
	propPassed
	propRejected
	propFailed
)

// vVoteOption is a voter's choice.
type vVoteOption int

const (
	optYes vVoteOption = iota + 1
	optAbstain
	optNo
	optNoWithVeto
)

// vProposal is one governance proposal (a text proposal).
type vProposal struct {
	ID                 uint64
	Title, Description string
	Proposer           types.Address
	Status             vProposalStatus
	FinalTally         vTally // set once voting has ended
	SubmitTime         time.Time
	DepositEndTime     time.Time
	TotalDeposit       *uint256.Int
	VotingStartTime    time.Time
	VotingEndTime      time.Time
	// What the proposal changes: parameters, or an upgrade plan.
	Changes []backend.ParamChange
	Plan    *backend.UpgradePlan
}

// vTally counts voting power by option.
type vTally struct {
	Yes, Abstain, No, NoWithVeto *uint256.Int
}

// vVote is one voter's (possibly split) vote.
type vVote struct {
	ProposalID uint64
	Voter      types.Address
	Options    []vWeightedVote
}

// vWeightedVote is one option of a vote with its weight (a Dec; the
// weights of a vote add up to 1).
type vWeightedVote struct {
	Option vVoteOption
	Weight *uint256.Int
}

// vDeposit is one depositor's total deposit on a proposal.
type vDeposit struct {
	ProposalID uint64
	Depositor  types.Address
	Amount     *uint256.Int
}

// vGovParams are the governance module's parameters.
type vGovParams struct {
	MinDeposit       *uint256.Int
	MaxDepositPeriod time.Duration
	VotingPeriod     time.Duration
	Quorum           *uint256.Int // Dec
	Threshold        *uint256.Int // Dec
	VetoThreshold    *uint256.Int // Dec
}

// vSigningInfo is a validator's liveness record.
type vSigningInfo struct {
	Address             types.Address // consensus address
	StartHeight         int64
	IndexOffset         int64
	JailedUntil         time.Time
	Tombstoned          bool
	MissedBlocksCounter int64
}

// vSlashingRules are the slashing rules.
type vSlashingRules struct {
	SignedBlocksWindow      int64
	MinSignedPerWindow      *uint256.Int // Dec
	DowntimeJailDuration    time.Duration
	SlashFractionDoubleSign *uint256.Int // Dec
	SlashFractionDowntime   *uint256.Int // Dec
}
