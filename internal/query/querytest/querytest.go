// Package querytest is an in-memory backend for tests of the query layer
// and of the REST and gRPC interfaces over it: a short chain, balances,
// validators, delegations and proposals, all made from a seed so golden
// files stay stable.
package querytest

import (
	"slices"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Fake implements the backend reads the queries use.
type Fake struct {
	blocks     []*types.Block
	Balances   map[types.Address]*uint256.Int
	Nonces     map[types.Address]uint64
	Validators []backend.CosmosStakingValidator
	Dels       []backend.Delegation
	Props      []backend.CosmosProposal
	PropVotes  map[uint64][]backend.Vote
	PropDeps   map[uint64][]backend.Deposit
}

// Addr is a deterministic test address.
func Addr(i int) types.Address {
	var a types.Address
	a[0] = 0xaa
	a[18] = byte(i >> 8)
	a[19] = byte(i)
	return a
}

// Base is the time of block 0 and of every record's times.
var Base = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Ether is 10^18 base units.
func Ether(n uint64) *uint256.Int {
	return new(uint256.Int).Mul(uint256.NewInt(n), uint256.NewInt(1_000_000_000_000_000_000))
}

// New returns a fake with three blocks, two funded accounts, the given
// number of validators (each with a self-delegation from Addr(1000+i)
// and one delegation from Addr(1)) and two proposals.
func New(validators int) *Fake {
	f := &Fake{Balances: map[types.Address]*uint256.Int{}, Nonces: map[types.Address]uint64{},
		PropVotes: map[uint64][]backend.Vote{}, PropDeps: map[uint64][]backend.Deposit{}}
	var parent types.Hash
	for n := uint64(0); n < 3; n++ {
		h := &types.Header{Number: n, Time: uint64(Base.Unix()) + 2*n, ParentHash: parent, Coinbase: Addr(7), GasLimit: 30_000_000}
		h.Root[0], h.TxHash[0], h.ReceiptHash[0] = byte(n+1), 0x56, 0x78
		b := types.NewBlockWithHeader(h)
		f.blocks = append(f.blocks, b)
		parent = b.Hash()
	}
	f.Balances[Addr(1)] = Ether(10_000)
	f.Nonces[Addr(1)] = 3
	f.Balances[Addr(2)] = uint256.NewInt(5)
	for i := range validators {
		op := Addr(0x100 + i)
		status := backend.StatusBonded
		if i%5 == 4 {
			status = backend.StatusUnbonded
		}
		f.Validators = append(f.Validators, backend.CosmosStakingValidator{
			Operator: op, ConsensusPubKey: append([]byte{2}, op[:]...), Status: status,
			Tokens: Ether(uint64(1000 + i)), DelegatorShares: Ether(uint64(1000 + i)),
			Description:       backend.ValidatorDescription{Moniker: "validator"},
			UnbondingTime:     time.Unix(0, 0),
			Commission:        backend.ValidatorCommission{Rate: uint256.NewInt(100_000_000_000_000_000), MaxRate: uint256.NewInt(200_000_000_000_000_000), MaxChangeRate: uint256.NewInt(10_000_000_000_000_000), UpdateTime: Base},
			MinSelfDelegation: uint256.NewInt(1),
		})
		f.Dels = append(f.Dels,
			backend.Delegation{Delegator: Addr(1), Validator: op, Shares: Ether(1), Balance: Ether(1)},
			backend.Delegation{Delegator: Addr(0x1000 + i), Validator: op, Shares: Ether(999), Balance: Ether(999)})
	}
	for id := uint64(1); id <= 2; id++ {
		p := backend.CosmosProposal{ID: id, Title: "proposal", Description: "text", Status: backend.ProposalVotingPeriod,
			FinalTally: backend.TallyResult{Yes: new(uint256.Int), No: new(uint256.Int), Abstain: new(uint256.Int), NoWithVeto: new(uint256.Int)},
			SubmitTime: Base, DepositEndTime: Base.Add(48 * time.Hour), TotalDeposit: Ether(10),
			VotingStartTime: Base.Add(time.Hour), VotingEndTime: Base.Add(72 * time.Hour)}
		if id == 2 {
			p.Status = backend.ProposalPassed
		}
		f.Props = append(f.Props, p)
		f.PropDeps[id] = []backend.Deposit{{ProposalID: id, Depositor: Addr(2), Amount: Ether(10)}}
	}
	f.PropVotes[1] = []backend.Vote{
		{ProposalID: 1, Voter: Addr(1), Options: []backend.WeightedVote{{Option: backend.VoteYes, Weight: Ether(1)}}},
		{ProposalID: 1, Voter: Addr(2), Options: []backend.WeightedVote{
			{Option: backend.VoteYes, Weight: uint256.NewInt(600_000_000_000_000_000)},
			{Option: backend.VoteNo, Weight: uint256.NewInt(400_000_000_000_000_000)}}},
	}
	return f
}

// Backend returns a query.Backend over f.
func (f *Fake) Backend() query.Backend {
	return query.Backend{Blocks: f, State: f, Config: chainConfig{}, Network: f, Supply: f, Consensus: f,
		Staking: f, Distribution: f, Gov: f, Slashing: f,
		NodeID: "0123abcd", ListenAddr: "127.0.0.1:26656", Moniker: "test", Version: "chaind/v0.0.0-test", GoVersion: "go1.26"}
}

func (f *Fake) Head() *types.Block { return f.blocks[len(f.blocks)-1] }
func (f *Fake) BlockByNumber(n uint64) (*types.Block, error) {
	if n >= uint64(len(f.blocks)) {
		return nil, backend.ErrNotFound
	}
	return f.blocks[n], nil
}
func (f *Fake) BlockByHash(h types.Hash) (*types.Block, error) {
	for _, b := range f.blocks {
		if b.Hash() == h {
			return b, nil
		}
	}
	return nil, backend.ErrNotFound
}
func (f *Fake) CanonicalHash(n uint64) types.Hash {
	if b, err := f.BlockByNumber(n); err == nil {
		return b.Hash()
	}
	return types.Hash{}
}

func (f *Fake) StateAt(*types.Header) (backend.State, error) { return f, nil }
func (f *Fake) Balance(a types.Address) *uint256.Int {
	if b, ok := f.Balances[a]; ok {
		return b
	}
	return new(uint256.Int)
}
func (f *Fake) Nonce(a types.Address) uint64                 { return f.Nonces[a] }
func (f *Fake) Code(types.Address) []byte                    { return nil }
func (f *Fake) Storage(types.Address, types.Hash) types.Hash { return types.Hash{} }
func (f *Fake) PeerCount() int                               { return 0 }
func (f *Fake) Syncing() (backend.SyncProgress, bool)        { return backend.SyncProgress{}, false }
func (f *Fake) TotalSupply(*types.Header) (*uint256.Int, error) {
	s := new(uint256.Int)
	for _, b := range f.Balances {
		s.Add(s, b)
	}
	return s, nil
}

func (f *Fake) ConsensusValidators(height uint64) ([]backend.ConsensusValidator, error) {
	if height >= uint64(len(f.blocks)) {
		return nil, backend.ErrNotFound
	}
	var out []backend.ConsensusValidator
	for _, v := range f.Validators {
		if v.Status == backend.StatusBonded {
			out = append(out, backend.ConsensusValidator{Address: v.Operator, VotingPower: int64(v.Tokens.Uint64() / 1e9)})
		}
	}
	return out, nil
}

func (f *Fake) StakingValidators() ([]backend.CosmosStakingValidator, error) {
	return f.Validators, nil
}
func (f *Fake) StakingValidator(op types.Address) (backend.CosmosStakingValidator, error) {
	for _, v := range f.Validators {
		if v.Operator == op {
			return v, nil
		}
	}
	return backend.CosmosStakingValidator{}, backend.ErrNotFound
}
func (f *Fake) Delegations(del types.Address) ([]backend.Delegation, error) {
	var out []backend.Delegation
	for _, d := range f.Dels {
		if d.Delegator == del {
			out = append(out, d)
		}
	}
	return out, nil
}
func (f *Fake) ValidatorDelegations(op types.Address) ([]backend.Delegation, error) {
	var out []backend.Delegation
	for _, d := range f.Dels {
		if d.Validator == op {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b backend.Delegation) int { return slices.Compare(a.Delegator[:], b.Delegator[:]) })
	return out, nil
}
func (f *Fake) Unbondings(types.Address) ([]backend.UnbondingDelegation, error) { return nil, nil }
func (f *Fake) StakingParams() (backend.CosmosStakingParams, error) {
	return backend.CosmosStakingParams{UnbondingTime: 21 * 24 * time.Hour, MaxValidators: 100, MaxEntries: 7,
		HistoricalEntries: 10000, MinCommissionRate: new(uint256.Int)}, nil
}
func (f *Fake) StakingPool() (*uint256.Int, *uint256.Int, error) {
	b, nb := new(uint256.Int), new(uint256.Int)
	for _, v := range f.Validators {
		if v.Status == backend.StatusBonded {
			b.Add(b, v.Tokens)
		} else {
			nb.Add(nb, v.Tokens)
		}
	}
	return b, nb, nil
}

func (f *Fake) DelegationRewards(del, op types.Address) (*uint256.Int, error) {
	for _, d := range f.Dels {
		if d.Delegator == del && d.Validator == op {
			return uint256.NewInt(1_500_000_000_000_000_000), nil
		}
	}
	return nil, backend.ErrNotFound
}
func (f *Fake) DelegatorRewards(del types.Address) ([]backend.ValidatorReward, error) {
	ds, _ := f.Delegations(del)
	var out []backend.ValidatorReward
	for _, d := range ds {
		out = append(out, backend.ValidatorReward{Validator: d.Validator, Reward: uint256.NewInt(1_500_000_000_000_000_000)})
	}
	return out, nil
}
func (f *Fake) AccumulatedCommission(op types.Address) (*uint256.Int, error) {
	if _, err := f.StakingValidator(op); err != nil {
		return nil, err
	}
	return uint256.NewInt(250_000_000_000_000_000), nil
}
func (f *Fake) OutstandingRewards(op types.Address) (*uint256.Int, error) {
	if _, err := f.StakingValidator(op); err != nil {
		return nil, err
	}
	return uint256.NewInt(3_000_000_000_000_000_000), nil
}
func (f *Fake) CommunityPool() (*uint256.Int, error) { return new(uint256.Int), nil }
func (f *Fake) DistributionParams() (backend.DistributionParams, error) {
	return backend.DistributionParams{CommunityTax: uint256.NewInt(20_000_000_000_000_000), BaseProposerReward: new(uint256.Int),
		BonusProposerReward: new(uint256.Int), WithdrawAddrEnabled: true}, nil
}

func (f *Fake) Proposals() ([]backend.CosmosProposal, error) { return f.Props, nil }
func (f *Fake) Proposal(id uint64) (backend.CosmosProposal, error) {
	for _, p := range f.Props {
		if p.ID == id {
			return p, nil
		}
	}
	return backend.CosmosProposal{}, backend.ErrNotFound
}
func (f *Fake) Votes(id uint64) ([]backend.Vote, error) {
	if _, err := f.Proposal(id); err != nil {
		return nil, err
	}
	return f.PropVotes[id], nil
}
func (f *Fake) Deposits(id uint64) ([]backend.Deposit, error) {
	if _, err := f.Proposal(id); err != nil {
		return nil, err
	}
	return f.PropDeps[id], nil
}
func (f *Fake) Tally(id uint64) (backend.TallyResult, error) {
	p, err := f.Proposal(id)
	return p.FinalTally, err
}
func (f *Fake) GovParams() (backend.GovParams, error) {
	return backend.GovParams{MinDeposit: Ether(10), MaxDepositPeriod: 48 * time.Hour, VotingPeriod: 72 * time.Hour,
		Quorum: uint256.NewInt(334_000_000_000_000_000), Threshold: uint256.NewInt(500_000_000_000_000_000),
		VetoThreshold: uint256.NewInt(334_000_000_000_000_000)}, nil
}

func (f *Fake) SigningInfos() ([]backend.SigningInfo, error) {
	var out []backend.SigningInfo
	for _, v := range f.Validators {
		out = append(out, backend.SigningInfo{Address: v.Operator, JailedUntil: time.Unix(0, 0)})
	}
	return out, nil
}
func (f *Fake) SigningInfo(a types.Address) (backend.SigningInfo, error) {
	for _, v := range f.Validators {
		if v.Operator == a {
			return backend.SigningInfo{Address: a, JailedUntil: time.Unix(0, 0)}, nil
		}
	}
	return backend.SigningInfo{}, backend.ErrNotFound
}
func (f *Fake) SlashingRules() (backend.SlashingRules, error) {
	return backend.SlashingRules{SignedBlocksWindow: 100, MinSignedPerWindow: uint256.NewInt(500_000_000_000_000_000),
		DowntimeJailDuration: 10 * time.Minute, SlashFractionDoubleSign: uint256.NewInt(50_000_000_000_000_000),
		SlashFractionDowntime: uint256.NewInt(10_000_000_000_000_000)}, nil
}

// chainConfig answers only the chain ID; the queries ask nothing else.
type chainConfig struct{ backend.ChainConfig }

func (chainConfig) ChainID() uint64 { return 8118 }

// AddBlock extends the chain by one empty block, moving the head.
func (f *Fake) AddBlock() {
	parent := f.Head()
	h := &types.Header{Number: parent.Number() + 1, Time: parent.Time() + 2, ParentHash: parent.Hash(), Coinbase: Addr(7), GasLimit: 30_000_000}
	f.blocks = append(f.blocks, types.NewBlockWithHeader(h))
}
