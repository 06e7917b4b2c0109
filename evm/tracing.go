package evm

import (
	"encoding/json"
	"errors"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Tracer is what every tracer is: the hooks it observes execution with
// and the answer it renders from what it saw. One tracer observes one
// transaction (or call); debug_trace*, trace_* and ots_* all drive
// tracers through this interface alone, so a new tracer is one type.
type Tracer interface {
	Hooks() *Hooks
	// Result is the tracer's answer in its own JSON shape, once the
	// transaction is over.
	Result() (json.RawMessage, error)
}

// Hooks observe execution for the tracers. Every field is optional; with
// Config.Tracer nil the interpreter pays nothing for them.
type Hooks struct {
	// OnTxStart runs before a message is validated and charged for, with
	// the state as the transaction finds it; OnTxEnd runs after gas is
	// settled with the sender and the coinbase, with the result, or with
	// the error that made the message invalid (res nil).
	OnTxStart func(vm *EVM, msg *Message)
	OnTxEnd   func(res *Result, err error)
	// OnOpcode runs before each opcode with the gas left and the total gas
	// it is charged; err is set when charging fails. scope is the running
	// frame (valid during the call only); returnData is what the last
	// finished call frame returned.
	OnOpcode func(pc uint64, op byte, gas, cost uint64, scope *ScopeContext, returnData []byte, depth int, err error)
	// OnEnter and OnExit bracket every frame, the top-level one at depth 0.
	// typ is the opcode that opened it (CALL, CALLCODE, DELEGATECALL,
	// STATICCALL, CREATE, CREATE2, SELFDESTRUCT). reverted says the
	// frame's state changes were undone (every error but a pre-Homestead
	// code-store out of gas).
	OnEnter func(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int)
	OnExit  func(depth int, output []byte, gasUsed uint64, err error, reverted bool)
	// OnLog runs when a LOG opcode emits a log; a frame that fails later
	// takes it back, which OnExit's error tells.
	OnLog func(*types.Log)
}

// StackData is the frame's stack, bottom to top.
func (s *ScopeContext) StackData() []uint256.Int { return s.Stack.data[:s.Stack.n] }

// MemoryData is the frame's memory.
func (s *ScopeContext) MemoryData() []byte { return s.Memory.store }

// Address is the account whose storage the frame runs on.
func (s *ScopeContext) Address() types.Address { return s.Contract.Address }

// Caller is the frame's msg.sender.
func (s *ScopeContext) Caller() types.Address { return s.Contract.Caller }

// Frame types reported to Hooks.OnEnter: the opcode that opened the frame
// (OpCode(typ).String() names it).
const (
	FrameCreate       = byte(CREATE)
	FrameCall         = byte(CALL)
	FrameCallCode     = byte(CALLCODE)
	FrameDelegateCall = byte(DELEGATECALL)
	FrameCreate2      = byte(CREATE2)
	FrameStaticCall   = byte(STATICCALL)
	FrameSelfDestruct = byte(SELFDESTRUCT)
)

func (evm *EVM) traceEnter(typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int) {
	if h := evm.Config.Tracer; h != nil && h.OnEnter != nil {
		h.OnEnter(evm.depth, typ, from, to, input, gas, value)
	}
}

func (evm *EVM) traceExit(startGas, leftGas uint64, output []byte, err error) {
	if h := evm.Config.Tracer; h != nil && h.OnExit != nil {
		reverted := err != nil && (evm.fork >= forks.Homestead || !errors.Is(err, ErrCodeStoreOutOfGas))
		h.OnExit(evm.depth, output, startGas-leftGas, err, reverted)
	}
}

func (evm *EVM) traceLog(l *types.Log) {
	if h := evm.Config.Tracer; h != nil && h.OnLog != nil {
		h.OnLog(l)
	}
}

// interpretChecked is the interpreter loop without fast paths: every
// opcode through the table, its stack bounds and gas checked one at a
// time, and reported to the tracer if there is one. It runs traced frames
// from pc 0, and the rest of an untraced frame from pc when runProgram
// finds that something in a block fails, so that it fails at the same
// instruction with the same error.
func (evm *EVM) interpretChecked(scope *ScopeContext, pc uint64) ([]byte, error) {
	var (
		table    = evm.table
		contract = scope.Contract
		code     = contract.Code
		stack    = scope.Stack
		mem      = scope.Memory
		onOpcode func(pc uint64, op byte, gas, cost uint64, scope *ScopeContext, returnData []byte, depth int, err error)
	)
	if h := evm.Config.Tracer; h != nil {
		onOpcode = h.OnOpcode
	}
	for {
		var opcode OpCode
		if pc < uint64(len(code)) {
			opcode = OpCode(code[pc])
		}
		op := &table[opcode]
		gasBefore := contract.Gas
		report := func(cost uint64, err error) {
			if onOpcode != nil {
				onOpcode(pc, byte(opcode), gasBefore, cost, scope, evm.returnData, evm.depth, err)
			}
		}
		if n := stack.n; n < op.minStack {
			report(op.constantGas, ErrStackUnderflow)
			return nil, ErrStackUnderflow
		} else if n > op.maxStack {
			report(op.constantGas, ErrStackOverflow)
			return nil, ErrStackOverflow
		}
		if contract.Gas < op.constantGas {
			report(op.constantGas, ErrOutOfGas)
			return nil, ErrOutOfGas
		}
		contract.Gas -= op.constantGas
		var memorySize uint64
		if op.dynamicGas != nil {
			if op.memorySize != nil {
				size, overflow := op.memorySize(stack)
				if overflow || size > maxMemory {
					report(op.constantGas, ErrGasUintOverflow)
					return nil, ErrGasUintOverflow
				}
				if size > 0 {
					memorySize = (size + 31) / 32 * 32
				}
			}
			dyn, err := op.dynamicGas(evm, contract, stack, mem, memorySize)
			if err == nil && contract.Gas < dyn {
				err = ErrOutOfGas
			}
			if err != nil {
				report(op.constantGas+dyn, err)
				return nil, err
			}
			contract.Gas -= dyn
		}
		report(gasBefore-contract.Gas, nil)
		if memorySize > 0 {
			mem.Resize(memorySize)
		}
		res, err := op.execute(&pc, evm, scope)
		if err != nil {
			return evm.finish(res, err)
		}
		pc++
	}
}
