package state

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

func addr(b byte) types.Address { return types.Address{19: b} }
func word(b byte) types.Hash    { return types.Hash{31: b} }

func newEmpty(t testing.TB) (*StateDB, *trie.MemoryDB) {
	t.Helper()
	db := trie.NewMemoryDB()
	s, err := New(EmptyRoot, db)
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

func TestEmptyStateRoot(t *testing.T) {
	s, _ := newEmpty(t)
	if got := s.IntermediateRoot(true); got != EmptyRoot {
		t.Fatalf("empty root = %s, want %s", got, EmptyRoot)
	}
}

func TestAccountRLPRoundTrip(t *testing.T) {
	a := Account{Nonce: 7, Root: EmptyRoot, CodeHash: EmptyCodeHash}
	a.Balance.SetUint64(1e18)
	got, err := DecodeAccount(a.AppendRLP(nil))
	if err != nil || got != a {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{nil, {0xc0}, {0x80}, append(a.AppendRLP(nil), 0)} {
		if _, err := DecodeAccount(bad); err == nil {
			t.Errorf("DecodeAccount(%x) succeeded", bad)
		}
	}
}

func TestEmptyAccountDeletion(t *testing.T) {
	for _, deleteEmpty := range []bool{false, true} {
		s, _ := newEmpty(t)
		s.AddBalance(addr(1), new(uint256.Int)) // touch creates an empty account
		s.SetNonce(addr(2), 1)                  // not empty
		s.Finalise(deleteEmpty)
		if got := s.Exist(addr(1)); got == deleteEmpty {
			t.Errorf("deleteEmpty=%v: empty touched account exists=%v", deleteEmpty, got)
		}
		if !s.Exist(addr(2)) {
			t.Errorf("deleteEmpty=%v: non-empty account deleted", deleteEmpty)
		}
	}
}

func TestRevertedTouchKeepsEmptyAccount(t *testing.T) {
	s, db := newEmpty(t)
	s.CreateAccount(addr(1)) // exists, empty
	root, err := s.Commit(false)
	if err != nil {
		t.Fatal(err)
	}
	s, _ = New(root, db)
	snap := s.Snapshot()
	s.AddBalance(addr(1), new(uint256.Int))
	s.RevertToSnapshot(snap)
	s.Finalise(true)
	if !s.Exist(addr(1)) {
		t.Fatal("reverted touch deleted the account")
	}
	// The RIPEMD-160 precompile is the exception: its touch survives.
	s.CreateAccount(ripemd)
	if _, err := s.Commit(false); err != nil {
		t.Fatal(err)
	}
	snap = s.Snapshot()
	s.AddBalance(ripemd, new(uint256.Int))
	s.RevertToSnapshot(snap)
	s.Finalise(true)
	if s.Exist(ripemd) {
		t.Fatal("reverted touch of 0x03 must still delete it")
	}
}

// A touch of an account already touched by a surviving change, or of a
// non-empty account, journals nothing; reverting only the later touch
// leaves the earlier one counted, and each rule keeps EIP-161's outcome.
func TestMootTouches(t *testing.T) {
	s, db := newEmpty(t)
	s.CreateAccount(addr(1)) // exists, empty
	s.SetNonce(addr(2), 1)   // not empty
	root, err := s.Commit(false)
	if err != nil {
		t.Fatal(err)
	}
	s, _ = New(root, db)
	s.AddBalance(addr(1), new(uint256.Int)) // the touch that counts
	n := s.Snapshot()
	for range 3 {
		snap := s.Snapshot()
		s.AddBalance(addr(1), new(uint256.Int))
		s.SubBalance(addr(1), new(uint256.Int))
		s.AddBalance(addr(2), new(uint256.Int))
		s.SubBalance(addr(2), new(uint256.Int))
		if s.Snapshot() != n {
			t.Fatalf("moot touches journaled %d entries", s.Snapshot()-n)
		}
		s.RevertToSnapshot(snap)
	}
	s.Finalise(true)
	if s.Exist(addr(1)) {
		t.Error("touched empty account survived Finalise")
	}
	if !s.Exist(addr(2)) {
		t.Error("non-empty account deleted")
	}
}

func TestSelfDestruct6780(t *testing.T) {
	s, _ := newEmpty(t)
	old, fresh := addr(1), addr(2)
	s.SetNonce(old, 1)
	s.SetCode(old, []byte{0x00})
	s.Finalise(true)

	s.BeginTx(types.Hash{}, 0)
	s.CreateAccount(fresh)
	s.CreateContract(fresh)
	s.SetCode(fresh, []byte{0x01})
	s.AddBalance(fresh, uint256.NewInt(5))
	s.SelfDestruct6780(fresh)
	s.SelfDestruct6780(old)
	if !s.HasSelfDestructed(fresh) || s.HasSelfDestructed(old) {
		t.Fatalf("destructed: fresh=%v old=%v", s.HasSelfDestructed(fresh), s.HasSelfDestructed(old))
	}
	if !s.GetBalance(fresh).IsZero() {
		t.Fatal("destructed balance not zeroed")
	}
	if !s.Exist(fresh) {
		t.Fatal("destructed account must exist until the end of the tx")
	}
	s.Finalise(true)
	if s.Exist(fresh) || !s.Exist(old) {
		t.Fatalf("after finalise: fresh exists=%v old exists=%v", s.Exist(fresh), s.Exist(old))
	}

	// In a later transaction the contract is no longer "created in this tx".
	s.BeginTx(types.Hash{}, 1)
	s.CreateAccount(fresh)
	s.CreateContract(fresh)
	s.Finalise(true)
	s.BeginTx(types.Hash{}, 2)
	s.SetNonce(fresh, 1)
	s.SelfDestruct6780(fresh)
	if s.HasSelfDestructed(fresh) {
		t.Fatal("SelfDestruct6780 destroyed a contract created by an earlier tx")
	}
}

func TestTransientStorageRevert(t *testing.T) {
	s, _ := newEmpty(t)
	a := addr(1)
	s.SetTransientState(a, word(1), word(9))
	snap := s.Snapshot()
	s.SetTransientState(a, word(1), word(10))
	s.SetTransientState(a, word(2), word(11))
	s.RevertToSnapshot(snap)
	if got := s.GetTransientState(a, word(1)); got != word(9) {
		t.Fatalf("slot 1 = %s after revert", got)
	}
	if got := s.GetTransientState(a, word(2)); !got.IsZero() {
		t.Fatalf("slot 2 = %s after revert", got)
	}
	s.Finalise(true)
	s.BeginTx(types.Hash{}, 1)
	if got := s.GetTransientState(a, word(1)); !got.IsZero() {
		t.Fatal("transient storage survived the transaction")
	}
}

func TestCommittedState(t *testing.T) {
	s, _ := newEmpty(t)
	a := addr(1)
	s.SetNonce(a, 1)
	s.SetState(a, word(1), word(1))
	s.Finalise(true)
	s.BeginTx(types.Hash{}, 1)
	s.SetState(a, word(1), word(2))
	if got := s.GetCommittedState(a, word(1)); got != word(1) {
		t.Fatalf("committed = %s, want value from the previous tx", got)
	}
	if got := s.GetState(a, word(1)); got != word(2) {
		t.Fatalf("current = %s", got)
	}
}

func TestCommitAndReopenOldRoot(t *testing.T) {
	s, db := newEmpty(t)
	a := addr(1)
	s.SetBalance(a, uint256.NewInt(100))
	s.SetCode(a, []byte{0x60, 0x00})
	s.SetState(a, word(1), word(1))
	s.SetState(a, word(2), word(2))
	root1, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	s.SetState(a, word(1), types.Hash{})
	s.SetState(a, word(3), word(3))
	s.SetBalance(a, uint256.NewInt(50))
	s.SetNonce(addr(2), 1)
	root2, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	if root1 == root2 {
		t.Fatal("roots equal after changes")
	}
	old, err := New(root1, db)
	if err != nil {
		t.Fatal(err)
	}
	if got := old.GetBalance(a).Uint64(); got != 100 {
		t.Errorf("old balance %d", got)
	}
	if got := old.GetState(a, word(1)); got != word(1) {
		t.Errorf("old slot 1 = %s", got)
	}
	if got := old.GetState(a, word(3)); !got.IsZero() {
		t.Errorf("old slot 3 = %s", got)
	}
	if old.Exist(addr(2)) {
		t.Error("account of the newer root visible at the old root")
	}
	if got := old.GetCode(a); len(got) != 2 {
		t.Errorf("code %x", got)
	}
	cur, err := New(root2, db)
	if err != nil {
		t.Fatal(err)
	}
	if got := cur.GetState(a, word(3)); got != word(3) {
		t.Errorf("new slot 3 = %s", got)
	}
	if got := cur.IntermediateRoot(true); got != root2 {
		t.Errorf("reopened root %s, want %s", got, root2)
	}
	for _, st := range []*StateDB{old, cur} {
		if err := st.Error(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStorageClearedOnRecreate(t *testing.T) {
	s, db := newEmpty(t)
	a := addr(1)
	s.SetNonce(a, 1)
	s.SetState(a, word(1), word(1))
	root, _ := s.Commit(true)
	s, _ = New(root, db)
	s.SelfDestruct(a)
	s.Finalise(true)
	s.BeginTx(types.Hash{}, 1)
	if s.Exist(a) {
		t.Fatal("destructed account exists in the next tx")
	}
	s.CreateAccount(a)
	s.SetNonce(a, 1)
	if got := s.GetState(a, word(1)); !got.IsZero() {
		t.Fatalf("storage of the destructed account visible: %s", got)
	}
	if got := s.GetCommittedState(a, word(1)); !got.IsZero() {
		t.Fatalf("committed storage of the destructed account visible: %s", got)
	}
	// Same as building the account from scratch.
	fresh, _ := newEmpty(t)
	fresh.SetNonce(a, 1)
	if got, want := s.IntermediateRoot(true), fresh.IntermediateRoot(true); got != want {
		t.Fatalf("root %s, want %s", got, want)
	}
	if err := s.Error(); err != nil {
		t.Fatal(err)
	}
}

func TestAccessListRevert(t *testing.T) {
	s, _ := newEmpty(t)
	s.AddAddressToAccessList(addr(1))
	snap := s.Snapshot()
	s.AddSlotToAccessList(addr(2), word(1))
	s.AddSlotToAccessList(addr(1), word(1))
	if a, sl := s.SlotInAccessList(addr(2), word(1)); !a || !sl {
		t.Fatal("slot not added")
	}
	s.RevertToSnapshot(snap)
	if s.AddressInAccessList(addr(2)) {
		t.Fatal("address added with a slot survived the revert")
	}
	if a, sl := s.SlotInAccessList(addr(1), word(1)); !a || sl {
		t.Fatalf("addr 1: address %v slot %v", a, sl)
	}
}

func TestCodeHashOfAbsentAndEmpty(t *testing.T) {
	s, _ := newEmpty(t)
	if h := s.GetCodeHash(addr(1)); !h.IsZero() {
		t.Fatalf("absent account code hash %s", h)
	}
	s.CreateAccount(addr(1))
	if h := s.GetCodeHash(addr(1)); h != EmptyCodeHash {
		t.Fatalf("empty account code hash %s", h)
	}
}

func TestCreateAccountKeepsBalance(t *testing.T) {
	s, _ := newEmpty(t)
	s.SetBalance(addr(1), uint256.NewInt(7))
	s.SetState(addr(1), word(1), word(1))
	s.Finalise(false)
	s.CreateAccount(addr(1))
	if s.GetBalance(addr(1)).Uint64() != 7 {
		t.Fatal("balance lost")
	}
	if !s.GetState(addr(1), word(1)).IsZero() {
		t.Fatal("storage kept")
	}
}

func TestCopyIndependent(t *testing.T) {
	s, _ := newEmpty(t)
	s.SetBalance(addr(1), uint256.NewInt(1))
	s.SetState(addr(1), word(1), word(1))
	s.Finalise(true)
	snap := s.Snapshot()
	s.SetState(addr(1), word(1), word(2))
	s.SetCode(addr(1), []byte{1, 2})
	c := s.Copy()
	c.RevertToSnapshot(snap)
	if got := c.GetState(addr(1), word(1)); got != word(1) {
		t.Fatalf("copy after revert: %s", got)
	}
	if got := s.GetState(addr(1), word(1)); got != word(2) {
		t.Fatalf("original changed by the copy's revert: %s", got)
	}
	if len(c.GetCode(addr(1))) != 0 || len(s.GetCode(addr(1))) != 2 {
		t.Fatal("code revert leaked between copies")
	}
	s.RevertToSnapshot(snap)
	if s.IntermediateRoot(true) != c.IntermediateRoot(true) {
		t.Fatal("roots differ after the same revert")
	}
}

func TestSetStorageReplacesAll(t *testing.T) {
	s, db := newEmpty(t)
	a := addr(1)
	s.SetNonce(a, 3)
	s.SetBalance(a, uint256.NewInt(9))
	s.SetCode(a, []byte{0x60})
	s.SetState(a, word(1), word(1))
	s.SetState(a, word(2), word(2))
	root, _ := s.Commit(true)
	s, _ = New(root, db)
	s.SetStorage(a, map[types.Hash]types.Hash{word(2): word(7), word(3): word(3)})
	s.Finalise(false)
	if got := s.GetState(a, word(1)); !got.IsZero() {
		t.Fatalf("old slot survived: %s", got)
	}
	if got := s.GetCommittedState(a, word(2)); got != word(7) {
		t.Fatalf("committed slot 2 = %s", got)
	}
	if s.GetNonce(a) != 3 || s.GetBalance(a).Uint64() != 9 || len(s.GetCode(a)) != 1 {
		t.Fatal("account fields not kept")
	}
	want, _ := newEmpty(t)
	want.SetNonce(a, 3)
	want.SetBalance(a, uint256.NewInt(9))
	want.SetCode(a, []byte{0x60})
	want.SetState(a, word(2), word(7))
	want.SetState(a, word(3), word(3))
	if got, w := s.IntermediateRoot(false), want.IntermediateRoot(false); got != w {
		t.Fatalf("root %s, want %s", got, w)
	}
}
