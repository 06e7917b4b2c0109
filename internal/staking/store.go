package staking

import (
	"encoding/binary"
	"sync"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// State is the part of the world state the system contracts use. The
// state package's StateDB implements it; so does the in-memory MemState
// that builds the genesis storage.
type State interface {
	GetState(types.Address, types.Hash) types.Hash
	SetState(types.Address, types.Hash, types.Hash)
	GetBalance(types.Address) *uint256.Int
	AddBalance(types.Address, *uint256.Int)
	SubBalance(types.Address, *uint256.Int)
}

// Storage layout. Every record lives at a base slot derived from a tag
// and its keys, base = keccak256(tag ‖ key…), and its fields at base+0,
// base+1, …: a record is as cheap to read one field of as a Solidity
// struct in a mapping, and eth_getProof proves any field. A string field
// holds its byte length; the bytes follow at keccak256(field slot)+0, +1, …
// in 32-byte words. A list holds its length at its base and item i at
// keccak256(base)+i.

// slot is a storage key of one contract.
type slot struct {
	addr types.Address
	key  types.Hash
}

// rec returns the base slot of the record tag(keys…) of contract addr.
// One transaction derives the same few records many times (a delegation
// reads its validator's record in every step), so recent derivations are
// remembered: the hash costs more than the lookup.
func rec(addr types.Address, tag string, keys ...[]byte) slot {
	var buf [128]byte
	k := append(buf[:0], tag...)
	for _, key := range keys {
		k = append(k, key...)
	}
	recMemo.Lock()
	h, ok := recMemo.m[string(k)]
	recMemo.Unlock()
	if !ok {
		h = types.Hash(crypto.Keccak256(k))
		recMemo.Lock()
		if len(recMemo.m) >= recMemoSize {
			clear(recMemo.m) // bounded; the working set refills it at once
		}
		recMemo.m[string(k)] = h
		recMemo.Unlock()
	}
	return slot{addr, h}
}

// recMemoSize bounds the remembered record slots (about 100 bytes each).
const recMemoSize = 1 << 14

var recMemo = struct {
	sync.Mutex
	m map[string]types.Hash
}{m: map[string]types.Hash{}} // grown with use: sized up front, every process start (chaind version too) zeroed its megabytes

// field returns the slot i words after s.
func (s slot) field(i uint64) slot {
	var v uint256.Int
	v.SetBytes32(s.key[:])
	v.Add(&v, uint256.NewInt(i))
	return slot{s.addr, types.Hash(v.Bytes32())}
}

// data returns where the contents of the string or list at s start.
func (s slot) data() slot { return slot{s.addr, types.Hash(crypto.Keccak256(s.key[:]))} }

// store reads and writes typed values in a State.
type store struct{ st State }

func (s store) word(at slot) types.Hash { return s.st.GetState(at.addr, at.key) }

func (s store) setWord(at slot, v types.Hash) { s.st.SetState(at.addr, at.key, v) }

func (s store) u256(at slot) *uint256.Int {
	w := s.word(at)
	return new(uint256.Int).SetBytes32(w[:])
}

func (s store) setU256(at slot, v *uint256.Int) { s.setWord(at, types.Hash(v.Bytes32())) }

func (s store) u64(at slot) uint64 {
	w := s.word(at)
	return binary.BigEndian.Uint64(w[24:])
}

func (s store) setU64(at slot, v uint64) {
	var w types.Hash
	binary.BigEndian.PutUint64(w[24:], v)
	s.setWord(at, w)
}

func (s store) addr(at slot) types.Address {
	w := s.word(at)
	return types.BytesToAddress(w[12:])
}

func (s store) setAddr(at slot, a types.Address) {
	var w types.Hash
	copy(w[12:], a[:])
	s.setWord(at, w)
}

func (s store) bool(at slot) bool { return s.u64(at) != 0 }

func (s store) setBool(at slot, b bool) {
	var v uint64
	if b {
		v = 1
	}
	s.setU64(at, v)
}

func (s store) bytes(at slot) []byte {
	n := s.u64(at)
	if n == 0 {
		return nil
	}
	out := make([]byte, 0, n)
	d := at.data()
	for i := uint64(0); uint64(len(out)) < n; i++ {
		w := s.word(d.field(i))
		out = append(out, w[:min(32, n-uint64(len(out)))]...)
	}
	return out
}

// setBytes writes b and clears the words a longer old value used, so a
// shortened string leaves nothing behind in the state.
func (s store) setBytes(at slot, b []byte) {
	old := s.u64(at)
	s.setU64(at, uint64(len(b)))
	d := at.data()
	var i uint64
	for ; i*32 < uint64(len(b)); i++ {
		var w types.Hash
		copy(w[:], b[i*32:])
		s.setWord(d.field(i), w)
	}
	for ; i*32 < old; i++ {
		s.setWord(d.field(i), types.Hash{})
	}
}

func (s store) str(at slot) string { return string(s.bytes(at)) }

// addrList is a list of distinct addresses with O(1) add and remove: the
// list at base, and each member's position+1 in an index record.
type addrList struct {
	base  slot
	index func(types.Address) slot
}

func (l addrList) len(s store) uint64 { return s.u64(l.base) }

func (l addrList) at(s store, i uint64) types.Address { return s.addr(l.base.data().field(i)) }

func (l addrList) has(s store, a types.Address) bool { return s.u64(l.index(a)) != 0 }

func (l addrList) add(s store, a types.Address) {
	if l.has(s, a) {
		return
	}
	n := l.len(s)
	s.setAddr(l.base.data().field(n), a)
	s.setU64(l.base, n+1)
	s.setU64(l.index(a), n+1)
}

// remove swaps the last member into a's place.
func (l addrList) remove(s store, a types.Address) {
	pos := s.u64(l.index(a))
	if pos == 0 {
		return
	}
	n := l.len(s)
	last := l.at(s, n-1)
	s.setAddr(l.base.data().field(pos-1), last)
	s.setU64(l.index(last), pos)
	s.setWord(l.base.data().field(n-1), types.Hash{})
	s.setU64(l.base, n-1)
	s.setU64(l.index(a), 0)
}

func (l addrList) all(s store) []types.Address {
	n := l.len(s)
	out := make([]types.Address, 0, n)
	for i := range n {
		out = append(out, l.at(s, i))
	}
	return out
}

// MemState is a State in memory: the genesis builder runs the staking
// rules on it and turns what they wrote into genesis allocations.
type MemState struct {
	Storage  map[types.Address]map[types.Hash]types.Hash
	Balances map[types.Address]*uint256.Int
}

// NewMemState returns an empty MemState.
func NewMemState() *MemState {
	return &MemState{Storage: map[types.Address]map[types.Hash]types.Hash{}, Balances: map[types.Address]*uint256.Int{}}
}

// GetState implements State.
func (m *MemState) GetState(a types.Address, k types.Hash) types.Hash { return m.Storage[a][k] }

// SetState implements State; a zero value deletes the slot.
func (m *MemState) SetState(a types.Address, k, v types.Hash) {
	if m.Storage[a] == nil {
		m.Storage[a] = map[types.Hash]types.Hash{}
	}
	if v == (types.Hash{}) {
		delete(m.Storage[a], k)
		return
	}
	m.Storage[a][k] = v
}

// GetBalance implements State.
func (m *MemState) GetBalance(a types.Address) *uint256.Int {
	if b := m.Balances[a]; b != nil {
		return b
	}
	return new(uint256.Int)
}

// AddBalance implements State.
func (m *MemState) AddBalance(a types.Address, v *uint256.Int) {
	m.Balances[a] = new(uint256.Int).Add(m.GetBalance(a), v)
}

// SubBalance implements State.
func (m *MemState) SubBalance(a types.Address, v *uint256.Int) {
	m.Balances[a] = new(uint256.Int).Sub(m.GetBalance(a), v)
}
