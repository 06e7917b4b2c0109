package staking

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A selected validator absent from every block for longer than
// maxSyncTime seconds (of block time, from the first block of its
// unbroken streak) loses syncTimeoutPenaltyPercent and is jailed; a block
// it signs ends the streak, so absences with signatures between them
// never add up. The missed-blocks rule is switched off here
// (maxMissedBlocks = missedBlocksWindow) to see this one alone.
func TestSyncTimeoutSlashAndJail(t *testing.T) {
	st, _, p := testLedger(t)
	p.MaxSyncTime, p.MaxMissedBlocks = 60, p.MissedBlocksWindow
	writeParams(st, &p)
	v, _ := ReadValidator(st, addr(1))
	absent := []types.Address{v.ConsensusAddress}
	block := func(n, time uint64, away bool) {
		t.Helper()
		b := Block{Number: n, Time: time}
		if away {
			b.Absent = absent
		}
		if err := EndBlock(st, b); err != nil {
			t.Fatal(err)
		}
	}
	// Blocks 10 s apart: absent for 50 s, signs once, absent for 60 s.
	for n := uint64(1); n <= 6; n++ {
		block(n, 1000+10*(n-1), true)
	}
	block(7, 1060, false)
	for n := uint64(8); n <= 14; n++ {
		block(n, 1070+10*(n-8), true)
	}
	if after, _ := ReadValidator(st, addr(1)); after.Jailed || !after.Slashed.IsZero() {
		t.Fatalf("punished within maxSyncTime: %+v", after)
	}
	// The streak goes past 60 s at block 15.
	block(15, 1140, true)
	after, _ := ReadValidator(st, addr(1))
	want, _ := new(uint256.Int).MulDivOverflow(chain(100), uint256.NewInt(p.SyncTimeoutPenalty), uint256.NewInt(PPM))
	if !after.Jailed || !after.Slashed.Eq(want) {
		t.Fatalf("after 70 s absent: %+v", after)
	}
	checkSlashLog(t, st, addr(1), SlashEvent{Height: 15, Infraction: 15, Reason: SlashSyncTimeout, PPM: p.SyncTimeoutPenalty, Amount: want, Time: 1140})
	// Jailed, it is punished once however long it stays away.
	for n := uint64(16); n <= 30; n++ {
		block(n, 1150+10*(n-16), true)
	}
	if again, _ := ReadValidator(st, addr(1)); !again.Slashed.Eq(want) {
		t.Fatalf("punished twice: slashed %v", again.Slashed)
	}
}
