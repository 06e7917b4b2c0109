package tracers

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func init() {
	register("prestateTracer", func(ctx *Context, cfg json.RawMessage) (evm.Tracer, error) {
		var c prestateConfig
		if err := decodeConfig("prestateTracer", cfg, &c); err != nil {
			return nil, err
		}
		if c.DiffMode && c.IncludeEmpty {
			return nil, errors.New("prestateTracer: cannot use diffMode with includeEmpty")
		}
		return &prestateTracer{cfg: c, budget: ctx.Budget, pre: stateMap{}, post: stateMap{},
			created: map[types.Address]bool{}, deleted: map[types.Address]bool{}}, nil
	})
}

type prestateConfig struct {
	DiffMode       bool `json:"diffMode"`       // pre and post of what changed
	DisableCode    bool `json:"disableCode"`    // no code
	DisableStorage bool `json:"disableStorage"` // no storage
	IncludeEmpty   bool `json:"includeEmpty"`   // keep accounts that do not exist
}

type stateMap map[types.Address]*account

// account is an account as the prestate tracer shows it; zero fields are
// left out.
type account struct {
	Balance  *types.HexU256            `json:"balance,omitempty"`
	Code     types.HexBytes            `json:"code,omitempty"`
	CodeHash *types.Hash               `json:"codeHash,omitempty"`
	Nonce    uint64                    `json:"nonce,omitempty"`
	Storage  map[types.Hash]types.Hash `json:"storage,omitempty"`
	empty    bool
}

// prestateTracer records every account and slot the transaction touched
// as it was before (go-ethereum's prestateTracer), or in diffMode the
// pre and post values of what it changed.
type prestateTracer struct {
	cfg              prestateConfig
	budget           *Budget
	vm               *evm.EVM
	pre, post        stateMap
	created, deleted map[types.Address]bool
	failed           error
}

func (t *prestateTracer) Hooks() *evm.Hooks {
	return &evm.Hooks{OnTxStart: t.onTxStart, OnTxEnd: t.onTxEnd, OnOpcode: t.onOpcode}
}

func (t *prestateTracer) onTxStart(vm *evm.EVM, msg *evm.Message) {
	t.vm = vm
	st := vm.StateDB
	var to types.Address
	if msg.To == nil {
		to = evm.CreateAddress(msg.From, st.GetNonce(msg.From))
		t.created[to] = true
	} else {
		to = *msg.To
		t.lookupDelegate(to)
	}
	t.lookupAccount(msg.From)
	t.lookupAccount(to)
	t.lookupAccount(vm.Context.Coinbase)
	for i := range msg.AuthList {
		if a, err := msg.AuthList[i].Authority(); err == nil {
			t.lookupAccount(a)
		}
	}
}

// lookupDelegate records the target of addr's EIP-7702 delegation.
func (t *prestateTracer) lookupDelegate(addr types.Address) {
	if t.vm.Fork() < forks.Prague {
		return
	}
	if target, ok := evm.ParseDelegation(t.vm.StateDB.GetCode(addr)); ok {
		t.lookupAccount(target)
	}
}

func (t *prestateTracer) onOpcode(_ uint64, opb byte, _, _ uint64, scope *evm.ScopeContext, _ []byte, _ int, err error) {
	if err != nil {
		return
	}
	op := evm.OpCode(opb)
	stack := scope.StackData()
	n := len(stack)
	caller := scope.Address()
	switch {
	case n >= 1 && (op == evm.SLOAD || op == evm.SSTORE):
		t.lookupStorage(caller, types.Hash(stack[n-1].Bytes32()))
	case n >= 1 && (op == evm.EXTCODECOPY || op == evm.EXTCODEHASH || op == evm.EXTCODESIZE || op == evm.BALANCE || op == evm.SELFDESTRUCT):
		t.lookupAccount(types.Address(stack[n-1].Bytes20()))
		if op == evm.SELFDESTRUCT && (t.vm.Fork() < forks.Cancun || t.created[caller]) {
			t.deleted[caller] = true
		}
	case n >= 5 && (op == evm.DELEGATECALL || op == evm.CALL || op == evm.STATICCALL || op == evm.CALLCODE):
		addr := types.Address(stack[n-2].Bytes20())
		t.lookupAccount(addr)
		t.lookupDelegate(addr)
	case op == evm.CREATE:
		addr := evm.CreateAddress(caller, t.vm.StateDB.GetNonce(caller))
		t.lookupAccount(addr)
		t.created[addr] = true
	case n >= 4 && op == evm.CREATE2:
		init, ok := paddedCopy(scope.MemoryData(), &stack[n-2], &stack[n-3])
		if !ok {
			return
		}
		h := crypto.Keccak256(init)
		addr := evm.CreateAddress2(caller, stack[n-4].Bytes32(), h[:])
		t.lookupAccount(addr)
		t.created[addr] = true
	}
}

// paddedCopy is memory[offset:offset+size], zero-padded past its end; it
// refuses ranges the opcode's own gas check will refuse.
func paddedCopy(mem []byte, offset, size *uint256.Int) ([]byte, bool) {
	if !offset.IsUint64() || !size.IsUint64() || size.Uint64() > 1<<24 || offset.Uint64() > 1<<32 {
		return nil, false
	}
	o, s := offset.Uint64(), size.Uint64()
	out := make([]byte, s)
	if o < uint64(len(mem)) {
		copy(out, mem[o:])
	}
	return out, true
}

func (t *prestateTracer) onTxEnd(_ *evm.Result, err error) {
	if err != nil {
		t.failed = err
		return
	}
	if t.cfg.DiffMode {
		t.diff()
	}
	if t.cfg.IncludeEmpty {
		return
	}
	for addr, a := range t.pre {
		if a.empty {
			delete(t.pre, addr)
		}
	}
}

// diff keeps in pre only what changed and records the new values in post.
func (t *prestateTracer) diff() {
	st := t.vm.StateDB
	for addr, pre := range t.pre {
		if t.deleted[addr] {
			continue
		}
		modified := false
		post := &account{Storage: map[types.Hash]types.Hash{}}
		bal := st.GetBalance(addr)
		if pre.Balance == nil || !bal.Eq((*uint256.Int)(pre.Balance)) {
			modified = true
			post.Balance = (*types.HexU256)(new(uint256.Int).Set(bal))
		}
		if nonce := st.GetNonce(addr); nonce != pre.Nonce {
			modified = true
			post.Nonce = nonce
		}
		var prevHash types.Hash
		if pre.CodeHash != nil {
			prevHash = *pre.CodeHash
		}
		newHash := st.GetCodeHash(addr)
		if newHash == evm.EmptyCodeHash {
			newHash = types.Hash{}
		}
		if newHash != prevHash {
			modified = true
			post.CodeHash = &newHash
		}
		if !t.cfg.DisableCode {
			if code := st.GetCode(addr); !bytes.Equal(code, pre.Code) {
				modified = true
				post.Code = append([]byte{}, code...)
			}
		}
		if !t.cfg.DisableStorage {
			for key, val := range pre.Storage {
				if val == (types.Hash{}) {
					delete(pre.Storage, key)
				}
				nv := st.GetState(addr, key)
				if val == nv {
					delete(pre.Storage, key)
					continue
				}
				modified = true
				if nv != (types.Hash{}) {
					post.Storage[key] = nv
				}
			}
		}
		if modified {
			t.post[addr] = post
		} else {
			delete(t.pre, addr)
		}
	}
}

func (t *prestateTracer) lookupAccount(addr types.Address) {
	if _, ok := t.pre[addr]; ok {
		return
	}
	st := t.vm.StateDB
	code := st.GetCode(addr)
	cost := 300
	if !t.cfg.DisableCode {
		cost += 2 * len(code)
	}
	if t.cfg.DiffMode {
		cost *= 2
	}
	if !t.budget.Spend(cost) {
		return
	}
	a := &account{Balance: (*types.HexU256)(new(uint256.Int).Set(st.GetBalance(addr))), Nonce: st.GetNonce(addr), Code: code}
	if h := st.GetCodeHash(addr); h != (types.Hash{}) && h != evm.EmptyCodeHash {
		a.CodeHash = &h
	}
	a.empty = a.Nonce == 0 && len(code) == 0 && (*uint256.Int)(a.Balance).IsZero()
	if t.cfg.DisableCode {
		a.Code = nil
	}
	if !t.cfg.DisableStorage {
		a.Storage = map[types.Hash]types.Hash{}
	}
	t.pre[addr] = a
}

func (t *prestateTracer) lookupStorage(addr types.Address, key types.Hash) {
	a := t.pre[addr]
	if t.cfg.DisableStorage || a == nil {
		return
	}
	if _, ok := a.Storage[key]; ok {
		return
	}
	if !t.budget.Spend(2 * slotBytes) {
		return
	}
	a.Storage[key] = t.vm.StateDB.GetState(addr, key)
}

func (t *prestateTracer) Result() (json.RawMessage, error) {
	if t.failed != nil {
		return nil, t.failed
	}
	if t.cfg.DiffMode {
		return json.Marshal(struct {
			Post stateMap `json:"post"`
			Pre  stateMap `json:"pre"`
		}{t.post, t.pre})
	}
	return json.Marshal(t.pre)
}
