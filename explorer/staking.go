package explorer

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The proof-of-stake pages' data: validators with their stake, status,
// uptime, penalties, delegators and proposed blocks; an account's
// delegations, unbonding entries and rewards; governance proposals with
// their tally and votes. All of it is read from the staking and
// governance state at the head and from the blocks' signing records.

// maxUptimeBlocks bounds the recent blocks whose signatures one answer
// reads (the liveness window, 100 blocks by default).
const maxUptimeBlocks = 200

// stakeValidatorJSON is a validator as the staking state holds it.
type stakeValidatorJSON struct {
	Operator       string `json:"operator"`
	Consensus      string `json:"consensusAddress"`
	Moniker        string `json:"moniker"`
	Website        string `json:"website,omitempty"`
	Details        string `json:"details,omitempty"`
	Status         string `json:"status"` // active, standby, syncing, jailed or inactive
	Jailed         bool   `json:"jailed"`
	JailedUntil    uint64 `json:"jailedUntil,omitempty"` // Unix seconds
	VotingPower    int64  `json:"votingPower"`
	Tokens         string `json:"tokens"` // wei bonded: self + delegated
	SelfStake      string `json:"selfStake"`
	DelegatedStake string `json:"delegatedStake"`
	// Commission rates are 18-decimal fractions (10^18 = 100%).
	CommissionRate string `json:"commissionRate"`
	MaxRate        string `json:"maxRate"`
	MaxChangeRate  string `json:"maxChangeRate"`
	Slashed        string `json:"slashed"`
	// MissedBlocks is the liveness counter of the current window.
	MissedBlocks uint64 `json:"missedBlocks"`
	// Signed and Missed count the recent blocks of Uptime's window.
	Signed uint64         `json:"signed"`
	Missed uint64         `json:"missed"`
	Node   *validatorJSON `json:"node,omitempty"`
}

// uptimeJSON is the signing record of recent blocks for one validator:
// Blocks[i] is block From+i, "s" signed, "m" missed, "-" not in the set.
type uptimeJSON struct {
	From   uint64 `json:"from"`
	To     uint64 `json:"to"`
	Blocks string `json:"blocks"`
}

// recentSigning is the signing record of the blocks before the head,
// read once per head.
type recentSigning struct {
	head   types.Hash
	blocks []*backend.BlockSigning // oldest first
}

// stakeState holds what the staking pages read more than once per head.
type stakeState struct {
	mu     sync.Mutex
	recent *recentSigning
}

func (e *Explorer) stakingOn() bool {
	return e.cfg.Staking != nil && e.cfg.Staking.StakingEnabled()
}

// recentSigning returns the signing records of up to the liveness window
// of blocks ending with the head's parent (the head's are recorded by the
// block after it).
func (e *Explorer) recentSigning() (*recentSigning, error) {
	b := e.cfg.Backend
	head := b.Head()
	e.stake.mu.Lock()
	defer e.stake.mu.Unlock()
	if r := e.stake.recent; r != nil && r.head == head.Hash() {
		return r, nil
	}
	r := &recentSigning{head: head.Hash()}
	if e.cfg.Signing == nil || head.Number() < 2 {
		e.stake.recent = r
		return r, nil
	}
	window := uint64(100)
	if p, err := e.cfg.Staking.StakingParams(nil); err == nil && p.MissedBlocksWindow > 0 {
		window = p.MissedBlocksWindow
	}
	window = min(window, maxUptimeBlocks)
	last := head.Number() - 1
	first := max(backend.FirstBlock(b)+1, last-min(last, window-1))
	// The previous head's records are kept where their blocks still are
	// canonical: a new head reads one or two blocks, not the window.
	known := map[uint64]*backend.BlockSigning{}
	if prev := e.stake.recent; prev != nil {
		for _, s := range prev.blocks {
			known[s.Number] = s
		}
	}
	for n := first; n <= last; n++ {
		s, ok := known[n]
		if !ok || !s.Recorded || b.CanonicalHash(n) != s.Hash {
			var err error
			if s, err = e.cfg.Signing.BlockSigning(n); err != nil {
				return nil, err
			}
		}
		r.blocks = append(r.blocks, s)
	}
	e.stake.recent = r
	return r, nil
}

// uptimeOf is operator's record over r.
func (r *recentSigning) uptimeOf(op types.Address) (u uptimeJSON, signed, missed uint64) {
	var sb strings.Builder
	for _, s := range r.blocks {
		c := byte('-')
		for _, m := range s.Members {
			if m.Operator == op {
				if c = 'm'; m.Signed {
					c = 's'
				}
				break
			}
		}
		switch c {
		case 's':
			signed++
		case 'm':
			missed++
		}
		sb.WriteByte(c)
	}
	if len(r.blocks) > 0 {
		u.From, u.To = r.blocks[0].Number, r.blocks[len(r.blocks)-1].Number
	}
	u.Blocks = sb.String()
	return u, signed, missed
}

// stakeValidators lists the staking state's validators, by voting power.
func (e *Explorer) stakeValidators() ([]stakeValidatorJSON, *recentSigning, error) {
	vs, err := e.cfg.Staking.StakingValidators(nil)
	if err != nil {
		return nil, nil, err
	}
	recent, err := e.recentSigning()
	if err != nil {
		return nil, nil, err
	}
	nodes := map[types.Address]validatorJSON{}
	status := map[types.Address]string{}
	if e.cfg.Validators != nil {
		list := e.validatorList()
		for i, n := range e.cfg.Validators.Nodes() {
			nodes[n.Operator] = list[i]
			status[n.Operator] = n.Status
		}
	}
	out := make([]stakeValidatorJSON, 0, len(vs))
	for _, v := range vs {
		j := stakeValidatorJSON{
			Operator: v.Operator.Hex(), Consensus: v.ConsensusAddress.Hex(), Moniker: v.Moniker, Website: v.Website,
			Details: v.Details, Status: v.Status, Jailed: v.Jailed, VotingPower: v.Power, Tokens: dec(v.Tokens),
			SelfStake: dec(v.SelfDelegation), DelegatedStake: dec(subFloor(v.Tokens, v.SelfDelegation)),
			CommissionRate: dec(v.CommissionRate), MaxRate: dec(v.MaxRate), MaxChangeRate: dec(v.MaxChangeRate),
			Slashed: dec(v.Slashed), MissedBlocks: v.MissedBlocks,
		}
		if v.Jailed {
			j.Status, j.JailedUntil = "jailed", v.JailedUntil
		} else if s := status[v.Operator]; s == "syncing" {
			j.Status = s // the node list knows a catching-up validator
		}
		if n, ok := nodes[v.Operator]; ok {
			j.Node = &n
		}
		_, j.Signed, j.Missed = recent.uptimeOf(v.Operator)
		out = append(out, j)
	}
	slices.SortStableFunc(out, func(a, b stakeValidatorJSON) int {
		if a.VotingPower != b.VotingPower {
			return int(b.VotingPower - a.VotingPower)
		}
		return strings.Compare(a.Operator, b.Operator)
	})
	return out, recent, nil
}

// subFloor is a-b, or 0 when b > a.
func subFloor(a, b *uint256.Int) *uint256.Int {
	if a == nil || b == nil || a.Lt(b) {
		return new(uint256.Int)
	}
	return new(uint256.Int).Sub(a, b)
}

// stakeValidator serves /api/validator/{id} on a chain with staking: the
// validator, its delegators, penalties, uptime and recent proposals.
func (e *Explorer) stakeValidator(id string) (any, error) {
	vs, recent, err := e.stakeValidators()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(vs, func(v stakeValidatorJSON) bool {
		return strings.EqualFold(v.Operator, id) || strings.EqualFold(v.Consensus, id) ||
			(v.Node != nil && (v.Node.ID == id || v.Node.PublicKey == id))
	})
	if i < 0 {
		return nil, notFound("validator " + id + " not found")
	}
	v := vs[i]
	op, _ := types.HexToAddress(v.Operator)
	ds, err := e.cfg.Staking.ValidatorDelegations(nil, op)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(ds, func(a, b backend.StakingDelegation) int { return b.Amount.Cmp(a.Amount) })
	delegators := make([]delegationJSON, 0, len(ds))
	for _, d := range ds {
		delegators = append(delegators, toDelegation(d))
	}
	slashes := []slashJSON{}
	if e.cfg.Signing != nil {
		evs, err := e.cfg.Signing.SlashEvents(nil, op)
		if err != nil {
			return nil, err
		}
		for _, s := range evs {
			slashes = append(slashes, slashJSON{s.Height, s.Infraction, s.Reason, s.PPM, dec(s.Amount), s.Time})
		}
	}
	uptime, _, _ := recent.uptimeOf(op)
	proposed := []proposedJSON{}
	for i := len(recent.blocks) - 1; i >= 0; i-- {
		if s := recent.blocks[i]; s.Proposer == op {
			blk, err := e.cfg.Backend.BlockByNumber(s.Number)
			if err != nil {
				return nil, err
			}
			proposed = append(proposed, proposedJSON{s.Number, blk.Time(), len(blk.Transactions())})
		}
	}
	return struct {
		Success    bool               `json:"success"`
		Validator  stakeValidatorJSON `json:"validator"`
		Uptime     uptimeJSON         `json:"uptime"`
		Delegators []delegationJSON   `json:"delegators"`
		Slashes    []slashJSON        `json:"slashes"`
		Proposed   []proposedJSON     `json:"proposedBlocks"` // in the uptime window, newest first
	}{true, v, uptime, delegators, slashes, proposed}, nil
}

type delegationJSON struct {
	Delegator string `json:"delegator"`
	Validator string `json:"validator"`
	Amount    string `json:"amount"`
	Shares    string `json:"shares"`
	Rewards   string `json:"rewards"` // withdrawable now
}

func toDelegation(d backend.StakingDelegation) delegationJSON {
	return delegationJSON{d.Delegator.Hex(), d.Validator.Hex(), dec(d.Amount), dec(d.Shares), dec(d.Rewards)}
}

type slashJSON struct {
	Height     uint64 `json:"height"`
	Infraction uint64 `json:"infractionHeight"`
	Reason     string `json:"reason"`
	PPM        uint64 `json:"ppm"`
	Amount     string `json:"amount"`
	Time       uint64 `json:"timestamp"`
}

type proposedJSON struct {
	Number           uint64 `json:"number"`
	Timestamp        uint64 `json:"timestamp"`
	TransactionCount int    `json:"transactionCount"`
}

type unbondingJSON struct {
	ID             uint64 `json:"id"`
	Validator      string `json:"validator"`
	Amount         string `json:"amount"`
	CompletionTime uint64 `json:"completionTime"`
	CreationHeight uint64 `json:"creationHeight"`
}

// accountStakeJSON is an account's staking: delegations with their
// rewards, unbonding entries and where rewards are paid.
type accountStakeJSON struct {
	Delegations     []delegationJSON `json:"delegations"`
	Unbonding       []unbondingJSON  `json:"unbonding"`
	TotalDelegated  string           `json:"totalDelegated"`
	TotalRewards    string           `json:"totalRewards"`
	TotalUnbonding  string           `json:"totalUnbonding"`
	WithdrawAddress string           `json:"withdrawAddress"`
}

func (e *Explorer) accountStake(a types.Address) (*accountStakeJSON, error) {
	if !e.stakingOn() {
		return nil, nil
	}
	s := e.cfg.Staking
	ds, err := s.DelegatorDelegations(nil, a)
	if err != nil {
		return nil, err
	}
	us, err := s.UnbondingDelegations(nil, &a)
	if err != nil {
		return nil, err
	}
	wa, err := s.WithdrawAddress(nil, a)
	if err != nil {
		return nil, err
	}
	out := &accountStakeJSON{Delegations: []delegationJSON{}, Unbonding: []unbondingJSON{}, WithdrawAddress: wa.Hex()}
	del, rew, unb := new(uint256.Int), new(uint256.Int), new(uint256.Int)
	for _, d := range ds {
		out.Delegations = append(out.Delegations, toDelegation(d))
		del.Add(del, d.Amount)
		if d.Rewards != nil {
			rew.Add(rew, d.Rewards)
		}
	}
	for _, u := range us {
		out.Unbonding = append(out.Unbonding, unbondingJSON{u.ID, u.Validator.Hex(), dec(u.Amount), u.CompletionTime, u.CreationHeight})
		unb.Add(unb, u.Amount)
	}
	out.TotalDelegated, out.TotalRewards, out.TotalUnbonding = del.Dec(), rew.Dec(), unb.Dec()
	return out, nil
}

// proposalJSON is a governance proposal with its tally.
type proposalJSON struct {
	ID           uint64    `json:"id"`
	Kind         string    `json:"kind"`
	Status       string    `json:"status"`
	Proposer     string    `json:"proposer"`
	Title        string    `json:"title"`
	Description  string    `json:"description"`
	Param        string    `json:"param,omitempty"`
	Value        string    `json:"value,omitempty"`
	SubmitTime   uint64    `json:"submitTime"`
	DepositEnd   uint64    `json:"depositEnd"`
	VotingStart  uint64    `json:"votingStart"`
	VotingEnd    uint64    `json:"votingEnd"`
	TotalDeposit string    `json:"totalDeposit"`
	Tally        tallyJSON `json:"tally"`
}

type tallyJSON struct {
	Yes        string `json:"yes"`
	Abstain    string `json:"abstain"`
	No         string `json:"no"`
	NoWithVeto string `json:"noWithVeto"`
}

func (e *Explorer) renderProposal(p backend.Proposal) (proposalJSON, error) {
	t, err := e.cfg.Governance.ProposalTally(nil, p.ID)
	if err != nil {
		return proposalJSON{}, err
	}
	return proposalJSON{p.ID, p.Kind, p.Status, p.Proposer.Hex(), p.Title, p.Description, p.Param, p.Value,
		p.SubmitTime, p.DepositEnd, p.VotingStart, p.VotingEnd, dec(p.TotalDeposit),
		tallyJSON{dec(t.Yes), dec(t.Abstain), dec(t.No), dec(t.NoWithVeto)}}, nil
}

func (e *Explorer) governanceOn() error {
	if e.cfg.Governance == nil || !e.stakingOn() {
		return notFound("this chain has no governance")
	}
	return nil
}

// proposals serves GET /api/proposals: every proposal, newest first.
func (e *Explorer) proposals(*http.Request) (any, error) {
	if err := e.governanceOn(); err != nil {
		return nil, err
	}
	ps, err := e.cfg.Governance.Proposals(nil)
	if err != nil {
		return nil, err
	}
	out := make([]proposalJSON, 0, len(ps))
	for i := len(ps) - 1; i >= 0; i-- {
		pj, err := e.renderProposal(ps[i])
		if err != nil {
			return nil, err
		}
		out = append(out, pj)
	}
	return struct {
		Success   bool           `json:"success"`
		Proposals []proposalJSON `json:"proposals"`
	}{true, out}, nil
}

type voteJSON struct {
	Voter string `json:"voter"`
	// Weights are parts per million of the voter's stake.
	Yes        uint64 `json:"yes"`
	Abstain    uint64 `json:"abstain"`
	No         uint64 `json:"no"`
	NoWithVeto uint64 `json:"noWithVeto"`
}

type depositJSON struct {
	Depositor string `json:"depositor"`
	Amount    string `json:"amount"`
}

// proposal serves GET /api/proposal/{id}: the proposal, its tally, votes
// and deposits.
func (e *Explorer) proposal(r *http.Request) (any, error) {
	if err := e.governanceOn(); err != nil {
		return nil, err
	}
	id, err := parseUint("proposal id", trimID(r))
	if err != nil {
		return nil, err
	}
	g := e.cfg.Governance
	p, err := g.Proposal(nil, id)
	if errors.Is(err, backend.ErrProposalNotFound) {
		return nil, notFound("proposal " + trimID(r) + " not found")
	}
	if err != nil {
		return nil, err
	}
	pj, err := e.renderProposal(*p)
	if err != nil {
		return nil, err
	}
	vs, err := g.ProposalVotes(nil, id)
	if err != nil {
		return nil, err
	}
	votes := make([]voteJSON, 0, len(vs))
	for _, v := range vs {
		votes = append(votes, voteJSON{v.Voter.Hex(), v.Yes, v.Abstain, v.No, v.NoWithVeto})
	}
	ds, err := g.ProposalDeposits(nil, id)
	if err != nil {
		return nil, err
	}
	deposits := make([]depositJSON, 0, len(ds))
	for _, d := range ds {
		deposits = append(deposits, depositJSON{d.Depositor.Hex(), dec(d.Amount)})
	}
	return struct {
		Success  bool          `json:"success"`
		Proposal proposalJSON  `json:"proposal"`
		Votes    []voteJSON    `json:"votes"`
		Deposits []depositJSON `json:"deposits"`
	}{true, pj, votes, deposits}, nil
}
