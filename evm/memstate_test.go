package evm

import (
	"maps"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// memState is a small in-memory StateDB for tests. Snapshots copy the whole
// state, which is fine at test sizes.
type memAccount struct {
	balance   uint256.Int
	nonce     uint64
	code      []byte
	codeHash  types.Hash
	storage   map[types.Hash]types.Hash
	committed map[types.Hash]types.Hash
	destroyed bool
	created   bool
}

type memWorld struct {
	accounts  map[types.Address]*memAccount
	refund    uint64
	transient map[[52]byte]types.Hash
	addrs     map[types.Address]bool
	slots     map[[52]byte]bool
	logs      []*types.Log
}

type memState struct {
	memWorld
	snaps []memWorld
}

func newMemState() *memState {
	return &memState{memWorld: memWorld{
		accounts:  map[types.Address]*memAccount{},
		transient: map[[52]byte]types.Hash{},
		addrs:     map[types.Address]bool{},
		slots:     map[[52]byte]bool{},
	}}
}

func (w memWorld) clone() memWorld {
	c := w
	c.accounts = make(map[types.Address]*memAccount, len(w.accounts))
	for k, a := range w.accounts {
		na := *a
		na.storage = maps.Clone(a.storage)
		c.accounts[k] = &na
	}
	c.transient = maps.Clone(w.transient)
	c.addrs = maps.Clone(w.addrs)
	c.slots = maps.Clone(w.slots)
	c.logs = append([]*types.Log(nil), w.logs...)
	return c
}

func key52(a types.Address, h types.Hash) (k [52]byte) {
	copy(k[:20], a[:])
	copy(k[20:], h[:])
	return k
}

func (s *memState) acct(a types.Address) *memAccount {
	acc := s.accounts[a]
	if acc == nil {
		acc = &memAccount{storage: map[types.Hash]types.Hash{}, committed: map[types.Hash]types.Hash{}}
		s.accounts[a] = acc
	}
	return acc
}

func (s *memState) CreateAccount(a types.Address) {
	var bal uint256.Int
	if old := s.accounts[a]; old != nil {
		bal = old.balance
	}
	s.accounts[a] = &memAccount{balance: bal, storage: map[types.Hash]types.Hash{}, committed: map[types.Hash]types.Hash{}}
}
func (s *memState) CreateContract(a types.Address)             { s.acct(a).created = true }
func (s *memState) SubBalance(a types.Address, v *uint256.Int) { b := &s.acct(a).balance; b.Sub(b, v) }
func (s *memState) AddBalance(a types.Address, v *uint256.Int) { b := &s.acct(a).balance; b.Add(b, v) }
func (s *memState) GetBalance(a types.Address) *uint256.Int {
	if acc := s.accounts[a]; acc != nil {
		return &acc.balance
	}
	return new(uint256.Int)
}
func (s *memState) GetNonce(a types.Address) uint64 {
	if acc := s.accounts[a]; acc != nil {
		return acc.nonce
	}
	return 0
}
func (s *memState) SetNonce(a types.Address, n uint64) { s.acct(a).nonce = n }
func (s *memState) GetCodeHash(a types.Address) types.Hash {
	acc := s.accounts[a]
	if acc == nil {
		return types.Hash{}
	}
	if acc.codeHash.IsZero() {
		acc.codeHash = types.Hash(crypto.Keccak256(acc.code))
	}
	return acc.codeHash
}
func (s *memState) GetCode(a types.Address) []byte {
	if acc := s.accounts[a]; acc != nil {
		return acc.code
	}
	return nil
}
func (s *memState) GetCodeSize(a types.Address) int { return len(s.GetCode(a)) }
func (s *memState) SetCode(a types.Address, c []byte) {
	acc := s.acct(a)
	acc.code, acc.codeHash = c, types.Hash{}
}
func (s *memState) AddRefund(g uint64) { s.refund += g }
func (s *memState) SubRefund(g uint64) { s.refund -= g }
func (s *memState) GetRefund() uint64  { return s.refund }
func (s *memState) GetCommittedState(a types.Address, k types.Hash) types.Hash {
	if acc := s.accounts[a]; acc != nil {
		return acc.committed[k]
	}
	return types.Hash{}
}
func (s *memState) GetState(a types.Address, k types.Hash) types.Hash {
	if acc := s.accounts[a]; acc != nil {
		return acc.storage[k]
	}
	return types.Hash{}
}
func (s *memState) SetState(a types.Address, k, v types.Hash) { s.acct(a).storage[k] = v }
func (s *memState) GetStorageRoot(a types.Address) types.Hash {
	if acc := s.accounts[a]; acc != nil {
		for _, v := range acc.storage {
			if !v.IsZero() {
				return types.Hash{1}
			}
		}
	}
	return types.Hash{}
}
func (s *memState) GetTransientState(a types.Address, k types.Hash) types.Hash {
	return s.transient[key52(a, k)]
}
func (s *memState) SetTransientState(a types.Address, k, v types.Hash) { s.transient[key52(a, k)] = v }
func (s *memState) SelfDestruct(a types.Address) {
	acc := s.acct(a)
	acc.destroyed = true
	acc.balance.Clear()
}
func (s *memState) SelfDestruct6780(a types.Address) {
	if s.acct(a).created {
		s.SelfDestruct(a)
	}
}
func (s *memState) HasSelfDestructed(a types.Address) bool {
	acc := s.accounts[a]
	return acc != nil && acc.destroyed
}
func (s *memState) Exist(a types.Address) bool { return s.accounts[a] != nil }
func (s *memState) Empty(a types.Address) bool {
	acc := s.accounts[a]
	return acc == nil || (acc.nonce == 0 && acc.balance.IsZero() && len(acc.code) == 0)
}
func (s *memState) AddressInAccessList(a types.Address) bool { return s.addrs[a] }
func (s *memState) SlotInAccessList(a types.Address, k types.Hash) (bool, bool) {
	return s.addrs[a], s.slots[key52(a, k)]
}
func (s *memState) SlotState(a types.Address, k types.Hash) (types.Hash, types.Hash, bool) {
	_, warm := s.SlotInAccessList(a, k)
	return s.GetCommittedState(a, k), s.GetState(a, k), warm
}
func (s *memState) AddAddressToAccessList(a types.Address) { s.addrs[a] = true }
func (s *memState) AddSlotToAccessList(a types.Address, k types.Hash) {
	s.addrs[a] = true
	s.slots[key52(a, k)] = true
}
func (s *memState) Snapshot() int {
	s.snaps = append(s.snaps, s.memWorld.clone())
	return len(s.snaps) - 1
}
func (s *memState) RevertToSnapshot(id int) {
	s.memWorld = s.snaps[id]
	s.snaps = s.snaps[:id]
}
func (s *memState) AddLog(l *types.Log) { s.logs = append(s.logs, l) }
