// Package querytest is an in-memory backend for tests of the query layer
// and of the REST and gRPC interfaces over it: a short chain, balances,
// validators, delegations and proposals, all made from a seed so golden
// files stay stable.
package querytest

import (
	"bytes"
	"maps"
	"slices"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Fake implements the backend reads the queries use: the chain, its
// state, and the staking and governance state as the node reads it.
type Fake struct {
	blocks     []*types.Block
	Balances   map[types.Address]*uint256.Int
	Nonces     map[types.Address]uint64
	Validators []backend.StakingValidator
	Dels       []backend.StakingDelegation
	Unbonding  []backend.UnbondingEntry
	Redels     []backend.RedelegationEntry
	Params     backend.StakingParams
	Props      []backend.Proposal
	PropVotes  map[uint64][]backend.ProposalVote
	PropDeps   map[uint64][]backend.ProposalDeposit
	PropTally  map[uint64]backend.Tally
	// Past holds the balances of earlier blocks, by block number: a
	// state read at such a block sees them instead of Balances.
	Past map[uint64]map[types.Address]*uint256.Int
	// ParamsAt holds the staking parameters of earlier blocks.
	ParamsAt map[uint64]backend.StakingParams
	// Keep is the node's state retention in blocks (0: all).
	Keep uint64
	// Plan is the scheduled upgrade; Applied the heights plans were
	// applied at.
	Plan    *backend.UpgradePlan
	Applied map[string]uint64
	// EvidenceAt is the double-sign evidence each block carries.
	EvidenceAt map[uint64][]backend.DoubleSignEvidence
	// TimeMs is the millisecond time of the blocks that record one, by
	// number; the others' times are their whole seconds.
	TimeMs map[uint64]uint64
	// Slashes are the validators' slash logs, by operator, oldest first.
	Slashes map[types.Address][]backend.SlashEvent
	// Indexed are addresses the account index lists beside those of
	// Balances, Nonces and Past (an account that went); NoIndex, when
	// set, is the index's failure.
	Indexed []types.Address
	NoIndex error
	// AllSign makes every member of the set sign every commit, as the
	// recorded SDK chain's one validator did; otherwise the first is
	// absent from each (SeenCommit).
	AllSign bool
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
// and one delegation from Addr(1)), one unbonding entry of Addr(1),
// with three validators or more one of Addr(0x1000) and four redelegations (Addr(1) moved stake
// twice from the first validator to the second and once from the third
// to the first, Addr(0x1000) once from the first to the third) and two
// proposals.
func New(validators int) *Fake {
	f := &Fake{Balances: map[types.Address]*uint256.Int{}, Nonces: map[types.Address]uint64{},
		PropVotes: map[uint64][]backend.ProposalVote{}, PropDeps: map[uint64][]backend.ProposalDeposit{},
		PropTally: map[uint64]backend.Tally{}}
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
	day := uint64(24 * time.Hour / time.Millisecond)
	f.Params = backend.StakingParams{RestakeCooldown: 21 * day, Desired: 100, MissedBlocksWindow: 100, MaxMissedBlocks: 50,
		NodeRefutedPenaltyPPM: 50_000, SyncTimeoutPenaltyPPM: 10_000, MinDeposit: Ether(10), DepositPeriod: 2 * day,
		VotingPeriod: 3 * day, QuorumPPM: 334_000, ThresholdPPM: 500_000, VetoPPM: 334_000,
		Reward: Ether(1), NodeRewardInterval: uint64(time.Hour / time.Millisecond)}
	base := uint64(Base.Unix())
	for i := range validators {
		op := Addr(0x100 + i)
		// Every fifth validator left the active set at block 1; the
		// others joined it then.
		status, start, left, leftEnd := "active", uint64(1), uint64(0), uint64(0)
		if i%5 == 4 {
			status, start, left, leftEnd = "standby", 0, 1, base+2+21*24*3600
		}
		f.Validators = append(f.Validators, backend.StakingValidator{
			Operator: op, ConsensusAddress: op, ConsensusPubkey: append([]byte{2}, op[:]...), Status: status,
			StartHeight: start, UnbondingHeight: left, UnbondingEnd: leftEnd,
			Tokens: Ether(uint64(1000 + i)), Shares: Ether(uint64(1000 + i)), Moniker: "validator",
			CommissionRate: uint256.NewInt(100_000_000_000_000_000), MaxRate: uint256.NewInt(200_000_000_000_000_000),
			MaxChangeRate: uint256.NewInt(10_000_000_000_000_000), CommissionUpdated: base,
			MinSelfDelegation: uint256.NewInt(1), UnpaidCommission: uint256.NewInt(250_000_000_000_000_000),
		})
		f.Dels = append(f.Dels,
			backend.StakingDelegation{Delegator: Addr(1), Validator: op, Shares: Ether(1), Amount: Ether(1), Rewards: uint256.NewInt(1_500_000_000_000_000_000)},
			backend.StakingDelegation{Delegator: Addr(0x1000 + i), Validator: op, Shares: Ether(999), Amount: Ether(999), Rewards: uint256.NewInt(1_250_000_000_000_000_000)})
	}
	if validators > 0 {
		// The first validator paid a missed-blocks penalty at block 2.
		f.Slashes = map[types.Address][]backend.SlashEvent{Addr(0x100): {{Height: 2, Infraction: 1, Reason: "missed_blocks",
			PPM: 10_000, Amount: Ether(10), Time: base + 4}}}
		f.Unbonding = append(f.Unbonding, backend.UnbondingEntry{ID: 1, Delegator: Addr(1), Validator: Addr(0x100), Amount: Ether(1),
			CompletionTime: base + 21*24*3600, CreationHeight: 2})
	}
	if validators >= 3 {
		f.Unbonding = append(f.Unbonding, backend.UnbondingEntry{ID: 6, Delegator: Addr(0x1000), Validator: Addr(0x100), Amount: Ether(7),
			CompletionTime: base + 21*24*3600 + 10, CreationHeight: 2})
	}
	if validators >= 3 {
		v0, v1, v2 := Addr(0x100), Addr(0x101), Addr(0x102)
		for i, r := range []struct {
			d, src, dst types.Address
			amount      uint64
		}{{Addr(1), v0, v1, 2}, {Addr(1), v2, v0, 3}, {Addr(0x1000), v0, v2, 4}, {Addr(1), v0, v1, 1}} {
			// The destination lost a tenth to a slash since, so the
			// shares are worth less than the amount that bought them.
			f.Redels = append(f.Redels, backend.RedelegationEntry{ID: uint64(2 + i), Delegator: r.d, Src: r.src, Dst: r.dst,
				Amount: Ether(r.amount), SharesDst: Ether(r.amount), Balance: new(uint256.Int).Div(Ether(9*r.amount), uint256.NewInt(10)),
				CompletionTime: base + 21*24*3600 + uint64(i), CreationHeight: 2})
		}
	}
	for id := uint64(1); id <= 2; id++ {
		p := backend.Proposal{ID: id, Kind: "text", Title: "proposal", Description: "text", Status: "voting_period",
			Proposer: Addr(2), SubmitTime: base, DepositEnd: base + 48*3600, TotalDeposit: Ether(10),
			VotingStart: base + 3600, VotingEnd: base + 72*3600}
		f.PropTally[id] = backend.Tally{Yes: Ether(1), No: new(uint256.Int), Abstain: new(uint256.Int), NoWithVeto: new(uint256.Int)}
		if id == 2 {
			p.Status = "passed"
			p.Kind, p.Title, p.Description, p.Param, p.Value = "param_change", "cheaper upkeep", "maintenanceFee to 7 wei", "maintenanceFee", "7"
			p.Changes = []backend.ParamChange{{Subspace: backend.ParamSubspace, Key: "maintenanceFee", Value: "7"}}
			f.PropTally[id] = backend.Tally{Yes: Ether(2000), No: Ether(5), Abstain: new(uint256.Int), NoWithVeto: new(uint256.Int)}
		}
		f.Props = append(f.Props, p)
		f.PropDeps[id] = []backend.ProposalDeposit{{Depositor: Addr(2), Amount: Ether(10)}}
	}
	// Proposal 3, passed, scheduled the upgrade to 1.3.0 at block 1200;
	// the one to 1.2.0 was applied at block 2.
	up := backend.UpgradePlan{Name: "1.3.0", Height: 1200, Info: "https://example.org/chaind/1.3.0"}
	f.Props = append(f.Props, backend.Proposal{ID: 3, Kind: "software_upgrade", Title: "upgrade to 1.3.0", Description: up.Info,
		Status: "passed", Param: "1.3.0", Value: "1200", Plan: &up, Proposer: Addr(2), SubmitTime: base, DepositEnd: base + 48*3600,
		TotalDeposit: Ether(10), VotingStart: base + 3600, VotingEnd: base + 72*3600})
	f.PropTally[3] = backend.Tally{Yes: Ether(2000), No: new(uint256.Int), Abstain: new(uint256.Int), NoWithVeto: new(uint256.Int)}
	f.Plan, f.Applied = &up, map[string]uint64{"1.2.0": 2}
	f.PropVotes[1] = []backend.ProposalVote{{Voter: Addr(1), Yes: 1_000_000}, {Voter: Addr(2), Yes: 600_000, No: 400_000}}
	return f
}

// Backend returns a query.Backend over f.
func (f *Fake) Backend() query.Backend {
	return query.Backend{Blocks: f, State: f, Accounts: f, Retention: f, Config: chainConfig{}, Network: f, Supply: f, Consensus: f,
		Staking: f, Governance: f, Commits: f, Signing: signing{f: f}, BlockMaxBytes: 4 << 20, BlockTime: 2 * time.Second, Authority: Addr(0x805),
		ModuleAccounts: []query.ModuleAccountRole{{Name: "bonded_tokens_pool", Address: Addr(0x800), Permissions: []string{"burner", "staking"}},
			{Name: "distribution", Address: Addr(0x801)}, {Name: "gov", Address: Addr(0x805), Permissions: []string{"burner"}}},
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

func (f *Fake) StateRetention() uint64 { return f.Keep }

// IndexedAccounts implements backend.AccountIndex over every address the
// fake's states name and Indexed.
func (f *Fake) IndexedAccounts(bound []byte, reverse bool, n int) ([]types.Address, error) {
	if f.NoIndex != nil {
		return nil, f.NoIndex
	}
	set := map[types.Address]bool{}
	for _, a := range f.Indexed {
		set[a] = true
	}
	for a := range f.Balances {
		set[a] = true
	}
	for a := range f.Nonces {
		set[a] = true
	}
	for _, m := range f.Past {
		for a := range m {
			set[a] = true
		}
	}
	all := slices.SortedFunc(maps.Keys(set), func(a, b types.Address) int { return bytes.Compare(a[:], b[:]) })
	var out []types.Address
	for i := range all {
		a := all[i]
		if reverse {
			a = all[len(all)-1-i]
		}
		c := bytes.Compare(a[:], bound)
		if bound != nil && ((!reverse && c < 0) || (reverse && c >= 0)) {
			continue
		}
		if len(out) == n {
			break
		}
		out = append(out, a)
	}
	return out, nil
}

func (f *Fake) StateAt(h *types.Header) (backend.State, error) {
	if bal, ok := f.Past[h.Number]; ok {
		return pastState{f, bal}, nil
	}
	return f, nil
}

// pastState is the state of an earlier block: its own balances, the
// rest as today.
type pastState struct {
	*Fake
	bal map[types.Address]*uint256.Int
}

func (p pastState) Balance(a types.Address) *uint256.Int {
	if b, ok := p.bal[a]; ok {
		return b
	}
	return new(uint256.Int)
}

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

// ConsensusValidators answers up to the height after the head, as the
// engine does: that set was decided by the cycle's selection block.
func (f *Fake) ConsensusValidators(height uint64) ([]backend.ConsensusValidator, error) {
	if height > uint64(len(f.blocks)) {
		return nil, backend.ErrNotFound
	}
	var out []backend.ConsensusValidator
	for _, v := range f.Validators {
		if v.Status == "active" {
			out = append(out, backend.ConsensusValidator{Address: v.Operator, VotingPower: int64(v.Tokens.Uint64() / 1e9)})
		}
	}
	return out, nil
}

func (f *Fake) StakingEnabled() bool { return true }
func (f *Fake) StakingValidators(*uint64) ([]backend.StakingValidator, error) {
	return f.Validators, nil
}
func (f *Fake) StakingValidator(_ *uint64, op types.Address) (*backend.StakingValidator, error) {
	for _, v := range f.Validators {
		if v.Operator == op {
			return &v, nil
		}
	}
	return nil, backend.ErrValidatorNotFound
}
func (f *Fake) DelegatorDelegations(_ *uint64, del types.Address) ([]backend.StakingDelegation, error) {
	var out []backend.StakingDelegation
	for _, d := range f.Dels {
		if d.Delegator == del {
			out = append(out, d)
		}
	}
	return out, nil
}
func (f *Fake) ValidatorDelegations(_ *uint64, op types.Address) ([]backend.StakingDelegation, error) {
	var out []backend.StakingDelegation
	for _, d := range f.Dels {
		if d.Validator == op {
			out = append(out, d)
		}
	}
	return out, nil
}
func (f *Fake) UnbondingDelegations(_ *uint64, del *types.Address) ([]backend.UnbondingEntry, error) {
	var out []backend.UnbondingEntry
	for _, e := range f.Unbonding {
		if del == nil || e.Delegator == *del {
			out = append(out, e)
		}
	}
	return out, nil
}
func (f *Fake) Redelegations(_ *uint64, del *types.Address) ([]backend.RedelegationEntry, error) {
	var out []backend.RedelegationEntry
	for _, e := range f.Redels {
		if del == nil || e.Delegator == *del {
			out = append(out, e)
		}
	}
	return out, nil
}
func (f *Fake) WithdrawAddress(_ *uint64, d types.Address) (types.Address, error) { return d, nil }
func (f *Fake) Supply(height *uint64) (*backend.Supply, error) {
	total, _ := f.TotalSupply(nil)
	return &backend.Supply{Total: total, Minted: new(uint256.Int), Burned: new(uint256.Int), CommunityPool: new(uint256.Int)}, nil
}
func (f *Fake) StakingParams(height *uint64) (*backend.StakingParams, error) {
	if height != nil {
		if p, ok := f.ParamsAt[*height]; ok {
			return &p, nil
		}
	}
	return &f.Params, nil
}

func (f *Fake) Proposals(*uint64) ([]backend.Proposal, error)      { return f.Props, nil }
func (f *Fake) UpgradePlan(*uint64) (*backend.UpgradePlan, error)  { return f.Plan, nil }
func (f *Fake) AppliedPlan(_ *uint64, name string) (uint64, error) { return f.Applied[name], nil }
func (f *Fake) Proposal(_ *uint64, id uint64) (*backend.Proposal, error) {
	for _, p := range f.Props {
		if p.ID == id {
			return &p, nil
		}
	}
	return nil, backend.ErrProposalNotFound
}
func (f *Fake) ProposalVotes(_ *uint64, id uint64) ([]backend.ProposalVote, error) {
	if _, err := f.Proposal(nil, id); err != nil {
		return nil, err
	}
	return f.PropVotes[id], nil
}
func (f *Fake) ProposalDeposits(_ *uint64, id uint64) ([]backend.ProposalDeposit, error) {
	if _, err := f.Proposal(nil, id); err != nil {
		return nil, err
	}
	return f.PropDeps[id], nil
}
func (f *Fake) ProposalTally(_ *uint64, id uint64) (*backend.Tally, error) {
	if _, err := f.Proposal(nil, id); err != nil {
		return nil, err
	}
	t := f.PropTally[id]
	return &t, nil
}

// chainConfig answers the chain ID and a base fee of 1 gwei; the queries
// ask nothing else.
type chainConfig struct{ backend.ChainConfig }

func (chainConfig) ChainID() uint64 { return 8118 }

func (chainConfig) NextBaseFee(*types.Header) *uint256.Int { return uint256.NewInt(1_000_000_000) }

// AddBlock extends the chain by one empty block, moving the head.
func (f *Fake) AddBlock() {
	parent := f.Head()
	h := &types.Header{Number: parent.Number() + 1, Time: parent.Time() + 2, ParentHash: parent.Hash(), Coinbase: Addr(7), GasLimit: 30_000_000}
	f.blocks = append(f.blocks, types.NewBlockWithHeader(h))
}

// AddBlockWith extends the chain by a block holding txs (at a 1 gwei base
// fee), moving the head, and returns it.
func (f *Fake) AddBlockWith(txs ...*types.Transaction) *types.Block {
	parent := f.Head()
	h := &types.Header{Number: parent.Number() + 1, Time: parent.Time() + 2, ParentHash: parent.Hash(), Coinbase: Addr(7),
		GasLimit: 30_000_000, BaseFee: uint256.NewInt(1_000_000_000)}
	h.Root[0] = byte(h.Number + 1)
	b := types.NewBlock(h, &types.Body{Transactions: txs})
	f.blocks = append(f.blocks, b)
	return b
}

// LastCommit is the certificate of block n-1 that block n carries: the
// one SeenCommit gives for n-1.
func (f *Fake) LastCommit(n uint64) (*backend.Commit, error) {
	if n < 2 || n >= uint64(len(f.blocks)) {
		return nil, backend.ErrNotFound
	}
	return f.SeenCommit(n - 1)
}

// SeenCommit is the certificate of block n: every member of the set
// signed (a 65-byte signature of its index) but the first, which is
// absent unless AllSign.
func (f *Fake) SeenCommit(n uint64) (*backend.Commit, error) {
	if n < 1 || n >= uint64(len(f.blocks)) {
		return nil, backend.ErrNotFound
	}
	set, err := f.ConsensusValidators(n)
	if err != nil {
		return nil, err
	}
	c := &backend.Commit{Height: n, BlockHash: f.blocks[n].Hash()}
	for i, v := range set {
		s := backend.CommitSig{Validator: v.Address, Power: v.VotingPower}
		if i > 0 || f.AllSign {
			b := byte(i)
			if i == 0 {
				b = 0x80 // the first member's, when it signs
			}
			s.Signature = bytes.Repeat([]byte{b}, 65)
		}
		c.Signatures = append(c.Signatures, s)
	}
	return c, nil
}

// Evidence returns f.EvidenceAt[n].
func (f *Fake) Evidence(n uint64) ([]backend.DoubleSignEvidence, error) {
	if n >= uint64(len(f.blocks)) {
		return nil, backend.ErrNotFound
	}
	return f.EvidenceAt[n], nil
}

// signing is the fake's backend.Signing: the block times and slash logs
// the queries read (the explorer's reads are not faked).
type signing struct {
	f *Fake
	backend.Signing
}

func (s signing) TimeMs(h *types.Header) uint64 {
	if ms, ok := s.f.TimeMs[h.Number]; ok {
		return ms
	}
	return h.Time * 1000
}

func (s signing) SlashEvents(_ *uint64, op types.Address) ([]backend.SlashEvent, error) {
	return s.f.Slashes[op], nil
}
