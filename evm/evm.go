package evm

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/chaind/chaind/evm/precompile"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// Limits fixed by the protocol.
const (
	MaxCallDepth    = 1024
	MaxCodeSize     = 24576           // EIP-170
	MaxInitCodeSize = 2 * MaxCodeSize // EIP-3860
)

var (
	// EmptyCodeHash is keccak256 of no bytes.
	EmptyCodeHash = types.Hash(crypto.Keccak256(nil))
	// EmptyRootHash is the root of an empty trie.
	EmptyRootHash = types.MustHash("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
)

// errStopToken ends the interpreter loop without an error (STOP, RETURN,
// SELFDESTRUCT).
var errStopToken = errors.New("stop token")

// Config holds switches for non-consensus uses of the EVM.
type Config struct {
	// NoBaseFee lets eth_call and gas estimation run with a zero gas price
	// even though the block has a base fee.
	NoBaseFee bool
	// Tracer, when set, is told about every frame and opcode.
	Tracer *Hooks
	// MaxCodeSize, when set, replaces EIP-170's limit on deployed code
	// and, doubled, EIP-3860's on initcode: a development chain's
	// --code-size-limit (NoCodeSizeLimit lifts both).
	MaxCodeSize uint64
	// NoLogs says nobody reads the logs of what this EVM runs (eth_call,
	// eth_estimateGas): LOG still checks, charges and expands memory as
	// always but builds no log, unless a tracer observes logs (OnLog). A
	// token contract's calls emit thousands of logs, and building them was
	// half of an eth_call's time on a node (the allocations land on fresh
	// heap pages between collections).
	NoLogs bool
}

// NoCodeSizeLimit as Config.MaxCodeSize lifts the code size limits.
const NoCodeSizeLimit = ^uint64(0)

// CodeSizeLimits are the deployed-code and initcode limits under a
// MaxCodeSize setting (0: the protocol's).
func CodeSizeLimits(maxCodeSize uint64) (code, initCode uint64) {
	if maxCodeSize == 0 {
		return MaxCodeSize, MaxInitCodeSize
	}
	if maxCodeSize > NoCodeSizeLimit/2 {
		return maxCodeSize, NoCodeSizeLimit
	}
	return maxCodeSize, 2 * maxCodeSize
}

// keepsLogs reports whether LOG must build its log and hand it to the
// state.
func (evm *EVM) keepsLogs() bool {
	return !evm.Config.NoLogs || (evm.Config.Tracer != nil && evm.Config.Tracer.OnLog != nil)
}

// EVM runs transactions and call frames against a StateDB for one block.
// It is not safe for concurrent use; create one per goroutine.
type EVM struct {
	Context   BlockContext
	TxContext TxContext
	StateDB   StateDB
	Config    Config

	fork    forks.Fork
	chainID uint256.Int
	table   *JumpTable
	precs   *precompileSet
	natives map[types.Address]NativeContract

	depth       int
	readOnly    bool
	returnData  []byte
	callGasTemp uint64

	missing []types.Address
	memo    *keccakMemo // KECCAK256's recent 32- and 64-byte inputs (nil until used)
	// pcOut holds the output of the last precompile that writes into it
	// (see runPrecompile).
	pcOut precompile.Scratch
	logs  logSlab // where LOG's logs come from

	// cancelled stops execution at the next jump or call frame (see
	// Cancel); it is the one field another goroutine may touch.
	cancelled atomic.Bool
}

// Cancel makes the running execution fail with ErrCancelled at its next
// jump or new call frame, so an eth_call can be held to a time cap. It may
// be called from any goroutine; the EVM is spent afterwards.
func (evm *EVM) Cancel() { evm.cancelled.Store(true) }

// NewEVM returns an EVM for one block under the rules of fork.
func NewEVM(block BlockContext, statedb StateDB, chainID uint64, fork forks.Fork) *EVM {
	if fork < 0 || fork >= forks.Count {
		fork = forks.Count - 1
	}
	evm := &EVM{
		Context: block,
		StateDB: statedb,
		fork:    fork,
		table:   tableFor(fork),
		precs:   precompilesFor(fork),
	}
	evm.chainID.SetUint64(chainID)
	return evm
}

// Fork returns the rules the EVM runs under.
func (evm *EVM) Fork() forks.Fork { return evm.fork }

// SetTxContext sets the transaction part of the environment; ApplyMessage
// calls it, direct users of Call/Create must.
func (evm *EVM) SetTxContext(tx TxContext) { evm.TxContext = tx }

// MissingPrecompiles lists the unimplemented precompiles called so far.
func (evm *EVM) MissingPrecompiles() []types.Address { return evm.missing }

// PrecompileAddresses lists the precompiled contracts active in this fork;
// they are warm from the start of every transaction (EIP-2929), which the
// EVM knows by rule: callers need not put them in the state's access list.
func (evm *EVM) PrecompileAddresses() []types.Address { return evm.precs.addrs }

func (evm *EVM) canTransfer(from types.Address, amount *uint256.Int) bool {
	return amount.IsZero() || !evm.StateDB.GetBalance(from).Lt(amount)
}

func (evm *EVM) transfer(from, to types.Address, amount *uint256.Int) {
	evm.StateDB.SubBalance(from, amount)
	evm.StateDB.AddBalance(to, amount)
}

// delegationPrefix starts an EIP-7702 delegation designator.
var delegationPrefix = [3]byte{0xef, 0x01, 0x00}

// ParseDelegation returns the target of an EIP-7702 delegation designator.
func ParseDelegation(code []byte) (types.Address, bool) {
	if len(code) != 23 || code[0] != 0xef || code[1] != 0x01 || code[2] != 0x00 {
		return types.Address{}, false
	}
	return types.BytesToAddress(code[3:]), true
}

// DelegationCode returns the designator that delegates to addr.
func DelegationCode(addr types.Address) []byte {
	return append(delegationPrefix[:], addr[:]...)
}

// codeOf returns the code that runs when addr is called, following an
// EIP-7702 delegation from Prague on.
func (evm *EVM) codeOf(addr types.Address) ([]byte, types.Hash) {
	code := evm.StateDB.GetCode(addr)
	if evm.fork >= forks.Prague {
		if target, ok := ParseDelegation(code); ok {
			return evm.StateDB.GetCode(target), evm.StateDB.GetCodeHash(target)
		}
	}
	if len(code) == 0 {
		return nil, types.Hash{}
	}
	return code, evm.StateDB.GetCodeHash(addr)
}

// Call runs the code at addr with input, transferring value from caller.
// It returns the output, the gas left and the frame's error.
func (evm *EVM) Call(caller, addr types.Address, input []byte, gas uint64, value *uint256.Int) (ret []byte, leftOver uint64, err error) {
	if evm.Config.Tracer != nil {
		evm.traceEnter(FrameCall, caller, addr, input, gas, value)
		startGas := gas
		defer func() { evm.traceExit(startGas, leftOver, ret, err) }()
	}
	if evm.depth > MaxCallDepth {
		return nil, gas, ErrDepth
	}
	if !evm.canTransfer(caller, value) {
		return nil, gas, ErrInsufficientBalance
	}
	snapshot := evm.StateDB.Snapshot()
	p, isPrecompile := evm.precs.get(addr)
	if !evm.StateDB.Exist(addr) {
		if !isPrecompile && evm.fork >= forks.SpuriousDragon && value.IsZero() {
			// Calling a non-existent account with no value does not
			// create it (EIP-161).
			return nil, gas, nil
		}
		evm.StateDB.CreateAccount(addr)
	}
	evm.transfer(caller, addr, value)

	if nc, ok := evm.natives[addr]; ok {
		ret, gas, err = evm.runNative(nc, caller, addr, input, gas, value, false)
	} else if isPrecompile {
		ret, gas, err = evm.runPrecompile(p, addr, input, gas)
	} else if code, hash := evm.codeOf(addr); len(code) > 0 {
		c := Contract{Caller: caller, Address: addr, Value: *value, Code: code, CodeHash: hash, Gas: gas}
		ret, err = evm.run(&c, input, false)
		gas = c.Gas
	}
	if err != nil {
		evm.StateDB.RevertToSnapshot(snapshot)
		if err != ErrExecutionReverted {
			gas = 0
		}
	}
	return ret, gas, err
}

// CallCode runs addr's code in caller's context (the CALLCODE opcode).
func (evm *EVM) CallCode(caller, addr types.Address, input []byte, gas uint64, value *uint256.Int) (ret []byte, leftOver uint64, err error) {
	if evm.Config.Tracer != nil {
		evm.traceEnter(FrameCallCode, caller, addr, input, gas, value)
		startGas := gas
		defer func() { evm.traceExit(startGas, leftOver, ret, err) }()
	}
	if evm.depth > MaxCallDepth {
		return nil, gas, ErrDepth
	}
	if !evm.canTransfer(caller, value) {
		return nil, gas, ErrInsufficientBalance
	}
	snapshot := evm.StateDB.Snapshot()
	if p, ok := evm.precs.get(addr); ok {
		ret, gas, err = evm.runPrecompile(p, addr, input, gas)
	} else if code, hash := evm.codeOf(addr); len(code) > 0 {
		c := Contract{Caller: caller, Address: caller, Value: *value, Code: code, CodeHash: hash, Gas: gas}
		ret, err = evm.run(&c, input, false)
		gas = c.Gas
	}
	if err != nil {
		evm.StateDB.RevertToSnapshot(snapshot)
		if err != ErrExecutionReverted {
			gas = 0
		}
	}
	return ret, gas, err
}

// DelegateCall runs addr's code in the context of the current frame: the
// same address, caller and value (the DELEGATECALL opcode).
func (evm *EVM) DelegateCall(origCaller, caller, addr types.Address, input []byte, gas uint64, value *uint256.Int) (ret []byte, leftOver uint64, err error) {
	if evm.Config.Tracer != nil {
		evm.traceEnter(FrameDelegateCall, caller, addr, input, gas, value)
		startGas := gas
		defer func() { evm.traceExit(startGas, leftOver, ret, err) }()
	}
	if evm.depth > MaxCallDepth {
		return nil, gas, ErrDepth
	}
	snapshot := evm.StateDB.Snapshot()
	if p, ok := evm.precs.get(addr); ok {
		ret, gas, err = evm.runPrecompile(p, addr, input, gas)
	} else if code, hash := evm.codeOf(addr); len(code) > 0 {
		c := Contract{Caller: origCaller, Address: caller, Value: *value, Code: code, CodeHash: hash, Gas: gas}
		ret, err = evm.run(&c, input, false)
		gas = c.Gas
	}
	if err != nil {
		evm.StateDB.RevertToSnapshot(snapshot)
		if err != ErrExecutionReverted {
			gas = 0
		}
	}
	return ret, gas, err
}

// noValue is the value of every STATICCALL, shared because a fresh zero
// given to the StateDB or a tracer escapes to the heap: one allocation per
// static call, 10,000 a run of a contract calling the hash precompiles in a
// loop. Nothing may write to it (the StateDB and the hooks only read a
// value they are given).
var noValue uint256.Int

// StaticCall runs addr's code with state changes forbidden (STATICCALL).
func (evm *EVM) StaticCall(caller, addr types.Address, input []byte, gas uint64) (ret []byte, leftOver uint64, err error) {
	if evm.Config.Tracer != nil {
		evm.traceEnter(FrameStaticCall, caller, addr, input, gas, &noValue)
		startGas := gas
		defer func() { evm.traceExit(startGas, leftOver, ret, err) }()
	}
	if evm.depth > MaxCallDepth {
		return nil, gas, ErrDepth
	}
	snapshot := evm.StateDB.Snapshot()
	// A zero-value transfer touches the callee, as CALL would.
	evm.StateDB.AddBalance(addr, &noValue)
	if nc, ok := evm.natives[addr]; ok {
		ret, gas, err = evm.runNative(nc, caller, addr, input, gas, new(uint256.Int), true)
	} else if p, ok := evm.precs.get(addr); ok {
		ret, gas, err = evm.runPrecompile(p, addr, input, gas)
	} else if code, hash := evm.codeOf(addr); len(code) > 0 {
		c := Contract{Caller: caller, Address: addr, Code: code, CodeHash: hash, Gas: gas}
		ret, err = evm.run(&c, input, true)
		gas = c.Gas
	}
	if err != nil {
		evm.StateDB.RevertToSnapshot(snapshot)
		if err != ErrExecutionReverted {
			gas = 0
		}
	}
	return ret, gas, err
}

func (evm *EVM) runPrecompile(p Precompile, addr types.Address, input []byte, gas uint64) ([]byte, uint64, error) {
	cost := p.RequiredGas(input)
	if gas < cost {
		return nil, 0, ErrOutOfGas
	}
	gas -= cost
	// Called from code, a precompile that can writes its output into the
	// EVM's scratch: the caller copies it to memory and keeps it as the
	// return data, which the next call of any kind replaces before
	// anything could read the scratch again. A top-level call's output is
	// the transaction's result, and a tracer shown outputs or return data
	// may keep them: those get a fresh copy. (A development node's
	// console.log watcher only looks at frames' inputs.)
	var scratch *precompile.Scratch
	if h := evm.Config.Tracer; evm.depth > 0 && (h == nil || h.OnExit == nil && h.OnOpcode == nil) {
		scratch = &evm.pcOut
	}
	out, err := safeRun(p, scratch, input)
	if err != nil && isNotImplemented(err) {
		evm.noteMissing(addr)
	}
	return out, gas, err
}

// errPrecompilePanic reports a precompile that panicked; the call fails
// like any other precompile error instead of taking the node down.
var errPrecompilePanic = errors.New("precompile panicked")

// safeRun runs p on input, its output in s if p can write there and s is
// not nil.
func safeRun(p Precompile, s *precompile.Scratch, input []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", errPrecompilePanic, r)
		}
	}()
	if in, ok := p.(precompile.IntoContract); ok && s != nil {
		return in.RunInto(s, input)
	}
	return p.Run(input)
}

func (evm *EVM) noteMissing(addr types.Address) {
	for _, a := range evm.missing {
		if a == addr {
			return
		}
	}
	evm.missing = append(evm.missing, addr)
}

// CreateAddress is the address CREATE gives a contract deployed by sender
// at nonce: keccak256(rlp([sender, nonce]))[12:].
func CreateAddress(sender types.Address, nonce uint64) types.Address {
	payload := rlp.AppendString(nil, sender[:])
	payload = rlp.AppendUint64(payload, nonce)
	enc := rlp.AppendListHeader(make([]byte, 0, len(payload)+2), len(payload))
	enc = append(enc, payload...)
	h := crypto.Keccak256(enc)
	return types.BytesToAddress(h[12:])
}

// CreateAddress2 is the CREATE2 address (EIP-1014):
// keccak256(0xff ++ sender ++ salt ++ keccak256(initcode))[12:].
func CreateAddress2(sender types.Address, salt [32]byte, initCodeHash []byte) types.Address {
	h := crypto.Keccak256([]byte{0xff}, sender[:], salt[:], initCodeHash)
	return types.BytesToAddress(h[12:])
}

// Create deploys a contract with code as init code at the CREATE address.
func (evm *EVM) Create(caller types.Address, code []byte, gas uint64, value *uint256.Int) ([]byte, types.Address, uint64, error) {
	addr := CreateAddress(caller, evm.StateDB.GetNonce(caller))
	return evm.create(FrameCreate, caller, code, gas, value, addr)
}

// Create2 deploys a contract at the CREATE2 address for salt.
func (evm *EVM) Create2(caller types.Address, code []byte, gas uint64, value *uint256.Int, salt *uint256.Int) ([]byte, types.Address, uint64, error) {
	codeHash := crypto.Keccak256(code)
	addr := CreateAddress2(caller, salt.Bytes32(), codeHash[:])
	return evm.create(FrameCreate2, caller, code, gas, value, addr)
}

func (evm *EVM) create(typ byte, caller types.Address, code []byte, gas uint64, value *uint256.Int, addr types.Address) (ret []byte, _ types.Address, leftOver uint64, err error) {
	if evm.Config.Tracer != nil {
		evm.traceEnter(typ, caller, addr, code, gas, value)
		startGas := gas
		defer func() { evm.traceExit(startGas, leftOver, ret, err) }()
	}
	if evm.depth > MaxCallDepth {
		return nil, types.Address{}, gas, ErrDepth
	}
	if !evm.canTransfer(caller, value) {
		return nil, types.Address{}, gas, ErrInsufficientBalance
	}
	nonce := evm.StateDB.GetNonce(caller)
	if nonce+1 < nonce {
		return nil, types.Address{}, gas, ErrNonceUintOverflow
	}
	evm.StateDB.SetNonce(caller, nonce+1)
	if evm.fork >= forks.Berlin {
		evm.StateDB.AddAddressToAccessList(addr)
	}
	// EIP-684 and EIP-7610: never deploy over an account that has code,
	// a nonce or storage.
	if ch := evm.StateDB.GetCodeHash(addr); evm.StateDB.GetNonce(addr) != 0 ||
		(ch != (types.Hash{}) && ch != EmptyCodeHash) || !isEmptyRoot(evm.StateDB.GetStorageRoot(addr)) {
		return nil, types.Address{}, 0, ErrContractAddressCollision
	}
	snapshot := evm.StateDB.Snapshot()
	if !evm.StateDB.Exist(addr) {
		evm.StateDB.CreateAccount(addr)
	}
	evm.StateDB.CreateContract(addr)
	if evm.fork >= forks.SpuriousDragon {
		evm.StateDB.SetNonce(addr, 1)
	}
	evm.transfer(caller, addr, value)

	c := Contract{Caller: caller, Address: addr, Value: *value, Code: code, Gas: gas}
	ret, err = evm.run(&c, nil, false)
	if limit, _ := CodeSizeLimits(evm.Config.MaxCodeSize); err == nil && evm.fork >= forks.SpuriousDragon && uint64(len(ret)) > limit {
		err = ErrMaxCodeSizeExceeded
	}
	if err == nil && len(ret) > 0 && ret[0] == 0xef && evm.fork >= forks.London {
		err = ErrInvalidCode // EIP-3541
	}
	if err == nil {
		if c.useGas(uint64(len(ret)) * 200) {
			evm.StateDB.SetCode(addr, ret)
		} else {
			err = ErrCodeStoreOutOfGas
		}
	}
	// Frontier kept the account (without code) when the deposit could not
	// be paid for.
	if err != nil && (evm.fork >= forks.Homestead || err != ErrCodeStoreOutOfGas) {
		evm.StateDB.RevertToSnapshot(snapshot)
		if err != ErrExecutionReverted {
			c.Gas = 0
		}
	}
	return ret, addr, c.Gas, err
}

func isEmptyRoot(h types.Hash) bool { return h == (types.Hash{}) || h == EmptyRootHash }
