package staking

import (
	"encoding/binary"
	"strconv"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// DoubleSign is one validator's equivocation as a block reports it: its
// consensus address and the height at which it signed two conflicting
// votes (the infraction height).
type DoubleSign struct {
	ConsensusAddress types.Address
	Height           uint64
}

// MaxEvidenceAge is how many blocks back a double sign may still be
// punished: evidence of height h is accepted in blocks h+1 … h+MaxEvidenceAge.
// It bounds the validator sets a node must keep to check evidence, and
// the slashable unbonding and redelegation entries it reaches.
const MaxEvidenceAge = 100

// evidenceRec marks a double sign at a height as punished, so the same
// offence (whatever pair of votes proves it) is punished once.
func evidenceRec(ca types.Address, height uint64) slot {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], height)
	return rec(StakingAddress, "evidence", ca[:], k[:])
}

// EvidenceHandled reports whether the state already holds the punishment
// of consensus address ca's double sign at height: a block must not carry
// that evidence again.
func EvidenceHandled(st State, ca types.Address, height uint64) bool {
	return store{st}.bool(evidenceRec(ca, height))
}

// punishDoubleSign applies one double sign: the first report of an
// offence slashes nodeRefutedPenaltyPercent of what the validator had
// bonded at the infraction (its tokens, and the unbonding and
// redelegation entries started since) and jails it; later reports of the
// same offence, or of one by a validator jailed already, only mark it
// handled.
func (l *ledger) punishDoubleSign(p *Params, ds DoubleSign, until uint64) {
	r := evidenceRec(ds.ConsensusAddress, ds.Height)
	if l.s.bool(r) {
		return
	}
	l.s.setBool(r, true)
	v := l.s.addr(consRec(ds.ConsensusAddress))
	if v == (types.Address{}) || l.s.bool(valRec(v).field(vJailed)) {
		return // unknown, or already punished and out at the next selection
	}
	l.slashFrom(v, SlashDoubleSign, p.NodeRefutedPenalty, ds.Height)
	l.jail(v, until)
}

// slashFrom slashes ppm of validator v's stake as it was at block
// infraction, as the Cosmos SDK does: the validator's tokens, plus each
// unbonding entry and each redelegation out of v started at or after that
// block (stake that was bonded to v when it misbehaved, and walked away
// since). Entries started before it left in time and keep their coins.
// The total taken goes into v's slash log with its reason.
func (l *ledger) slashFrom(v types.Address, reason SlashReason, ppm uint64, infraction uint64) {
	total := l.slash(v, ppm)
	defer func() { l.logSlash(v, reason, ppm, infraction, total) }()
	if ppm == 0 {
		return
	}
	q := queueRec()
	for i, tail := l.s.u64(q.field(qHead)), l.s.u64(q.field(qTail)); i < tail; i++ {
		e := entryRec(i)
		if l.s.addr(e.field(uValidator)) != v || l.s.u64(e.field(uHeight)) < infraction {
			continue
		}
		amount := l.s.u256(e.field(uAmount))
		cut, _ := new(uint256.Int).MulDivOverflow(amount, uint256.NewInt(ppm), uint256.NewInt(PPM))
		if cut.IsZero() {
			continue
		}
		dst := l.s.addr(e.field(uDst))
		if dst == (types.Address{}) {
			// Unbonding: the coins wait in the staking contract; burn the cut.
			l.s.setU256(e.field(uAmount), amount.Sub(amount, cut))
			l.s.st.SubBalance(StakingAddress, cut)
			l.burn(cut)
			l.addSlashed(v, cut)
			total.Add(total, cut)
			continue
		}
		// Redelegation: the coins are bonded to dst now; take the cut out of
		// the delegator's stake there (at most what is left of it).
		d := l.s.addr(e.field(uDelegator))
		if have := l.tokensOf(dst, l.delShares(d, dst)); have.Lt(cut) {
			cut = have
		}
		if cut.IsZero() {
			continue
		}
		if _, err := l.unbond(d, dst, cut); err != nil {
			continue // nothing left to take (shares rounded away)
		}
		l.s.st.SubBalance(StakingAddress, cut)
		l.burn(cut)
		l.addSlashed(v, cut)
		total.Add(total, cut)
	}
}

func (l *ledger) addSlashed(v types.Address, amount *uint256.Int) {
	vr := valRec(v)
	l.s.setU256(vr.field(vSlashed), new(uint256.Int).Add(l.s.u256(vr.field(vSlashed)), amount))
}

// redelegatedInRec holds when the last redelegation of d into v stops
// being slashable (seconds).
func redelegatedInRec(d, v types.Address) slot { return rec(StakingAddress, "redelegated", d[:], v[:]) }

// checkRedelegateFrom refuses to move stake out of src while stake that d
// redelegated into src is still slashable for src's predecessor: hopping
// on at once would carry it beyond the slash's reach (the Cosmos SDK
// refuses transitive redelegations for the same reason).
func (l *ledger) checkRedelegateFrom(d, src types.Address) error {
	if until := l.s.u64(redelegatedInRec(d, src)); l.now < until {
		return revert("stake redelegated to this validator cannot move on until " + strconv.FormatUint(until, 10))
	}
	return nil
}

// startRedelegation records that d moved amount from src to dst at this
// block, where it bought shares of dst: until restakeCooldown has passed,
// a slash of src for an earlier infraction reaches the moved stake at dst.
// The entry shares the unbonding queue (so it expires in order with it)
// but pays nothing; the shares are kept so a reader can tell what the
// moved stake is worth at dst now.
func (l *ledger) startRedelegation(p *Params, d, src, dst types.Address, amount, shares *uint256.Int) {
	l.s.setU64(redelegatedInRec(d, dst), l.now+secondsOf(p.RestakeCooldown))
	q := queueRec()
	tail := l.s.u64(q.field(qTail))
	e := entryRec(tail)
	l.s.setAddr(e.field(uDelegator), d)
	l.s.setAddr(e.field(uValidator), src)
	l.s.setU256(e.field(uAmount), amount)
	l.s.setU64(e.field(uCompletion), l.now+secondsOf(p.RestakeCooldown))
	l.s.setU64(e.field(uHeight), l.height)
	l.s.setAddr(e.field(uDst), dst)
	l.s.setU256(e.field(uShares), shares)
	l.s.setU64(q.field(qTail), tail+1)
}

// Redelegation is stake moved from one validator to another that a slash
// of the source for an earlier infraction can still reach.
type Redelegation struct {
	// ID numbers the entry in the unbonding queue it shares with the
	// unbonding entries (see UnbondingEntry.ID).
	ID                  uint64
	Delegator, Src, Dst types.Address
	Amount              *uint256.Int // moved
	SharesDst           *uint256.Int // shares of Dst it bought
	Balance             *uint256.Int // what those shares are worth at Dst now
	Completion          uint64       // s: no longer slashable from then on
	Height              uint64       // block that moved it
}

// ReadRedelegations returns the redelegations still slashable, in the
// order they were made: all of them, or those of one delegator.
func ReadRedelegations(st State, delegator *types.Address) []Redelegation {
	l := &ledger{s: store{st}}
	s := l.s
	q := queueRec()
	var out []Redelegation
	for i, tail := s.u64(q.field(qHead)), s.u64(q.field(qTail)); i < tail; i++ {
		e := entryRec(i)
		dst := s.addr(e.field(uDst))
		d := s.addr(e.field(uDelegator))
		if dst == (types.Address{}) || delegator != nil && d != *delegator {
			continue
		}
		sh := s.u256(e.field(uShares))
		out = append(out, Redelegation{ID: i + 1, Delegator: d, Src: s.addr(e.field(uValidator)), Dst: dst,
			Amount: s.u256(e.field(uAmount)), SharesDst: sh, Balance: l.tokensOf(dst, sh),
			Completion: s.u64(e.field(uCompletion)), Height: s.u64(e.field(uHeight))})
	}
	return out
}
