package state

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// The caches in front of the slot map and the access list (slotOf,
// warmHit) answer as the maps do after every change that takes an entry
// away: a reverted access, a new transaction, a copy, a destroyed account.
func TestLookupCaches(t *testing.T) {
	s, _ := newEmpty(t)
	a, b := addr(1), addr(2)
	k1, k2, k3 := word(1), word(2), word(3)

	s.BeginTx(types.Hash{}, 0)
	s.AddSlotToAccessList(a, k1)
	snap := s.Snapshot()
	s.AddSlotToAccessList(a, k2)
	if _, ok := s.SlotInAccessList(a, k2); !ok {
		t.Fatal("slot k2 added but cold")
	}
	s.RevertToSnapshot(snap)
	if _, ok := s.SlotInAccessList(a, k2); ok {
		t.Error("slot k2 warm after its addition was reverted")
	}
	if _, ok := s.SlotInAccessList(a, k1); !ok {
		t.Error("slot k1 cold, though added before the snapshot")
	}
	s.Finalise(false)
	s.BeginTx(types.Hash{}, 1)
	if _, ok := s.SlotInAccessList(a, k1); ok {
		t.Error("slot k1 still warm in the next transaction")
	}

	// Values through the slot cache: the last two keys, then a third.
	s.SetState(b, k1, word(10))
	s.SetState(b, k2, word(20))
	s.SetState(b, k3, word(30))
	for k, want := range map[types.Hash]types.Hash{k1: word(10), k2: word(20), k3: word(30)} {
		if got := s.GetState(b, k); got != want {
			t.Errorf("GetState(%x) = %x, want %x", k, got, want)
		}
	}
	// A copy reads and writes its own slots, not the original's.
	c := s.Copy()
	c.SetState(b, k3, word(31))
	if got := s.GetState(b, k3); got != word(30) {
		t.Errorf("original reads %x after the copy wrote, want %x", got, word(30))
	}
	if got := c.GetState(b, k3); got != word(31) {
		t.Errorf("copy reads %x, want %x", got, word(31))
	}
	// A destroyed account's storage is gone, whatever was cached for it.
	s.Finalise(false)
	s.BeginTx(types.Hash{}, 2)
	s.SelfDestruct(b)
	s.Finalise(true)
	s.BeginTx(types.Hash{}, 3)
	s.CreateAccount(b)
	if got := s.GetState(b, k3); got != (types.Hash{}) {
		t.Errorf("a destroyed account's slot reads %x, want zero", got)
	}
}
