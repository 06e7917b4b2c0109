// Package state is the Ethereum world state: accounts, contract storage
// and code held in Merkle-Patricia tries, with the per-transaction
// bookkeeping the EVM needs (a journal for reverting call frames, the
// EIP-2929 access list, EIP-1153 transient storage, the gas refund counter
// and logs). It implements the evm.StateDB interface without importing evm.
//
// Reads of untouched accounts and slots go to the tries of the parent root
// and are cached; changes stay in memory until IntermediateRoot hashes them
// and Commit hands the new trie nodes to the database.
//
// A block is processed as: New(parentRoot, db); for each transaction
// BeginTx, execute, Finalise(deleteEmpty) (or IntermediateRoot when a
// receipt needs the root); then Commit. Contract code is stored in the
// database under keccak256(code), in the same key space as trie nodes.
package state

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// ripemd is the RIPEMD-160 precompile. A touch of it survives a revert:
// on mainnet block 2675119 a call to 0x03 ran out of gas and the clients of
// the time deleted the (empty) account anyway; the Yellow Paper adopted that
// outcome. It only matters while 0x03 exists and is empty.
var ripemd = types.Address{19: 3}

type slotKey struct {
	addr types.Address
	key  types.Hash
}

// StateDB is a mutable view of the world state at some root. It is not
// safe for concurrent use.
type StateDB struct {
	db       trie.Database
	trie     *trie.Trie // the account trie
	origRoot types.Hash // root at open or at the last Commit

	objects map[types.Address]*stateObject // nil value: known not to exist
	lastObj *stateObject                   // one-entry cache in front of objects

	txObjects    []*stateObject        // objects the current transaction journaled changes on
	txObjBuf     [4]*stateObject       // txObjects' first backing array: a call touches a few accounts
	blockObjects []*stateObject        // objects finalised since the last IntermediateRoot
	commitObjs   []*stateObject        // objects whose storage trie changed since the last Commit
	rehash       []*stateObject        // scratch for IntermediateRoot
	codes        map[types.Hash][]byte // code written since the last Commit

	journal journal
	refund  uint64

	// The EIP-2929 access list. accessSlots holds every warm slot; a
	// slot entry of a live object also carries the answer (slot.warmTx ==
	// txSeq), so SLOAD and SSTORE learn it in the lookup that finds the
	// slot's values, without hashing a 52-byte key. See access.go.
	accessAddrs map[types.Address]struct{}
	accessSlots map[slotKey]struct{}
	txSeq       uint32 // the current transaction's number, from 1 (BeginTx counts)
	transient   map[slotKey]types.Hash

	logs        []*types.Log
	txLogStart  int
	txHash      types.Hash
	txIndex     int
	ripemdTouch bool

	encBuf []byte // scratch for account encodings (the trie copies values)

	readCache   *ReadCache // shared reads of unmodified tries (nil: none)
	flat        FlatDB     // flat copy of the state (nil: none); see flat.go
	flatRoot    types.Hash // the root the StateDB was opened on, as flat reads ask
	diff        *Diff      // changes since the last Commit, for flat (nil: none kept)
	remote      Remote     // source of nodes and code the database lacks (nil: none)
	trieChanged bool       // the account trie no longer holds exactly origRoot

	prefetch *prefetcher   // loads the changed keys' trie paths ahead (nil: none); see prefetch.go
	pfKeys   []prefetchKey // scratch: the keys a Finalise hands it

	err error // first database error; later reads return zero values
}

// New opens the state at root, reading trie nodes and code from db.
func New(root types.Hash, db trie.Database) (*StateDB, error) {
	t, err := trie.New(root, db)
	if err != nil {
		return nil, err
	}
	s := &StateDB{
		db:          db,
		trie:        t,
		origRoot:    root,
		objects:     make(map[types.Address]*stateObject),
		accessAddrs: make(map[types.Address]struct{}),
		txSeq:       1, // a new slot entry's warmTx, 0, is cold
		// codes, accessSlots and transient are made on their first
		// write: a call that writes no code, slot or transient word (most
		// eth_calls, every plain transfer) pays for none of them.
	}
	s.journal.chunks = s.journal.first[:0]
	s.txObjects = s.txObjBuf[:0]
	if f, ok := db.(FlatDB); ok {
		s.flat, s.flatRoot = f, root // the diff is made on the first change (flatDiff)
	}
	return s, nil
}

// Error returns the first database error any read ran into. A StateDB that
// failed a read has computed on zero values and its results are void.
func (s *StateDB) Error() error { return s.err }

func (s *StateDB) setError(err error) {
	if s.err == nil {
		s.err = err
	}
}

// BeginTx starts a new transaction: it clears the access list, transient
// storage, refund counter and created-contract marks, and tags the logs
// that follow with the transaction's hash and index. Call Finalise after
// the transaction.
func (s *StateDB) BeginTx(txHash types.Hash, txIndex int) {
	clear(s.accessAddrs)
	clear(s.accessSlots)
	if s.txSeq++; s.txSeq == 0 { // every slot entry's warm mark is now stale
		s.restartTxSeq()
	}
	clear(s.transient)
	s.refund = 0
	s.txHash, s.txIndex = txHash, txIndex
	s.txLogStart = len(s.logs)
}

// getObject returns the live object of addr, loading it from the trie, or
// nil when the account does not exist. addr is a pointer: the callers'
// own argument, compared where it lies. A copy of an address just copied
// (the EVM's call into GetState, then into here) reads across the halves
// the first copy was written in, which the CPU cannot forward, and that
// stall was 5% of a token contract's storage loop.
func (s *StateDB) getObject(addr *types.Address) *stateObject {
	if o := s.lastObj; o != nil && types.SameAddress(&o.addr, addr) {
		return o
	}
	return s.findObject(addr)
}

func (s *StateDB) findObject(addr *types.Address) *stateObject {
	o, ok := s.objects[*addr]
	if !ok {
		var failed bool
		o, failed = s.loadObject(*addr)
		// A read the remote failed is not remembered as an absent
		// account: a long-lived reader (the pool's head state) asks again.
		if !failed || s.remote == nil {
			s.objects[*addr] = o
		}
	}
	if o == nil || o.deleted {
		return nil
	}
	s.lastObj = o
	return o
}

func (s *StateDB) loadObject(addr types.Address) (o *stateObject, failed bool) {
	enc, err := s.readAccountEnc(addr)
	if err != nil {
		s.setError(err)
		return nil, true
	}
	if len(enc) == 0 {
		return nil, false
	}
	acct, err := DecodeAccount(enc)
	if err != nil {
		s.setError(err)
		return nil, true
	}
	if s.remote != nil && acct.isEmpty() && acct.Root == EmptyRoot {
		return nil, false // a partial state's deleted account (see partialZero)
	}
	o = newObject(addr, acct)
	o.prevEnc = enc
	return o, false
}

// getOrCreate returns the live object of addr, creating an empty account
// if there is none.
func (s *StateDB) getOrCreate(addr *types.Address) *stateObject {
	if o := s.getObject(addr); o != nil {
		return o
	}
	return s.createObject(*addr, nil)
}

// createObject installs a fresh account at addr (carrying over the
// balance of prev, if any) and journals the replacement.
func (s *StateDB) createObject(addr types.Address, prev *stateObject) *stateObject {
	o := newObject(addr, newAccount())
	o.incarnated, o.wipe = true, true
	if prev != nil {
		o.data.Balance = prev.data.Balance
	}
	old, had := s.objects[addr]
	if old != nil {
		o.prevEnc = old.prevEnc // the address's account until the replacement reaches the diff
	}
	s.objects[addr] = o
	s.lastObj = nil
	s.journal.prevs = append(s.journal.prevs, old)
	s.journalAppend(journalEntry{kind: entryCreateObject, obj: o, flag: had, addr: addr})
	return o
}

// CreateAccount makes addr a new account with no nonce, code or storage.
// A balance already held at addr is kept (ether can be sent to an address
// before a contract is deployed there).
func (s *StateDB) CreateAccount(addr types.Address) {
	s.createObject(addr, s.getObject(&addr))
}

// CreateContract marks addr as created by the current transaction, which
// is what lets SelfDestruct6780 destroy it.
func (s *StateDB) CreateContract(addr types.Address) {
	o := s.getOrCreate(&addr)
	if !o.created {
		o.created = true
		s.journalAppend(journalEntry{kind: entryCreateContract, obj: o})
	}
}

// Exist reports whether addr exists (possibly empty, possibly destructed
// by the current transaction).
func (s *StateDB) Exist(addr types.Address) bool { return s.getObject(&addr) != nil }

// Empty reports whether addr is absent or EIP-161 empty.
func (s *StateDB) Empty(addr types.Address) bool {
	o := s.getObject(&addr)
	return o == nil || o.data.isEmpty()
}

var zeroBalance uint256.Int

// GetBalance returns addr's balance. The caller must not modify it.
func (s *StateDB) GetBalance(addr types.Address) *uint256.Int {
	if o := s.getObject(&addr); o != nil {
		return &o.data.Balance
	}
	return &zeroBalance
}

// AddBalance adds amount to addr's balance. Adding zero still touches the
// account (EIP-161).
func (s *StateDB) AddBalance(addr types.Address, amount *uint256.Int) {
	o := s.getOrCreate(&addr)
	if amount.IsZero() {
		if addr == ripemd {
			s.ripemdTouch = true
		}
		if s.touchIsMoot(o) {
			return
		}
	}
	o.data.Balance.PutUint256(s.journalNew(entryBalance, o).val[:])
	o.data.Balance.Add(&o.data.Balance, amount)
}

// touchIsMoot reports whether touching o (a zero-value transfer to or
// from it) changes nothing: a touch only matters to an account EIP-161
// would delete, and only if no older change of this transaction already
// counts it as touched, which a revert can undo only together with the
// new one. Every CALL and STATICCALL touches its callee, and a loop
// calling a precompile journaled an entry per call.
func (s *StateDB) touchIsMoot(o *stateObject) bool {
	return o.refs > 0 || !o.data.isEmpty()
}

// SubBalance subtracts amount from addr's balance; callers check for
// sufficient funds first.
func (s *StateDB) SubBalance(addr types.Address, amount *uint256.Int) {
	o := s.getOrCreate(&addr)
	if amount.IsZero() && s.touchIsMoot(o) {
		return
	}
	o.data.Balance.PutUint256(s.journalNew(entryBalance, o).val[:])
	o.data.Balance.Sub(&o.data.Balance, amount)
}

// SetBalance sets addr's balance (used to load genesis and test states).
func (s *StateDB) SetBalance(addr types.Address, amount *uint256.Int) {
	o := s.getOrCreate(&addr)
	s.journalAppend(journalEntry{kind: entryBalance, obj: o, val: o.data.Balance.Bytes32()})
	o.data.Balance = *amount
}

// GetNonce returns addr's nonce.
func (s *StateDB) GetNonce(addr types.Address) uint64 {
	if o := s.getObject(&addr); o != nil {
		return o.data.Nonce
	}
	return 0
}

// SetNonce sets addr's nonce.
func (s *StateDB) SetNonce(addr types.Address, nonce uint64) {
	o := s.getOrCreate(&addr)
	s.journalNew(entryNonce, o).setU64(o.data.Nonce)
	o.data.Nonce = nonce
}

// GetCodeHash returns keccak256 of addr's code: EmptyCodeHash for an
// account without code and the zero hash for an absent account.
func (s *StateDB) GetCodeHash(addr types.Address) types.Hash {
	if o := s.getObject(&addr); o != nil {
		return o.data.CodeHash
	}
	return types.Hash{}
}

// GetCode returns addr's code. The caller must not modify it.
func (s *StateDB) GetCode(addr types.Address) []byte {
	if o := s.getObject(&addr); o != nil {
		return s.loadCode(o)
	}
	return nil
}

// GetCodeSize returns the length of addr's code.
func (s *StateDB) GetCodeSize(addr types.Address) int { return len(s.GetCode(addr)) }

// SetCode sets addr's code. The state keeps code; the caller must not
// modify it afterwards.
func (s *StateDB) SetCode(addr types.Address, code []byte) {
	o := s.getOrCreate(&addr)
	s.journal.codes = append(s.journal.codes, o.code)
	s.journalAppend(journalEntry{kind: entryCode, obj: o, val: o.data.CodeHash, flag: o.dirtyCode})
	o.code = code
	o.data.CodeHash = codeHash(code)
	o.dirtyCode = true
}

// AddRefund adds gas to the refund counter.
func (s *StateDB) AddRefund(gas uint64) {
	s.journalNew(entryRefund, nil).setU64(s.refund)
	s.refund += gas
}

// SubRefund removes gas from the refund counter. Going below zero is a
// bug in the gas accounting of the caller; the counter then stops at zero.
func (s *StateDB) SubRefund(gas uint64) {
	s.journalNew(entryRefund, nil).setU64(s.refund)
	if gas > s.refund {
		s.refund = 0
		return
	}
	s.refund -= gas
}

// GetRefund returns the refund counter.
func (s *StateDB) GetRefund() uint64 { return s.refund }

// GetCommittedState returns the value the slot had when the current
// transaction started.
func (s *StateDB) GetCommittedState(addr types.Address, key types.Hash) types.Hash {
	o := s.getObject(&addr)
	if o == nil {
		return types.Hash{}
	}
	return s.slotOf(o, key).committed()
}

// GetState returns the current value of a storage slot.
func (s *StateDB) GetState(addr types.Address, key types.Hash) types.Hash {
	o := s.getObject(&addr)
	if o == nil {
		return types.Hash{}
	}
	sl := s.slotOf(o, key)
	if sl.flags&isDirty != 0 {
		return sl.cur
	}
	return sl.committed()
}

// SetState writes a storage slot.
func (s *StateDB) SetState(addr types.Address, key, value types.Hash) {
	o := s.getOrCreate(&addr)
	sl := s.slotOf(o, key)
	wasDirty := sl.flags&isDirty != 0
	prev := sl.cur
	if !wasDirty {
		prev = sl.committed()
	}
	if types.SameHash(&prev, &value) {
		return
	}
	if !s.journaledSince(o, sl, &key) {
		e := s.journalNew(entryStorage, o)
		e.key, e.val, e.flag = key, sl.cur, wasDirty
		sl.jpos = uint32(s.journal.n)
	}
	if !wasDirty {
		o.dirtyKeys = append(o.dirtyKeys, key)
	}
	sl.cur = value
	sl.flags |= isDirty
}

// journaledSince reports whether the slot has a storage entry in the
// journal at or after the last snapshot, which makes another one for a new
// write redundant: a revert to any snapshot still to be reverted to undoes
// that entry too, restoring the value from before it. A token loop writing
// the same two balances thousands of times in one call frame journaled an
// entry per write, a megabyte of entries to write and clear per call.
func (s *StateDB) journaledSince(o *stateObject, sl *slot, key *types.Hash) bool {
	p := int(sl.jpos) - 1
	if p < s.journal.lastSnap || p >= s.journal.n {
		return false
	}
	// The position is a hint (a revert or a new transaction reuses
	// positions): the entry there must be this slot's.
	e := s.journal.at(p)
	return e.kind == entryStorage && e.obj == o && types.SameHash(&e.key, key)
}

// restartTxSeq numbers transactions from 1 again once txSeq wrapped,
// clearing every warm mark that could read as current.
func (s *StateDB) restartTxSeq() {
	for _, o := range s.objects {
		if o != nil {
			for _, sl := range o.slots {
				sl.warmTx = 0
			}
		}
	}
	s.txSeq = 1
}

// GetStorageRoot returns the storage root of addr as of the last
// IntermediateRoot (the zero hash for an absent account). EIP-7610 uses it
// to refuse deployments onto accounts that have storage.
func (s *StateDB) GetStorageRoot(addr types.Address) types.Hash {
	if o := s.getObject(&addr); o != nil {
		return o.data.Root
	}
	return types.Hash{}
}

// GetTransientState reads EIP-1153 transient storage.
func (s *StateDB) GetTransientState(addr types.Address, key types.Hash) types.Hash {
	return s.transient[slotKey{addr, key}]
}

// SetTransientState writes EIP-1153 transient storage.
func (s *StateDB) SetTransientState(addr types.Address, key, value types.Hash) {
	k := slotKey{addr, key}
	prev := s.transient[k]
	if prev == value {
		return
	}
	s.journalAppend(journalEntry{kind: entryTransient, addr: addr, key: key, val: prev})
	s.putTransient(k, value)
}

// putTransient sets a transient word, a zero one by deleting it.
func (s *StateDB) putTransient(k slotKey, value types.Hash) {
	switch {
	case value.IsZero():
		delete(s.transient, k)
	case s.transient == nil:
		s.transient = map[slotKey]types.Hash{k: value}
	default:
		s.transient[k] = value
	}
}

// SelfDestruct marks addr for destruction at the end of the transaction
// and zeroes its balance (pre-Cancun SELFDESTRUCT; the EVM moves the
// balance first).
func (s *StateDB) SelfDestruct(addr types.Address) {
	o := s.getObject(&addr)
	if o == nil {
		return
	}
	s.journalAppend(journalEntry{kind: entrySelfDestruct, obj: o, flag: o.selfDestructed, val: o.data.Balance.Bytes32()})
	o.selfDestructed = true
	o.data.Balance.Clear()
}

// SelfDestruct6780 destroys addr only if the current transaction created
// it (EIP-6780); otherwise SELFDESTRUCT just moves the balance.
func (s *StateDB) SelfDestruct6780(addr types.Address) {
	if o := s.getObject(&addr); o != nil && o.created {
		s.SelfDestruct(addr)
	}
}

// HasSelfDestructed reports whether addr was destructed by the current
// transaction.
func (s *StateDB) HasSelfDestructed(addr types.Address) bool {
	o := s.getObject(&addr)
	return o != nil && o.selfDestructed
}

// AddLog records a log of the current transaction.
func (s *StateDB) AddLog(l *types.Log) {
	l.TxHash = s.txHash
	l.TxIndex = uint(s.txIndex)
	l.Index = uint(len(s.logs))
	s.logs = append(s.logs, l)
	s.journalAppend(journalEntry{kind: entryLog})
}

// Logs returns the logs of the current transaction.
func (s *StateDB) Logs() []*types.Log { return s.logs[s.txLogStart:] }

// BlockLogs returns every log since the StateDB was opened, in order.
func (s *StateDB) BlockLogs() []*types.Log { return s.logs }
