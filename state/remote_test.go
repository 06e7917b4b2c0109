package state

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// trieRemote serves proofs and code from a complete state in another
// database, as an upstream node's eth_getProof and eth_getCode do.
type trieRemote struct {
	db            *trie.MemoryDB
	root          types.Hash
	proofs, codes int
	fail          error
}

func (r *trieRemote) Prove(addr types.Address, slots []types.Hash) ([][]byte, error) {
	if r.fail != nil {
		return nil, r.fail
	}
	r.proofs++
	t, err := trie.New(r.root, r.db)
	if err != nil {
		return nil, err
	}
	hk := crypto.Keccak256(addr[:])
	nodes, err := t.Prove(hk[:])
	if err != nil {
		return nil, err
	}
	enc, err := t.Get(hk[:])
	if err != nil || len(enc) == 0 || len(slots) == 0 {
		return nodes, err
	}
	acct, err := DecodeAccount(enc)
	if err != nil {
		return nil, err
	}
	st, err := trie.New(acct.Root, r.db)
	if err != nil {
		return nil, err
	}
	for _, s := range slots {
		sk := crypto.Keccak256(s[:])
		p, err := st.Prove(sk[:])
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, p...)
	}
	return nodes, nil
}

func (r *trieRemote) Code(addr types.Address, h types.Hash) ([]byte, error) {
	if r.fail != nil {
		return nil, r.fail
	}
	r.codes++
	return r.db.Node(h)
}

// upstream builds a state with many accounts and slots, so that its tries
// have branches several levels deep.
func upstream(t *testing.T) (*trieRemote, []types.Address) {
	t.Helper()
	s, db := newEmpty(t)
	var addrs []types.Address
	for i := 1; i <= 200; i++ {
		a := types.Address{0: byte(i), 19: byte(i)}
		addrs = append(addrs, a)
		s.SetBalance(a, uint256.NewInt(uint64(1000*i)))
		s.SetNonce(a, uint64(i))
	}
	c := addrs[0]
	s.SetCode(c, []byte{0x60, 0x01, 0x60, 0x00, 0x55})
	for i := 1; i <= 100; i++ {
		s.SetState(c, word(byte(i)), word(byte(i+1)))
	}
	root, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	return &trieRemote{db: db, root: root}, addrs
}

func TestRemoteReadsAsUpstream(t *testing.T) {
	r, addrs := upstream(t)
	local := trie.NewMemoryDB()
	s, err := NewWithRemote(r.root, local, r)
	if err != nil {
		t.Fatal(err)
	}
	c := addrs[0]
	if got := s.GetBalance(addrs[41]); got.Uint64() != 42000 {
		t.Fatalf("balance = %d, want 42000", got.Uint64())
	}
	if got := s.GetNonce(addrs[41]); got != 42 {
		t.Fatalf("nonce = %d", got)
	}
	if got := s.GetState(c, word(7)); got != word(8) {
		t.Fatalf("slot 7 = %s", got)
	}
	if got := s.GetState(c, word(200)); got != (types.Hash{}) {
		t.Fatalf("absent slot = %s", got)
	}
	if got := s.GetCode(c); len(got) != 5 {
		t.Fatalf("code = %x", got)
	}
	if s.Exist(types.Address{1, 2, 3}) {
		t.Fatal("an account upstream lacks exists")
	}
	if err := s.Error(); err != nil {
		t.Fatal(err)
	}
	if got := s.IntermediateRoot(true); got != r.root {
		t.Fatalf("unchanged partial state has root %s, upstream %s", got, r.root)
	}
	// A second state on the same database reads without the remote.
	before := r.proofs + r.codes
	s2, err := NewWithRemote(r.root, local, r)
	if err != nil {
		t.Fatal(err)
	}
	if s2.GetBalance(addrs[41]).Uint64() != 42000 || s2.GetState(c, word(7)) != word(8) || len(s2.GetCode(c)) != 5 {
		t.Fatal("second read differs")
	}
	if r.proofs+r.codes != before {
		t.Fatalf("cached reads went upstream %d times", r.proofs+r.codes-before)
	}
}

// TestRemoteWritesMatchFullState applies the same changes to the partial
// state and to the complete one and compares every value afterwards,
// through commits and reopening, including zeroed slots and deleted
// accounts (which a partial state must not resolve from upstream again).
func TestRemoteWritesMatchFullState(t *testing.T) {
	r, addrs := upstream(t)
	local := trie.NewMemoryDB()
	part, err := NewWithRemote(r.root, local, r)
	if err != nil {
		t.Fatal(err)
	}
	full, err := New(r.root, r.db)
	if err != nil {
		t.Fatal(err)
	}
	c := addrs[0]
	fresh := types.Address{0xee}
	for _, s := range []*StateDB{part, full} {
		s.BeginTx(types.Hash{}, 0)
		for i := 1; i <= 100; i += 3 {
			s.SetState(c, word(byte(i)), types.Hash{}) // zero: deletes
		}
		s.SetState(c, word(150), word(1))
		s.SubBalance(addrs[5], uint256.NewInt(6000))
		s.SetNonce(addrs[5], 0) // now empty: deleted at Finalise
		s.AddBalance(fresh, uint256.NewInt(9))
		s.Finalise(true)
	}
	if _, err := part.Commit(true); err != nil {
		t.Fatal(err)
	}
	fullRoot, err := full.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	partRoot := part.IntermediateRoot(true)
	again, err := NewWithRemote(partRoot, local, r)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := New(fullRoot, r.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range append(addrs, fresh) {
		if again.Exist(a) != ref.Exist(a) || again.GetBalance(a).Cmp(ref.GetBalance(a)) != 0 || again.GetNonce(a) != ref.GetNonce(a) {
			t.Fatalf("account %s: partial (%v %d %d) full (%v %d %d)", a.Hex(), again.Exist(a), again.GetBalance(a), again.GetNonce(a),
				ref.Exist(a), ref.GetBalance(a), ref.GetNonce(a))
		}
	}
	for i := 1; i <= 160; i++ {
		if got, want := again.GetState(c, word(byte(i))), ref.GetState(c, word(byte(i))); got != want {
			t.Fatalf("slot %d: partial %s, full %s", i, got, want)
		}
	}
	if err := again.Error(); err != nil {
		t.Fatal(err)
	}
}

func TestRemoteFailureIsAnError(t *testing.T) {
	r, addrs := upstream(t)
	s, err := NewWithRemote(r.root, trie.NewMemoryDB(), r)
	if err != nil {
		t.Fatal(err)
	}
	r.fail = errors.New("connection refused")
	s.GetBalance(addrs[9])
	if err := s.Error(); !errors.Is(err, ErrRemote) {
		t.Fatalf("error = %v, want ErrRemote", err)
	}
	if _, err := s.Commit(true); err == nil {
		t.Fatal("a state that failed a remote read committed")
	}
	// The failed account is not remembered as absent: once the remote
	// answers again, a reader gets it.
	r.fail = nil
	if got := s.GetBalance(addrs[9]); got.Uint64() != 10000 {
		t.Fatalf("balance after the remote recovered: %d", got.Uint64())
	}
	r.fail = errors.New("connection refused")
	if _, err := NewWithRemote(r.root, trie.NewMemoryDB(), r); !errors.Is(err, ErrRemote) {
		t.Fatalf("open with failing remote: %v", err)
	}
}

func TestRemoteWrongProofLeavesNodeMissing(t *testing.T) {
	r, addrs := upstream(t)
	// A different state whose proofs do not lead from r.root.
	o2, db2 := newEmpty(t)
	o2.SetBalance(addrs[3], uint256.NewInt(1))
	root2, _ := o2.Commit(true)
	liar := &trieRemote{db: db2, root: root2}
	local := trie.NewMemoryDB()
	// Seed only the root node, so every other node must come from the liar.
	rootNode, _ := r.db.Node(r.root)
	set := trie.NewNodeSet()
	set.Add(r.root, rootNode)
	local.Update(set)
	p, err := NewWithRemote(r.root, local, liar)
	if err != nil {
		t.Fatal(err)
	}
	p.GetBalance(addrs[3])
	if err := p.Error(); !errors.Is(err, trie.ErrMissingNode) {
		t.Fatalf("wrong proof: error %v, want a missing node", err)
	}
}
