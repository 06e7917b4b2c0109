package evm

import "math/bits"

// ScopeContext is the per-frame machine state handed to every operation.
type ScopeContext struct {
	Memory   *Memory
	Stack    *Stack
	Contract *Contract
}

type (
	executionFunc func(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error)
	// gasFunc returns the dynamic part of an operation's cost; memorySize
	// is the word-rounded memory size the operation needs.
	gasFunc func(evm *EVM, contract *Contract, stack *Stack, mem *Memory, memorySize uint64) (uint64, error)
	// memorySizeFunc returns the highest byte an operation touches.
	memorySizeFunc func(stack *Stack) (size uint64, overflow bool)
)

type operation struct {
	execute     executionFunc
	constantGas uint64
	dynamicGas  gasFunc
	minStack    int // items the operation pops
	maxStack    int // highest stack length at which it still fits
	memorySize  memorySizeFunc
	undefined   bool
}

// JumpTable maps every opcode byte to its operation for one fork.
type JumpTable [256]operation

// run executes a frame's code. The caller has set up contract.Gas and
// handles snapshots; run only owns the stack and memory.
func (evm *EVM) run(contract *Contract, input []byte, readOnly bool) (ret []byte, err error) {
	evm.depth++
	defer func() { evm.depth-- }()
	if readOnly && !evm.readOnly {
		evm.readOnly = true
		defer func() { evm.readOnly = false }()
	}
	evm.returnData = nil
	if len(contract.Code) == 0 {
		return nil, nil
	}
	contract.Input = input

	var (
		table = evm.table
		code  = contract.Code
		mem   = newMemory()
		stack = newStack()
		scope = ScopeContext{Memory: mem, Stack: stack, Contract: contract}
		pc    uint64
		res   []byte
	)
	defer func() {
		returnStack(stack)
		returnMemory(mem)
	}()

	for {
		var opcode byte
		if pc < uint64(len(code)) {
			opcode = code[pc]
		}
		op := &table[opcode]
		if n := stack.n; n < op.minStack {
			return nil, ErrStackUnderflow
		} else if n > op.maxStack {
			return nil, ErrStackOverflow
		}
		if contract.Gas < op.constantGas {
			return nil, ErrOutOfGas
		}
		contract.Gas -= op.constantGas

		if op.dynamicGas != nil {
			var memorySize uint64
			if op.memorySize != nil {
				size, overflow := op.memorySize(stack)
				if overflow {
					return nil, ErrGasUintOverflow
				}
				// Round up to whole words, guarding the addition.
				if size > 0 {
					if size > maxMemory {
						return nil, ErrGasUintOverflow
					}
					memorySize = (size + 31) / 32 * 32
				}
			}
			dyn, err := op.dynamicGas(evm, contract, stack, mem, memorySize)
			if err != nil {
				return nil, err
			}
			if contract.Gas < dyn {
				return nil, ErrOutOfGas
			}
			contract.Gas -= dyn
			if memorySize > 0 {
				mem.Resize(memorySize)
			}
		}
		res, err = op.execute(&pc, evm, &scope)
		if err != nil {
			break
		}
		pc++
	}
	if err == errStopToken {
		err = nil
	}
	return res, err
}

// maxMemory bounds memory sizes so that word and gas arithmetic on them
// cannot overflow; no gas limit can pay for more.
const maxMemory = 0x1FFFFFFFE0

// memoryGasCost returns the gas to grow memory to newSize bytes: the
// difference of 3*words + words^2/512 between the new and current size.
func memoryGasCost(mem *Memory, newSize uint64) (uint64, error) {
	if newSize == 0 {
		return 0, nil
	}
	if newSize > maxMemory {
		return 0, ErrGasUintOverflow
	}
	words := (newSize + 31) / 32
	if newSize > uint64(mem.Len()) {
		hi, sq := bits.Mul64(words, words)
		_ = hi
		total := words*3 + sq/512
		fee := total - mem.lastGasCost
		mem.lastGasCost = total
		return fee, nil
	}
	return 0, nil
}
