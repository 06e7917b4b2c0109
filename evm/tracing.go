package evm

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Hooks observe execution for debug_trace*. Every field is optional; with
// Config.Tracer nil the interpreter pays nothing for them.
type Hooks struct {
	// OnOpcode runs before each opcode with the gas left and the total gas
	// it is charged; err is set when charging fails. stack is bottom to top.
	OnOpcode func(pc uint64, op byte, gas, cost uint64, stack []uint256.Int, memory []byte, depth int, err error)
	// OnEnter and OnExit bracket every frame, the top-level one at depth 0.
	// typ is the opcode that opened it (CALL, CALLCODE, DELEGATECALL,
	// STATICCALL, CREATE, CREATE2, SELFDESTRUCT).
	OnEnter func(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int)
	OnExit  func(depth int, output []byte, gasUsed uint64, err error, reverted bool)
}

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
		h.OnExit(evm.depth, output, startGas-leftGas, err, err == ErrExecutionReverted)
	}
}

// interpretTraced is the interpreter loop without fast paths, reporting
// each opcode to the tracer.
func (evm *EVM) interpretTraced(scope *ScopeContext) ([]byte, error) {
	var (
		h        = evm.Config.Tracer
		table    = evm.table
		contract = scope.Contract
		code     = contract.Code
		stack    = scope.Stack
		mem      = scope.Memory
		pc       uint64
	)
	for {
		var opcode OpCode
		if pc < uint64(len(code)) {
			opcode = OpCode(code[pc])
		}
		op := &table[opcode]
		gasBefore := contract.Gas
		report := func(cost uint64, err error) {
			if h.OnOpcode != nil {
				h.OnOpcode(pc, byte(opcode), gasBefore, cost, stack.data[:stack.n], mem.store, evm.depth, err)
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
