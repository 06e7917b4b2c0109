package staking

import (
	"encoding/binary"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The slash log: every penalty a validator paid, in the order paid, so an
// explorer or an operator can tell when and why stake was taken without
// replaying blocks. Each validator's log is a count at slashLogRec(v) and
// entries at slashEntryRec(v, i), i from 0.

// SlashReason says why a penalty was taken.
type SlashReason uint64

const (
	SlashDoubleSign   SlashReason = 1 // signed two conflicting votes (nodeRefutedPenaltyPercent)
	SlashMissedBlocks SlashReason = 2 // missed more than maxMissedBlocks of a window (syncTimeoutPenaltyPercent)
	SlashLeftEarly    SlashReason = 3 // unbonded below the required stake within restakeCooldown (leftNetworkEarlyPenaltyPercent)
	SlashSyncTimeout  SlashReason = 4 // absent from consecutive blocks for longer than maxSyncTime (syncTimeoutPenaltyPercent)
)

// String names the reason as the explorer and the APIs show it.
func (r SlashReason) String() string {
	switch r {
	case SlashDoubleSign:
		return "double_sign"
	case SlashMissedBlocks:
		return "missed_blocks"
	case SlashLeftEarly:
		return "left_network_early"
	case SlashSyncTimeout:
		return "sync_timeout"
	}
	return "unknown"
}

// SlashEvent is one penalty in a validator's slash log.
type SlashEvent struct {
	Height     uint64 // the block that applied it
	Infraction uint64 // the block of the offence
	Reason     SlashReason
	PPM        uint64 // the fraction taken, parts per million
	Amount     *uint256.Int
	Time       uint64 // Unix seconds of block Height
}

// Fields of a slash log entry.
const (
	slHeight = iota
	slInfraction
	slReason
	slPPM
	slAmount
	slTime
)

func slashLogRec(v types.Address) slot { return rec(StakingAddress, "slashlog", v[:]) }

func slashEntryRec(v types.Address, i uint64) slot {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], i)
	return rec(StakingAddress, "slashentry", v[:], k[:])
}

// logSlash appends a penalty of amount to v's slash log; nothing taken,
// nothing logged.
func (l *ledger) logSlash(v types.Address, reason SlashReason, ppm, infraction uint64, amount *uint256.Int) {
	if amount.IsZero() {
		return
	}
	n := l.s.u64(slashLogRec(v))
	e := slashEntryRec(v, n)
	l.s.setU64(e.field(slHeight), l.height)
	l.s.setU64(e.field(slInfraction), infraction)
	l.s.setU64(e.field(slReason), uint64(reason))
	l.s.setU64(e.field(slPPM), ppm)
	l.s.setU256(e.field(slAmount), amount)
	l.s.setU64(e.field(slTime), l.now)
	l.s.setU64(slashLogRec(v), n+1)
}

// ReadSlashEvents returns v's slash log, oldest first.
func ReadSlashEvents(st State, v types.Address) []SlashEvent {
	s := store{st}
	n := s.u64(slashLogRec(v))
	out := make([]SlashEvent, 0, n)
	for i := range n {
		e := slashEntryRec(v, i)
		out = append(out, SlashEvent{Height: s.u64(e.field(slHeight)), Infraction: s.u64(e.field(slInfraction)),
			Reason: SlashReason(s.u64(e.field(slReason))), PPM: s.u64(e.field(slPPM)), Amount: s.u256(e.field(slAmount)),
			Time: s.u64(e.field(slTime))})
	}
	return out
}
