package state

import (
	"bytes"
	"maps"
	"math"
	"math/rand"
	"testing"
	"unsafe"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// model is a naive world state, one transaction at a time: every snapshot
// is a deep copy, so reverting is trivially right.
type model struct {
	accts     map[types.Address]*mAcct
	touched   map[types.Address]bool
	refund    uint64
	transient map[slotKey]types.Hash
	warmAddr  map[types.Address]bool
	warmSlot  map[slotKey]bool
	logs      int
	// ripemdQuirk is shared by every clone, so it survives reverts: a
	// zero-value credit to 0x03 counts as a touch even when reverted.
	ripemdQuirk *bool
}

type mAcct struct {
	nonce      uint64
	bal        uint256.Int
	code       []byte
	storage    map[types.Hash]types.Hash
	committed  map[types.Hash]types.Hash // storage when the transaction began; replaced, never written
	destructed bool
	created    bool
}

func (m *model) clone() *model {
	c := &model{
		accts: map[types.Address]*mAcct{}, touched: maps.Clone(m.touched), refund: m.refund,
		transient: maps.Clone(m.transient), warmAddr: maps.Clone(m.warmAddr), warmSlot: maps.Clone(m.warmSlot), logs: m.logs,
		ripemdQuirk: m.ripemdQuirk,
	}
	for a, x := range m.accts {
		y := *x
		y.storage = maps.Clone(x.storage)
		c.accts[a] = &y
	}
	return c
}

func (m *model) get(a types.Address) *mAcct {
	x := m.accts[a]
	if x == nil {
		x = &mAcct{storage: map[types.Hash]types.Hash{}}
		m.accts[a] = x
	}
	m.touched[a] = true
	return x
}

func newModel() *model {
	return &model{accts: map[types.Address]*mAcct{}, touched: map[types.Address]bool{},
		transient: map[slotKey]types.Hash{}, warmAddr: map[types.Address]bool{}, warmSlot: map[slotKey]bool{},
		ripemdQuirk: new(bool)}
}

// touchedAtEnd is the set Finalise must treat as touched.
func (m *model) touchedAtEnd(a types.Address) bool {
	return m.touched[a] || (a == ripemd && *m.ripemdQuirk)
}

var (
	testAddrs = []types.Address{addr(1), addr(2), addr(3), ripemd}
	testKeys  = []types.Hash{word(1), word(2), word(3)}
)

// step applies one random operation to both s and m.
func step(r *rand.Rand, s *StateDB, m *model) string {
	a := testAddrs[r.Intn(len(testAddrs))]
	k := testKeys[r.Intn(len(testKeys))]
	v := word(byte(r.Intn(3)))
	n := uint256.NewInt(uint64(r.Intn(3)))
	switch r.Intn(15) {
	case 0:
		s.CreateAccount(a)
		old := m.accts[a]
		x := &mAcct{storage: map[types.Hash]types.Hash{}} // and nothing committed
		if old != nil {
			x.bal = old.bal
		}
		m.accts[a] = x
		m.touched[a] = true
		return "CreateAccount"
	case 1:
		s.AddBalance(a, n)
		if a == ripemd && n.IsZero() {
			*m.ripemdQuirk = true
		}
		x := m.get(a)
		x.bal.Add(&x.bal, n)
		return "AddBalance"
	case 2:
		if m.accts[a] == nil || m.accts[a].bal.Lt(n) {
			return "noop"
		}
		s.SubBalance(a, n)
		x := m.get(a)
		x.bal.Sub(&x.bal, n)
		return "SubBalance"
	case 3:
		s.SetNonce(a, n.Uint64())
		m.get(a).nonce = n.Uint64()
		return "SetNonce"
	case 4:
		code := bytes.Repeat([]byte{byte(r.Intn(2))}, r.Intn(3))
		s.SetCode(a, code)
		m.get(a).code = code
		return "SetCode"
	case 5, 6:
		s.SetState(a, k, v)
		x := m.accts[a]
		cur := types.Hash{}
		if x != nil {
			cur = x.storage[k]
		}
		if x == nil || cur != v {
			m.get(a).storage[k] = v
		}
		return "SetState"
	case 7:
		s.SetTransientState(a, k, v)
		m.transient[slotKey{a, k}] = v
		return "SetTransientState"
	case 8:
		if x := m.accts[a]; x != nil {
			x.destructed = true
			x.bal.Clear()
			m.touched[a] = true
		}
		s.SelfDestruct(a)
		return "SelfDestruct"
	case 9:
		s.CreateContract(a)
		m.get(a).created = true
		return "CreateContract"
	case 10:
		if x := m.accts[a]; x != nil && x.created {
			x.destructed = true
			x.bal.Clear()
			m.touched[a] = true
		}
		s.SelfDestruct6780(a)
		return "SelfDestruct6780"
	case 11:
		g := uint64(r.Intn(100))
		if r.Intn(2) == 0 {
			s.AddRefund(g)
			m.refund += g
		} else if g <= m.refund {
			s.SubRefund(g)
			m.refund -= g
		}
		return "Refund"
	case 12:
		s.AddAddressToAccessList(a)
		m.warmAddr[a] = true
		return "AddAddress"
	case 13:
		s.AddSlotToAccessList(a, k)
		m.warmAddr[a] = true
		m.warmSlot[slotKey{a, k}] = true
		return "AddSlot"
	default:
		s.AddLog(&types.Log{Address: a})
		m.logs++
		return "AddLog"
	}
}

func compare(t *testing.T, s *StateDB, m *model, ctx string) {
	t.Helper()
	for _, a := range testAddrs {
		x := m.accts[a]
		if s.Exist(a) != (x != nil) {
			t.Fatalf("%s: Exist(%x) = %v", ctx, a[19], s.Exist(a))
		}
		if x == nil {
			continue
		}
		if !s.GetBalance(a).Eq(&x.bal) || s.GetNonce(a) != x.nonce || !bytes.Equal(s.GetCode(a), x.code) {
			t.Fatalf("%s: account %x: bal %v/%v nonce %d/%d code %x/%x", ctx, a[19], s.GetBalance(a), &x.bal, s.GetNonce(a), x.nonce, s.GetCode(a), x.code)
		}
		if s.GetCodeHash(a) != codeHash(x.code) {
			t.Fatalf("%s: code hash of %x", ctx, a[19])
		}
		if s.HasSelfDestructed(a) != x.destructed {
			t.Fatalf("%s: destructed(%x) = %v", ctx, a[19], s.HasSelfDestructed(a))
		}
		for _, k := range testKeys {
			if got := s.GetState(a, k); got != x.storage[k] {
				t.Fatalf("%s: storage %x[%x] = %x want %x", ctx, a[19], k[31], got[31], x.storage[k][31])
			}
		}
	}
	for _, a := range testAddrs {
		if s.AddressInAccessList(a) != m.warmAddr[a] {
			t.Fatalf("%s: warm(%x)", ctx, a[19])
		}
		for _, k := range testKeys {
			if _, ok := s.SlotInAccessList(a, k); ok != m.warmSlot[slotKey{a, k}] {
				t.Fatalf("%s: warm slot", ctx)
			}
			var cur, committed types.Hash
			if x := m.accts[a]; x != nil {
				cur, committed = x.storage[k], x.committed[k]
			}
			if c, v, w := s.SlotState(a, k); c != committed || v != cur || w != m.warmSlot[slotKey{a, k}] {
				t.Fatalf("%s: SlotState(%x, %x) = %x, %x, %v; want %x, %x, %v", ctx, a[19], k[31], c[31], v[31], w, committed[31], cur[31], m.warmSlot[slotKey{a, k}])
			}
			if s.GetTransientState(a, k) != m.transient[slotKey{a, k}] {
				t.Fatalf("%s: transient", ctx)
			}
		}
	}
	if s.GetRefund() != m.refund || len(s.Logs()) != m.logs {
		t.Fatalf("%s: refund %d/%d logs %d/%d", ctx, s.GetRefund(), m.refund, len(s.Logs()), m.logs)
	}
}

// TestJournalAgainstModel runs random operations with nested snapshots
// and reverts, three transactions in a row, and checks every observable
// value against the model.
func TestJournalAgainstModel(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		s, _ := newEmpty(t)
		m := newModel()
		var trace []string
		for tx := 0; tx < 3; tx++ {
			s.BeginTx(types.Hash{}, tx)
			m.beginTx()
			type snap struct {
				id int
				m  *model
			}
			var snaps []snap
			for i := 0; i < 80; i++ {
				if r.Intn(30) == 0 {
					// A copy carries the journal, snapshots and warm marks on.
					s = s.Copy()
					trace = append(trace, "Copy")
				}
				switch r.Intn(8) {
				case 0:
					snaps = append(snaps, snap{s.Snapshot(), m.clone()})
					trace = append(trace, "Snapshot")
				case 1:
					if len(snaps) == 0 {
						continue
					}
					j := r.Intn(len(snaps))
					s.RevertToSnapshot(snaps[j].id)
					m = snaps[j].m
					snaps = snaps[:j]
					trace = append(trace, "Revert")
				default:
					trace = append(trace, step(r, s, m))
				}
				compare(t, s, m, "seed "+itoa(seed)+" tx "+itoa(int64(tx))+" after "+trace[len(trace)-1])
			}
			// End of transaction: destructed and touched-empty accounts go.
			s.Finalise(true)
			for _, a := range testAddrs {
				x := m.accts[a]
				want := x != nil && !x.destructed && !(m.touchedAtEnd(a) && x.nonce == 0 && x.bal.IsZero() && len(x.code) == 0)
				if got := s.Exist(a); got != want {
					t.Fatalf("seed %d tx %d: after Finalise Exist(%x) = %v, want %v; trace %v", seed, tx, a[19], got, want, trace)
				}
				if !want {
					delete(m.accts, a)
				}
			}
		}
	}
}

// beginTx starts the model's next transaction: nothing warm, transient or
// touched, no refund or logs, the storage as it stands committed.
func (m *model) beginTx() {
	m.touched, m.transient = map[types.Address]bool{}, map[slotKey]types.Hash{}
	m.warmAddr, m.warmSlot = map[types.Address]bool{}, map[slotKey]bool{}
	m.refund, m.logs, m.ripemdQuirk = 0, 0, new(bool)
	for _, x := range m.accts {
		x.committed = maps.Clone(x.storage)
		x.created, x.destructed = false, false
	}
}

func itoa(i int64) string {
	return string(append([]byte(nil), []byte(uint256.NewInt(uint64(i)).Dec())...))
}

// The journal entry stays at 96 bytes: SSTORE, SLOAD's warming and every
// balance change write one, and a wider one is copied and cleared at that
// cost on each.
func TestJournalEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(journalEntry{}); n != 96 {
		t.Errorf("journalEntry is %d bytes, want 96", n)
	}
}

// When the transaction counter wraps, the warm marks of 2^32 transactions
// ago must not read as current.
func TestTxSeqWrap(t *testing.T) {
	s, _ := newEmpty(t)
	a, k := addr(1), word(1)
	s.SetState(a, k, word(2))
	s.AddSlotToAccessList(a, k)
	s.Finalise(false)
	s.txSeq = math.MaxUint32 // as after that many transactions
	s.objects[a].slots[k].warmTx = 1
	s.BeginTx(types.Hash{}, 0)
	if s.txSeq != 1 {
		t.Fatalf("txSeq %d after the wrap, want 1", s.txSeq)
	}
	if _, ok := s.SlotInAccessList(a, k); ok {
		t.Error("a slot warm 2^32 transactions ago reads warm")
	}
	s.AddSlotToAccessList(a, k)
	if _, ok := s.SlotInAccessList(a, k); !ok {
		t.Error("a slot warmed after the wrap reads cold")
	}
}
