package evm

//go:generate go run github.com/chaind/chaind/internal/tools/opgen -out ops_gen.go -loop interpreter.go

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
	if evm.cancelled.Load() {
		return nil, ErrCancelled
	}
	contract.Input = input

	var (
		table = evm.table
		code  = contract.Code
		mem   = newMemory()
		stack = newStack()
		scope = ScopeContext{Memory: mem, Stack: stack, Contract: contract}
		pc    uint64
	)
	defer func() {
		returnStack(stack)
		returnMemory(mem)
	}()
	if evm.Config.Tracer != nil && evm.Config.Tracer.OnOpcode != nil {
		return evm.interpretTraced(&scope)
	}

	// The stack height and the gas left live in locals, which the compiler
	// keeps in registers, rather than in stack.n and contract.Gas: a load
	// and a store through memory per opcode put store-to-load forwarding
	// on the loop's critical path. They are written back before anything
	// outside the loop reads them (the table's gas, memory-size and
	// execute functions) and read again after.
	sp, gas := stack.n, contract.Gas
	data := &stack.data
	for {
		var opcode OpCode
		if pc < uint64(len(code)) {
			opcode = OpCode(code[pc])
		}
		op := &table[opcode]
		if sp < op.minStack {
			return nil, ErrStackUnderflow
		} else if sp > op.maxStack {
			return nil, ErrStackOverflow
		}
		if gas < op.constantGas {
			return nil, ErrOutOfGas
		}
		gas -= op.constantGas

		// MLOAD/MSTORE inside already-paid memory cost nothing dynamic;
		// handle them here before the generic gas path.
		if opcode == MLOAD || opcode == MSTORE {
			off := &data[sp-1]
			if l := uint64(len(mem.store)); off[1]|off[2]|off[3] == 0 && l >= 32 && off[0] <= l-32 {
				o := off[0]
				if opcode == MLOAD {
					off.SetBytes32(mem.store[o : o+32])
				} else {
					sp -= 2
					data[sp].PutUint256(mem.store[o : o+32])
				}
				pc++
				continue
			}
		}
		if op.dynamicGas != nil {
			stack.n, contract.Gas = sp, gas
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
			if gas < dyn {
				return nil, ErrOutOfGas
			}
			gas -= dyn
			if memorySize > 0 {
				mem.Resize(memorySize)
			}
		}
		// The most frequent opcodes, which behave the same in every fork
		// that has them, run inline: an indirect call (and writing sp and
		// gas back for it) costs as much as the operation itself. Gas and
		// stack bounds were checked above from the fork's table; an arm
		// for an opcode newer than Frontier first checks that the fork has
		// it (validateTables checks that every fork runs the same
		// function for each inlined opcode).
		switch {
		case opcode >= PUSH1 && opcode <= PUSH32:
			n := uint64(opcode - PUSH0)
			s := &data[sp]
			sp++
			if end := pc + 1 + n; end <= uint64(len(code)) {
				// PUSH1 and PUSH2 are a fifth of all opcodes run:
				// spare them SetBytes's call and length switch.
				switch n {
				case 1:
					s.SetUint64(uint64(code[pc+1]))
				case 2:
					s.SetUint64(uint64(code[pc+1])<<8 | uint64(code[pc+2]))
				default:
					s.SetBytes(code[pc+1 : end])
				}
			} else {
				pushPadded(s, code, pc+1, n)
			}
			pc += n + 1
			continue
		case opcode >= DUP1 && opcode <= DUP16:
			data[sp] = data[sp-int(opcode-DUP1+1)]
			sp++
			pc++
			continue
		case opcode >= SWAP1 && opcode <= SWAP16:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-int(opcode-SWAP1+2)]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			pc++
			continue
		}
		// The arms below are written by internal/tools/opgen from the same
		// bodies as the table's functions (ops_gen.go).
		switch opcode {
		// opgen:begin
		case ADD:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Add(x, y)
		case MUL:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Mul(x, y)
		case SUB:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Sub(x, y)
		case DIV:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Div(x, y)
		case SDIV:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.SDiv(x, y)
		case MOD:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Mod(x, y)
		case LT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Lt(y))
		case GT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Gt(y))
		case SLT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Slt(y))
		case SGT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Sgt(y))
		case EQ:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Eq(y))
		case ISZERO:
			x := &data[sp-1]
			setBool(x, x.IsZero())
		case AND:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.And(x, y)
		case OR:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Or(x, y)
		case XOR:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Xor(x, y)
		case NOT:
			x := &data[sp-1]
			x.Not(x)
		case SHL:
			// Constantinople's: undefined before, which the table's operation reports.
			if op.undefined {
				return evm.finish(op.execute(&pc, evm, &scope))
			}
			shift, value := &data[sp-1], &data[sp-2]
			sp--
			if shift.LtUint64(256) {
				value.Lsh(value, uint(shift.Uint64()))
			} else {
				value.Clear()
			}
		case SHR:
			// Constantinople's: undefined before, which the table's operation reports.
			if op.undefined {
				return evm.finish(op.execute(&pc, evm, &scope))
			}
			shift, value := &data[sp-1], &data[sp-2]
			sp--
			if shift.LtUint64(256) {
				value.Rsh(value, uint(shift.Uint64()))
			} else {
				value.Clear()
			}
		case POP:
			sp--
		case JUMPDEST:
		case JUMP:
			dest := &data[sp-1]
			sp--
			if !contract.validJumpdest(dest) {
				return nil, ErrInvalidJump
			}
			// Every loop jumps, so checking here bounds how long Cancel
			// waits.
			if evm.cancelled.Load() {
				return nil, ErrCancelled
			}
			pc = dest.Uint64()
			continue
		case JUMPI:
			dest, cond := &data[sp-1], &data[sp-2]
			sp -= 2
			if !cond.IsZero() {
				if !contract.validJumpdest(dest) {
					return nil, ErrInvalidJump
				}
				if evm.cancelled.Load() {
					return nil, ErrCancelled
				}
				pc = dest.Uint64()
				continue
			}
		// opgen:end
		default:
			stack.n, contract.Gas = sp, gas
			res, err := op.execute(&pc, evm, &scope)
			if err != nil {
				return evm.finish(res, err)
			}
			sp, gas = stack.n, contract.Gas
		}
		pc++
	}
}

func (evm *EVM) finish(res []byte, err error) ([]byte, error) {
	if err == errStopToken {
		return res, nil
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
