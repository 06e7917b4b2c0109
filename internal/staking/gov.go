package staking

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Governance: anyone submits a proposal with a deposit; once deposits
// reach minDeposit within depositPeriod it is voted on for votingPeriod by
// stake; at the end it is tallied as the Cosmos SDK does (quorum of the
// bonded stake, veto, then threshold of the non-abstaining votes) and a
// passed parameter change is applied at once.

// ProposalKind says what a proposal does when it passes.
type ProposalKind uint8

// Proposal kinds.
const (
	TextProposal            ProposalKind = 1 // nothing
	ParamChangeProposal     ProposalKind = 2 // sets one network parameter
	SoftwareVersionProposal ProposalKind = 3 // sets activeVersion, latestVersion or minVersion
	SoftwareUpgradeProposal ProposalKind = 4 // schedules an upgrade plan: param the version, value the height (upgrade.go)
)

// ProposalStatus is where a proposal is in its life.
type ProposalStatus uint8

// Proposal states.
const (
	DepositPeriod ProposalStatus = 1 + iota
	VotingPeriod
	Passed
	Rejected
	Failed  // passed, but the change no longer checks
	Dropped // deposit period ended short of minDeposit
)

func (s ProposalStatus) String() string {
	return [...]string{"", "deposit_period", "voting_period", "passed", "rejected", "failed", "dropped"}[min(int(s), 6)]
}

// Vote options, numbered as the Cosmos SDK numbers them.
const (
	OptionYes        = 1
	OptionAbstain    = 2
	OptionNo         = 3
	OptionNoWithVeto = 4
)

// Gas costs of the governance methods.
const (
	gasSubmitProposal = 80_000
	gasDeposit        = 25_000
	gasVote           = 25_000
)

// Proposal record fields (under GovernanceAddress).
const (
	gKind = iota
	gStatus
	gProposer
	gTitle
	gDescription
	gParam
	gValue
	gSubmitTime
	gDepositEnd
	gVotingStart
	gVotingEnd
	gTotalDeposit
	gYes // final tally, stake
	gAbstain
	gNo
	gVeto
)

// Vote record fields: the weight of each option, parts per million.
const (
	wYes = iota
	wAbstain
	wNo
	wVeto
)

func proposalRec(id uint64) slot { return rec(GovernanceAddress, "proposal", u64Key(id)) }

func depositRec(id uint64, d types.Address) slot {
	return rec(GovernanceAddress, "deposit", u64Key(id), d[:])
}

func voteRec(id uint64, v types.Address) slot {
	return rec(GovernanceAddress, "vote", u64Key(id), v[:])
}

func govCountRec() slot { return rec(GovernanceAddress, "count") }

func u64Key(v uint64) []byte {
	var k [8]byte
	for j := range 8 {
		k[7-j] = byte(v >> (8 * j))
	}
	return k[:]
}

// depositorsOf and votersOf list a proposal's depositors and voters.
func depositorsOf(id uint64) addrList {
	return addrList{base: rec(GovernanceAddress, "depositors", u64Key(id)), index: func(a types.Address) slot { return depositRec(id, a).field(1) }}
}

func votersOf(id uint64) addrList {
	return addrList{base: rec(GovernanceAddress, "voters", u64Key(id)), index: func(a types.Address) slot { return voteRec(id, a).field(4) }}
}

// openProposals lists the proposals in their deposit or voting period, as
// addresses holding the id: what the end of every block looks at.
var openProposals = addrList{base: rec(GovernanceAddress, "open"), index: func(a types.Address) slot {
	return proposalRec(idOf(a)).field(gVeto + 1)
}}

func idAddr(id uint64) types.Address {
	var a types.Address
	copy(a[12:], u64Key(id))
	return a
}

func idOf(a types.Address) uint64 {
	var id uint64
	for _, b := range a[12:] {
		id = id<<8 | uint64(b)
	}
	return id
}

// Proposal is a governance proposal.
type Proposal struct {
	ID                           uint64
	Kind                         ProposalKind
	Status                       ProposalStatus
	Proposer                     types.Address
	Title, Description           string
	Param, Value                 string
	SubmitTime, DepositEnd       uint64 // s
	VotingStart, VotingEnd       uint64 // s
	TotalDeposit                 *uint256.Int
	Yes, Abstain, No, NoWithVeto *uint256.Int // final tally
}

// submitProposal records a proposal with its first deposit (already in
// the governance contract's balance).
func (l *ledger) submitProposal(p *Params, proposer types.Address, kind ProposalKind, title, desc, param, value string, deposit *uint256.Int) (uint64, error) {
	switch {
	case title == "" || len(title) > 140:
		return 0, revert("title must be 1..140 bytes")
	case len(desc) > 10_000:
		return 0, revert("description longer than 10000 bytes")
	}
	switch kind {
	case TextProposal:
		if param != "" || value != "" {
			return 0, revert("a text proposal changes no parameter")
		}
	case SoftwareVersionProposal:
		if param != "activeVersion" && param != "latestVersion" && param != "minVersion" {
			return 0, revert("a software version proposal sets activeVersion, latestVersion or minVersion")
		}
		fallthrough
	case ParamChangeProposal:
		if _, err := applyParamChange(*p, param, value); err != nil {
			return 0, revert("parameter change: " + err.Error())
		}
	case SoftwareUpgradeProposal:
		if err := checkPlan(param, value, l.height); err != nil {
			return 0, revert("software upgrade: " + err.Error())
		}
	default:
		return 0, revert("unknown proposal kind")
	}
	id := l.s.u64(govCountRec()) + 1
	l.s.setU64(govCountRec(), id)
	r := proposalRec(id)
	l.s.setU64(r.field(gKind), uint64(kind))
	l.s.setU64(r.field(gStatus), uint64(DepositPeriod))
	l.s.setAddr(r.field(gProposer), proposer)
	l.s.setBytes(r.field(gTitle), []byte(title))
	l.s.setBytes(r.field(gDescription), []byte(desc))
	l.s.setBytes(r.field(gParam), []byte(param))
	l.s.setBytes(r.field(gValue), []byte(value))
	l.s.setU64(r.field(gSubmitTime), l.now)
	l.s.setU64(r.field(gDepositEnd), l.now+secondsOf(p.DepositPeriod))
	openProposals.add(l.s, idAddr(id))
	if !deposit.IsZero() {
		if err := l.deposit(p, id, proposer, deposit); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// deposit adds to a proposal's deposit; reaching minDeposit opens voting.
func (l *ledger) deposit(p *Params, id uint64, from types.Address, amount *uint256.Int) error {
	r := proposalRec(id)
	if ProposalStatus(l.s.u64(r.field(gStatus))) != DepositPeriod {
		return revert("proposal is not in its deposit period")
	}
	if amount.IsZero() {
		return revert("deposit must be positive")
	}
	dr := depositRec(id, from)
	l.s.setU256(dr, new(uint256.Int).Add(l.s.u256(dr), amount))
	depositorsOf(id).add(l.s, from)
	total := new(uint256.Int).Add(l.s.u256(r.field(gTotalDeposit)), amount)
	l.s.setU256(r.field(gTotalDeposit), total)
	if !total.Lt(p.MinDeposit) {
		l.s.setU64(r.field(gStatus), uint64(VotingPeriod))
		l.s.setU64(r.field(gVotingStart), l.now)
		l.s.setU64(r.field(gVotingEnd), l.now+secondsOf(p.VotingPeriod))
	}
	return nil
}

// vote records a (weighted) vote; weights are parts per million summing
// to one million. A new vote replaces the voter's old one.
func (l *ledger) vote(id uint64, voter types.Address, weights [4]uint64) error {
	r := proposalRec(id)
	if ProposalStatus(l.s.u64(r.field(gStatus))) != VotingPeriod {
		return revert("proposal is not in its voting period")
	}
	var sum uint64
	for _, w := range weights {
		if w > PPM {
			return revert("weights must sum to 1")
		}
		sum += w
	}
	if sum != PPM {
		return revert("weights must sum to 1")
	}
	vr := voteRec(id, voter)
	for i, w := range weights {
		l.s.setU64(vr.field(uint64(i)), w)
	}
	votersOf(id).add(l.s, voter)
	return nil
}

// votingPower is voter's bonded stake: the value of its delegations to
// validators that are not jailed.
func (l *ledger) votingPower(voter types.Address) *uint256.Int {
	total := new(uint256.Int)
	for _, v := range delegationsOf(voter).all(l.s) {
		if l.s.bool(valRec(v).field(vJailed)) {
			continue
		}
		total.Add(total, l.tokensOf(v, l.delShares(voter, v)))
	}
	return total
}

// bondedStake is the stake of all validators that are not jailed.
func (l *ledger) bondedStake() *uint256.Int {
	total := new(uint256.Int)
	for _, v := range validatorList.all(l.s) {
		if !l.s.bool(valRec(v).field(vJailed)) {
			total.Add(total, l.tokens(v))
		}
	}
	return total
}

// Tally is a proposal's votes by option, in stake.
type Tally struct{ Yes, Abstain, No, NoWithVeto *uint256.Int }

func (l *ledger) tally(id uint64) Tally {
	t := Tally{new(uint256.Int), new(uint256.Int), new(uint256.Int), new(uint256.Int)}
	opts := [4]*uint256.Int{t.Yes, t.Abstain, t.No, t.NoWithVeto}
	for _, voter := range votersOf(id).all(l.s) {
		power := l.votingPower(voter)
		vr := voteRec(id, voter)
		for i := range opts {
			part, _ := new(uint256.Int).MulDivOverflow(power, uint256.NewInt(l.s.u64(vr.field(uint64(i)))), uint256.NewInt(PPM))
			opts[i].Add(opts[i], part)
		}
	}
	return t
}

// exceeds reports a/b > ppm/PPM.
func exceeds(a, b *uint256.Int, ppm uint64) bool {
	if b.IsZero() {
		return false
	}
	lhs, _ := new(uint256.Int).MulDivOverflow(a, uint256.NewInt(PPM), b)
	return lhs.Gt(uint256.NewInt(ppm)) || (lhs.Eq(uint256.NewInt(ppm)) && !new(uint256.Int).MulMod(a, uint256.NewInt(PPM), b).IsZero())
}

// endProposals closes the proposals whose period is over.
func (l *ledger) endProposals(p *Params) {
	for _, a := range openProposals.all(l.s) {
		id := idOf(a)
		r := proposalRec(id)
		switch ProposalStatus(l.s.u64(r.field(gStatus))) {
		case DepositPeriod:
			if l.now >= l.s.u64(r.field(gDepositEnd)) {
				l.closeProposal(id, Dropped, true)
			}
		case VotingPeriod:
			if l.now >= l.s.u64(r.field(gVotingEnd)) {
				l.decide(p, id)
			}
		}
	}
}

// decide tallies a proposal at the end of its voting period: below quorum
// or without any non-abstaining vote it is rejected; over the veto
// threshold it is rejected and its deposits burned; over the threshold
// of yes it passes and takes effect.
func (l *ledger) decide(p *Params, id uint64) {
	r := proposalRec(id)
	t := l.tally(id)
	l.s.setU256(r.field(gYes), t.Yes)
	l.s.setU256(r.field(gAbstain), t.Abstain)
	l.s.setU256(r.field(gNo), t.No)
	l.s.setU256(r.field(gVeto), t.NoWithVeto)
	voted := new(uint256.Int).Add(t.Yes, t.Abstain)
	voted.Add(voted, t.No).Add(voted, t.NoWithVeto)
	nonAbstain := new(uint256.Int).Sub(voted, t.Abstain)
	bonded := l.bondedStake()
	quorum, _ := new(uint256.Int).MulDivOverflow(bonded, uint256.NewInt(p.Quorum), uint256.NewInt(PPM))
	switch {
	case voted.IsZero() || voted.Lt(quorum) || nonAbstain.IsZero():
		l.closeProposal(id, Rejected, true)
	case exceeds(t.NoWithVeto, voted, p.VetoThreshold):
		l.closeProposal(id, Rejected, false)
	case exceeds(t.Yes, nonAbstain, p.Threshold):
		status := Passed
		switch kind := ProposalKind(l.s.u64(r.field(gKind))); kind {
		case TextProposal:
		case SoftwareUpgradeProposal:
			np := *p
			if err := l.schedulePlan(&np, l.s.str(r.field(gParam)), l.s.str(r.field(gValue)), l.s.str(r.field(gDescription))); err != nil {
				status = Failed
			} else {
				np.Timestamp = l.now * 1000
				writeParams(l.s.st, &np)
				*p = np
			}
		default:
			np, err := applyParamChange(*p, l.s.str(r.field(gParam)), l.s.str(r.field(gValue)))
			if err != nil {
				status = Failed
			} else {
				np.Timestamp = l.now * 1000
				writeParams(l.s.st, &np)
				*p = np
			}
		}
		l.closeProposal(id, status, true)
	default:
		l.closeProposal(id, Rejected, true)
	}
}

// closeProposal ends a proposal, refunding or burning its deposits.
func (l *ledger) closeProposal(id uint64, status ProposalStatus, refund bool) {
	r := proposalRec(id)
	l.s.setU64(r.field(gStatus), uint64(status))
	openProposals.remove(l.s, idAddr(id))
	for _, d := range depositorsOf(id).all(l.s) {
		amt := l.s.u256(depositRec(id, d))
		if refund {
			l.payOut(GovernanceAddress, d, amt)
		} else {
			l.s.st.SubBalance(GovernanceAddress, amt)
			l.burn(amt)
		}
	}
}

// ReadProposal returns proposal id.
func ReadProposal(st State, id uint64) (Proposal, bool) {
	s, r := store{st}, proposalRec(id)
	status := ProposalStatus(s.u64(r.field(gStatus)))
	if status == 0 {
		return Proposal{}, false
	}
	return Proposal{ID: id, Kind: ProposalKind(s.u64(r.field(gKind))), Status: status, Proposer: s.addr(r.field(gProposer)),
		Title: s.str(r.field(gTitle)), Description: s.str(r.field(gDescription)), Param: s.str(r.field(gParam)), Value: s.str(r.field(gValue)),
		SubmitTime: s.u64(r.field(gSubmitTime)), DepositEnd: s.u64(r.field(gDepositEnd)),
		VotingStart: s.u64(r.field(gVotingStart)), VotingEnd: s.u64(r.field(gVotingEnd)), TotalDeposit: s.u256(r.field(gTotalDeposit)),
		Yes: s.u256(r.field(gYes)), Abstain: s.u256(r.field(gAbstain)), No: s.u256(r.field(gNo)), NoWithVeto: s.u256(r.field(gVeto))}, true
}

// ReadProposals returns every proposal, oldest first.
func ReadProposals(st State) []Proposal {
	n := store{st}.u64(govCountRec())
	out := make([]Proposal, 0, n)
	for id := uint64(1); id <= n; id++ {
		if p, ok := ReadProposal(st, id); ok {
			out = append(out, p)
		}
	}
	return out
}

// Vote is one voter's weights (parts per million) on a proposal.
type Vote struct {
	Voter                        types.Address
	Yes, Abstain, No, NoWithVeto uint64
}

// ReadVotes returns the votes cast on proposal id.
func ReadVotes(st State, id uint64) []Vote {
	s := store{st}
	var out []Vote
	for _, v := range votersOf(id).all(s) {
		vr := voteRec(id, v)
		out = append(out, Vote{Voter: v, Yes: s.u64(vr.field(wYes)), Abstain: s.u64(vr.field(wAbstain)), No: s.u64(vr.field(wNo)), NoWithVeto: s.u64(vr.field(wVeto))})
	}
	return out
}

// Deposit is one depositor's total deposit on a proposal.
type Deposit struct {
	Depositor types.Address
	Amount    *uint256.Int
}

// ReadDeposits returns the deposits on proposal id, in the order the
// depositors first deposited.
func ReadDeposits(st State, id uint64) []Deposit {
	s := store{st}
	var out []Deposit
	for _, d := range depositorsOf(id).all(s) {
		out = append(out, Deposit{Depositor: d, Amount: s.u256(depositRec(id, d))})
	}
	return out
}

// ReadTally returns the current tally of proposal id: the final one once
// voting is over, else the votes so far weighted by today's stake.
func ReadTally(st State, id uint64) Tally {
	p, ok := ReadProposal(st, id)
	if ok && p.Status != VotingPeriod && p.Status != DepositPeriod {
		return Tally{p.Yes, p.Abstain, p.No, p.NoWithVeto}
	}
	return (&ledger{s: store{st}}).tally(id)
}
