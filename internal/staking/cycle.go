package staking

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// maxPower caps one validator's voting power, keeping the consensus
// engine's total power far from overflowing.
const maxPower = 1 << 40

// powerOf is the voting power of a bonded amount: whole coins.
func powerOf(tokens *uint256.Int) int64 {
	p := new(uint256.Int).Div(tokens, ether)
	if !p.IsUint64() || p.Uint64() > maxPower {
		return maxPower
	}
	return int64(p.Uint64())
}

// Block is what the end-of-block rules need of the block that just ran.
type Block struct {
	Number, Time uint64
	// TimeMs is the block's time in milliseconds where the chain records
	// it (pos.CheckTime), 0 where it does not: cycle records take it, so a
	// cycle of sub-second blocks has its true length.
	TimeMs uint64
	// Burned is what the block destroyed outside the system contracts:
	// the base fee of every transaction (EIP-1559).
	Burned *uint256.Int
	// DoubleSigns are the equivocations the block carries evidence of;
	// Absent the consensus addresses of the parent's validators missing
	// from the parent's commit certificate. Both come from the block's
	// consensus data; a block without any has neither.
	DoubleSigns []DoubleSign
	Absent      []types.Address
}

// EndBlock applies the chain's rules at the end of every block: it records
// the burned fees, pays matured unbonding entries, applies the penalties
// of the block's consensus data, closes governance proposals whose period
// is over, opens the record of a new cycle at its first block, chooses the
// next cycle's validators at its selection block and, at its last block,
// pays the cycle's rewards and fees, hands over to the chosen set and
// puts the parameters' cycle rule in force from the next cycle on.
func EndBlock(st State, b Block) error {
	l := &ledger{s: store{st}, now: b.Time, nowMs: b.TimeMs, height: b.Number}
	if l.nowMs == 0 {
		l.nowMs = b.Time * 1000
	}
	if b.Number == 1 {
		l.startClock()
	}
	if b.Burned != nil {
		l.burn(b.Burned)
	}
	l.matureUnbonding()
	if len(b.DoubleSigns) > 0 || len(b.Absent) > 0 {
		p := ReadParams(st)
		l.punish(&p, b)
	}
	if openProposals.len(l.s) > 0 {
		p := ReadParams(st)
		l.endProposals(&p)
	}
	l.applyPlan()
	cycles, err := ReadCycles(st)
	if err != nil {
		return err
	}
	c := cycles.Of(b.Number)
	// The selection block may be the cycle's first; it always comes before
	// its last (types.CycleRule.Check).
	if cycles.IsFirst(b.Number) {
		l.openCycle(c)
	}
	if cycles.IsSelection(b.Number) {
		p := ReadParams(st)
		l.selectValidators(&p, c)
	}
	if cycles.IsLast(b.Number) {
		l.endCycle(c)
		return l.nextRule(cycles, c)
	}
	return nil
}

// nextRule runs at cycle c's last block, after the proposals that closed
// in it: the cycle rule of the parameters as they are now takes effect at
// the next cycle's first block, the switch height, as a new era of the
// schedule. Every cycle so far keeps the rule it ran.
func (l *ledger) nextRule(cycles types.Cycles, c uint64) error {
	p := ReadParams(l.s.st)
	next, err := cycles.Then(c+1, p.CycleRule())
	if err != nil {
		return err
	}
	if len(next.Eras()) != len(cycles.Eras()) {
		writeCycles(l.s.st, next)
	}
	return nil
}

// The cycle schedule's record: the number of eras, then four words each
// (first block, first cycle, length, selection offset).
func erasRec() slot { return rec(StakingAddress, "eras") }

// ReadCycles returns the cycle schedule in the state: every era the chain
// has run, and the rule in force. A state from before the schedule was
// recorded ran the default rule throughout.
func ReadCycles(st State) (types.Cycles, error) {
	s, r := store{st}, erasRec()
	n := s.u64(r)
	if n == 0 {
		return types.DefaultCycles, nil
	}
	eras := make([]types.Era, 0, n)
	d := r.data()
	for i := range n {
		eras = append(eras, types.Era{Start: s.u64(d.field(4 * i)), Cycle: s.u64(d.field(4*i + 1)),
			CycleRule: types.CycleRule{Length: s.u64(d.field(4*i + 2)), Selection: s.u64(d.field(4*i + 3))}})
	}
	c, err := types.CyclesOf(eras)
	if err != nil {
		return types.Cycles{}, fmt.Errorf("staking: cycle schedule: %w", err)
	}
	return c, nil
}

// writeCycles records schedule c (it only ever grows by an era).
func writeCycles(st State, c types.Cycles) {
	s, r := store{st}, erasRec()
	eras := c.Eras()
	d := r.data()
	for i, e := range eras {
		i := uint64(i)
		s.setU64(d.field(4*i), e.Start)
		s.setU64(d.field(4*i+1), e.Cycle)
		s.setU64(d.field(4*i+2), e.Length)
		s.setU64(d.field(4*i+3), e.Selection)
	}
	s.setU64(r, uint64(len(eras)))
}

// startClock runs at the chain's first block: rewards accrue, and cycle 0
// runs, from its time on. A genesis time is set when the genesis file is
// written (a --dev genesis carries a fixed one so that chaind dev-genesis
// reproduces it), and the first block may come much later; paying for
// that gap would mint coins for time no validator served.
func (l *ledger) startClock() {
	l.s.setU64(supplyRec().field(sRewardedUntil), l.now)
	r := cycleRec(0)
	l.s.setU64(r.field(cyStart), l.nowMs)
	l.s.setU64(r.field(cyTimestamp), l.nowMs)
}

// matureUnbonding pays the entries whose cooldown is over. Entries are
// queued in block order, so the ones due are at the head; a cooldown
// shortened by governance only lets later entries wait for earlier ones.
func (l *ledger) matureUnbonding() {
	q := queueRec()
	head, tail := l.s.u64(q.field(qHead)), l.s.u64(q.field(qTail))
	for ; head < tail; head++ {
		e := entryRec(head)
		if l.s.u64(e.field(uCompletion)) > l.now {
			break
		}
		if l.s.addr(e.field(uDst)) == (types.Address{}) { // a redelegation pays nothing
			l.payOut(StakingAddress, l.s.addr(e.field(uDelegator)), l.s.u256(e.field(uAmount)))
		}
		for i := range uint64(uShares + 1) {
			l.s.setWord(e.field(i), types.Hash{})
		}
	}
	l.s.setU64(q.field(qHead), head)
}

// Validator set records: the validators of the current cycle ("active")
// and those chosen for the next ("next"), in the order they were chosen,
// three words each: operator, consensus address, power. Each set record's
// fields 1.. count validators by state when it was chosen.
func activeRec() slot { return rec(StakingAddress, "active") }

func nextRec() slot { return rec(StakingAddress, "next") }

// Count fields of a set record.
const (
	cActive = 1 + iota
	cStandby
	cJailed
)

// ActiveValidator is a member of the consensus set.
type ActiveValidator struct {
	Operator, ConsensusAddress types.Address
	Power                      int64
}

// ReadActiveSet returns the validators of the cycle the state's block
// belongs to (at a cycle's last block: of the next cycle).
func ReadActiveSet(st State) []ActiveValidator { return readSet(st, activeRec()) }

// ReadNextSet returns the validators chosen for the next cycle: from the
// cycle's selection block on (types.Cycles), the set the next cycle will run.
func ReadNextSet(st State) []ActiveValidator { return readSet(st, nextRec()) }

func readSet(st State, r slot) []ActiveValidator {
	s := store{st}
	n := s.u64(r)
	out := make([]ActiveValidator, 0, n)
	d := r.data()
	for i := range n {
		out = append(out, ActiveValidator{Operator: s.addr(d.field(3 * i)), ConsensusAddress: s.addr(d.field(3*i + 1)),
			Power: int64(s.u64(d.field(3*i + 2)))})
	}
	return out
}

// endCycle closes cycle c at its last block.
func (l *ledger) endCycle(c uint64) {
	p := ReadParams(l.s.st)
	l.payRewards(&p)
	l.copySet(nextRec(), activeRec())
	r := cycleRec(c)
	l.s.setU64(r.field(cyEnd), l.nowMs)
	l.s.setU64(r.field(cyTimestamp), l.nowMs)
}

// payRewards mints each active validator's reward for the time since the
// last payment or the first block (startClock), reward.amount per
// nodeRewardInterval, less its
// maintenance fee (maintenanceFee per maintenanceInterval, at most the
// reward, to the community pool), and splits the rest between its
// commission and its delegators. Jailed validators earn nothing.
func (l *ledger) payRewards(p *Params) {
	sr := supplyRec()
	since := l.s.u64(sr.field(sRewardedUntil))
	l.s.setU64(sr.field(sRewardedUntil), l.now)
	if l.now <= since {
		return
	}
	elapsed := uint256.NewInt((l.now - since) * 1000)
	reward, _ := new(uint256.Int).MulDivOverflow(p.Reward, elapsed, uint256.NewInt(p.NodeRewardInterval))
	fee, _ := new(uint256.Int).MulDivOverflow(p.MaintenanceFee, elapsed, uint256.NewInt(p.MaintenanceInterval))
	if fee.Gt(reward) {
		fee.Set(reward)
	}
	net := new(uint256.Int).Sub(reward, fee)
	for _, a := range ReadActiveSet(l.s.st) {
		if !l.exists(a.Operator) || l.s.bool(valRec(a.Operator).field(vJailed)) {
			continue
		}
		l.mint(reward)
		l.toPool(fee)
		l.allocate(a.Operator, net)
	}
}

// selectValidators decides every validator's state for the next cycle
// (the states show at once; the set takes over at the boundary):
// the top `desired` by bonded stake (ties by address) among those not
// jailed and staked at least requiredStake are active, the other such
// standby; the active set is written for the consensus engine. When no
// validator qualifies the previous set is kept, since an empty set would
// halt the chain for good.
func (l *ledger) selectValidators(p *Params, c uint64) {
	defer l.recordBonding(p, l.activeValidators())
	type cand struct {
		op     types.Address
		tokens *uint256.Int
	}
	var cands []cand
	var jailed, expired uint64
	for _, v := range validatorList.all(l.s) {
		vr := valRec(v)
		tokens := l.tokens(v)
		switch {
		case l.s.bool(vr.field(vJailed)):
			l.s.setU64(vr.field(vStatus), uint64(Jailed))
			jailed++
		case tokens.Lt(p.RequiredStake) || powerOf(tokens) == 0:
			l.s.setU64(vr.field(vStatus), uint64(Inactive))
		default:
			if Status(l.s.u64(vr.field(vStatus))) == Active && l.s.u64(vr.field(vLastAbsent)) != l.height {
				l.certRenew(v, c+1) // running and signing: renewed for the coming cycle
			}
			if !l.certValid(p, v, c+1) {
				l.s.setU64(vr.field(vStatus), uint64(Standby)) // certificate run out
				expired++
				continue
			}
			cands = append(cands, cand{v, tokens})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := b.tokens.Cmp(a.tokens); c != 0 {
			return c
		}
		return bytes.Compare(a.op[:], b.op[:])
	})
	if len(cands) == 0 {
		// A chain without validators stops for good; until someone can
		// take over, the last set stays (jailed or not).
		return
	}
	r := nextRec()
	old := l.s.u64(r)
	d := r.data()
	var n uint64
	for i, c := range cands {
		vr := valRec(c.op)
		if uint64(i) >= p.Desired {
			l.s.setU64(vr.field(vStatus), uint64(Standby))
			continue
		}
		l.s.setU64(vr.field(vStatus), uint64(Active))
		l.s.setAddr(d.field(3*n), c.op)
		l.s.setAddr(d.field(3*n+1), l.s.addr(vr.field(vConsAddr)))
		l.s.setU64(d.field(3*n+2), uint64(powerOf(c.tokens)))
		n++
	}
	for i := n; i < old; i++ {
		for j := range uint64(3) {
			l.s.setWord(d.field(3*i+j), types.Hash{})
		}
	}
	l.s.setU64(r, n)
	l.s.setU64(r.field(cActive), n)
	l.s.setU64(r.field(cStandby), uint64(len(cands))-n+expired)
	l.s.setU64(r.field(cJailed), jailed)
}

// copySet makes set record dst a copy of src: the chosen set takes over.
func (l *ledger) copySet(src, dst slot) {
	n, old := l.s.u64(src), l.s.u64(dst)
	sd, dd := src.data(), dst.data()
	for i := range 3 * max(n, old) {
		var w types.Hash
		if i < 3*n {
			w = l.s.word(sd.field(i))
		}
		l.s.setWord(dd.field(i), w)
	}
	for f := range uint64(cJailed + 1) {
		l.s.setWord(dst.field(f), l.s.word(src.field(f)))
	}
}

// Cycle record fields.
const (
	cyStart = iota // ms
	cyEnd          // ms; 0 while the cycle runs
	cyActive
	cyStandby
	cySyncing
	cyDesired
	cyMaxSyncTime // s
	cyTimestamp   // ms
	cyExists
)

func cycleRec(c uint64) slot {
	var k [8]byte
	for j := range 8 {
		k[7-j] = byte(c >> (8 * j))
	}
	return rec(StakingAddress, "cycle", k[:])
}

// openCycle starts the record of cycle c at its first block.
func (l *ledger) openCycle(c uint64) {
	p := ReadParams(l.s.st)
	r, cr := cycleRec(c), activeRec()
	l.s.setU64(r.field(cyStart), l.nowMs)
	l.s.setU64(r.field(cyActive), l.s.u64(cr.field(cActive)))
	l.s.setU64(r.field(cyStandby), l.s.u64(cr.field(cStandby)))
	l.s.setU64(r.field(cyDesired), p.Desired)
	l.s.setU64(r.field(cyMaxSyncTime), p.MaxSyncTime)
	l.s.setU64(r.field(cyTimestamp), l.nowMs)
	l.s.setBool(r.field(cyExists), true)
}

// CycleRecord is one cycle as the chain recorded it.
type CycleRecord struct {
	Counter                  uint64
	Start, End               uint64 // ms; End 0 while the cycle runs
	Active, Standby, Syncing uint64
	Desired                  uint64
	MaxSyncTime              uint64 // s
	Timestamp                uint64 // ms: when the record last changed
}

// ReadCycle returns the record of cycle c, if the state has it.
func ReadCycle(st State, c uint64) (CycleRecord, bool) {
	s, r := store{st}, cycleRec(c)
	if !s.bool(r.field(cyExists)) {
		return CycleRecord{}, false
	}
	return CycleRecord{Counter: c, Start: s.u64(r.field(cyStart)), End: s.u64(r.field(cyEnd)),
		Active: s.u64(r.field(cyActive)), Standby: s.u64(r.field(cyStandby)), Syncing: s.u64(r.field(cySyncing)),
		Desired: s.u64(r.field(cyDesired)), MaxSyncTime: s.u64(r.field(cyMaxSyncTime)), Timestamp: s.u64(r.field(cyTimestamp))}, true
}

// punish applies the penalties of a block's consensus data: a validator
// that signed two conflicting votes loses nodeRefutedPenaltyPercent of its
// stake and is jailed for restakeCooldown; one absent from more than
// maxMissedBlocks of a missedBlocksWindow-block window loses
// syncTimeoutPenaltyPercent and is jailed likewise. Jailing takes effect
// at the next cycle boundary, when the validator set changes.
func (l *ledger) punish(p *Params, b Block) {
	until := l.now + secondsOf(p.RestakeCooldown)
	for _, ds := range b.DoubleSigns {
		l.punishDoubleSign(p, ds, until)
	}
	if p.MissedBlocksWindow == 0 {
		return
	}
	window := b.Number / p.MissedBlocksWindow
	for _, ca := range b.Absent {
		v := l.s.addr(consRec(ca))
		if v == (types.Address{}) {
			continue
		}
		vr := valRec(v)
		// The counter holds window<<32 | misses, so a new window starts at 0.
		w := l.s.u64(vr.field(vMissed))
		missed := uint64(0)
		if w>>32 == window {
			missed = w & 0xffffffff
		}
		missed++
		l.s.setU64(vr.field(vMissed), window<<32|missed)
		if missed > p.MaxMissedBlocks && !l.s.bool(vr.field(vJailed)) {
			l.slashFrom(v, SlashMissedBlocks, p.SyncTimeoutPenalty, l.height)
			l.jail(v, until)
		}
		l.syncTimeout(p, v, until)
	}
}

// syncTimeout applies maxSyncTime to a validator this block records
// absent. A selected validator whose signatures stop reaching the
// proposers is down or catching up (what the node list shows as standby,
// then syncing); one that stays absent from every block for longer than
// maxSyncTime seconds of block time, counted from the first block of its
// unbroken streak of absences, loses syncTimeoutPenaltyPercent of its
// stake and is jailed for restakeCooldown, as the network the parameter
// comes from penalises a node that syncs too long. A block it signs (one
// that does not record it absent) ends the streak: the next absence
// starts a new one. Only absent validators are touched, so the rule costs
// nothing while everyone signs.
func (l *ledger) syncTimeout(p *Params, v types.Address, until uint64) {
	vr := valRec(v)
	since := l.s.u64(vr.field(vSilentSince))
	if l.s.u64(vr.field(vLastAbsent))+1 != l.height || since == 0 {
		since = l.now // a new streak
		l.s.setU64(vr.field(vSilentSince), since)
	}
	l.s.setU64(vr.field(vLastAbsent), l.height)
	if l.now-since > p.MaxSyncTime && !l.s.bool(vr.field(vJailed)) {
		l.slashFrom(v, SlashSyncTimeout, p.SyncTimeoutPenalty, l.height)
		l.jail(v, until)
		l.s.setU64(vr.field(vSilentSince), 0)
	}
}
