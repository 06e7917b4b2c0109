package staking

import (
	"testing"

	"github.com/holiman/uint256"
)

// TestBondingRecord: the selection block that makes a validator active
// records its start height; the one that takes it out records its
// unbonding height and the end of the cooldown from then. Genesis
// validators start at height 0.
func TestBondingRecord(t *testing.T) {
	st := NewMemState()
	p := DefaultParams()
	p.Desired = 2
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100), genesisValidator(t, 2, 50), genesisValidator(t, 3, 10)}}
	if err := InitGenesis(st, g, 1000, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	for i, want := range []Bonding{{}, {}, {}} {
		if got := ReadBonding(st, addr(byte(i+1))); got != want {
			t.Fatalf("validator %d at genesis: %+v", i+1, got)
		}
	}
	// Validator 3 gets more stake than 2; the next selection swaps them.
	l := &ledger{s: store{st}, now: 1010, height: 12}
	st.AddBalance(StakingAddress, chain(60))
	if _, err := l.bond(addr(9), addr(3), chain(60)); err != nil {
		t.Fatal(err)
	}
	if err := EndBlock(st, Block{Number: 15, Time: 1015}); err != nil {
		t.Fatal(err)
	}
	if v, _ := ReadValidator(st, addr(3)); v.Status != Active {
		t.Fatalf("validator 3 %v", v.Status)
	}
	if got := ReadBonding(st, addr(3)); got != (Bonding{StartHeight: 15}) {
		t.Fatalf("validator 3 joined: %+v", got)
	}
	end := 1015 + secondsOf(p.RestakeCooldown)
	if got := ReadBonding(st, addr(2)); got != (Bonding{UnbondingHeight: 15, UnbondingEnd: end}) {
		t.Fatalf("validator 2 left: %+v", got)
	}
	if got := ReadBonding(st, addr(1)); got != (Bonding{}) {
		t.Fatalf("validator 1 stayed: %+v", got)
	}
	// A selection that changes nothing records nothing.
	if err := EndBlock(st, Block{Number: 25, Time: 1025}); err != nil {
		t.Fatal(err)
	}
	if got := ReadBonding(st, addr(2)); got != (Bonding{UnbondingHeight: 15, UnbondingEnd: end}) {
		t.Fatalf("validator 2 after a quiet selection: %+v", got)
	}
}

// TestUnbondingIDs: entries are numbered from 1 in the order they were
// started, and an entry keeps its number when earlier ones are paid.
func TestUnbondingIDs(t *testing.T) {
	st, l, p := testLedger(t)
	d := addr(9)
	st.AddBalance(StakingAddress, chain(50))
	if _, err := l.bond(d, addr(1), chain(50)); err != nil {
		t.Fatal(err)
	}
	_, _, first, err := l.undelegate(&p, d, addr(1), chain(1))
	if err != nil {
		t.Fatal(err)
	}
	l.now, l.height = l.now+10, 2
	if _, _, _, err := l.undelegate(&p, d, addr(1), chain(2)); err != nil {
		t.Fatal(err)
	}
	es := ReadUnbonding(st, &d)
	if len(es) != 2 || es[0].ID != 1 || es[1].ID != 2 || es[0].Height != 1 || es[1].Height != 2 {
		t.Fatalf("entries %+v", es)
	}
	if err := EndBlock(st, Block{Number: 3, Time: first}); err != nil {
		t.Fatal(err)
	}
	if es := ReadUnbonding(st, &d); len(es) != 1 || es[0].ID != 2 || !es[0].Amount.Eq(chain(2)) {
		t.Fatalf("after the first is paid: %+v", es)
	}
}
