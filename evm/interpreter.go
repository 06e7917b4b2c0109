package evm

//go:generate go run github.com/chaind/chaind/internal/tools/opgen -out ops_gen.go -loop interpreter.go

import (
	"math/bits"

	"github.com/holiman/uint256"
)

// ScopeContext is the per-frame machine state handed to every operation.
type ScopeContext struct {
	Memory   *Memory
	Stack    *Stack
	Contract *Contract
	// pc is the program counter the table's functions get by address
	// from runProgram (a field, so the loop allocates nothing for it).
	pc uint64
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
		mem   = newMemory()
		stack = newStack()
		scope = ScopeContext{Memory: mem, Stack: stack, Contract: contract}
	)
	defer func() {
		returnStack(stack)
		returnMemory(mem)
	}()
	if evm.Config.Tracer != nil && evm.Config.Tracer.OnOpcode != nil {
		return evm.interpretChecked(&scope, 0)
	}
	return evm.runProgram(contract.program(evm.table), &scope)
}

// runProgram is the untraced loop: it runs the frame's decoded program
// (see program), checking gas and stack bounds per block.
func (evm *EVM) runProgram(p *program, scope *ScopeContext) ([]byte, error) {
	// The stack height and the gas left live in locals, which the compiler
	// keeps in registers, rather than in stack.n and contract.Gas: a load
	// and a store through memory per opcode put store-to-load forwarding
	// on the loop's critical path. They are written back before anything
	// outside the loop reads them (the table's gas, memory-size and
	// execute functions) and read again after. gas is what is left once
	// the current block's constant gas is paid in full: an operation of
	// the table sees gas plus its correction.
	//
	// Only these, the instruction pointer in, the stack's base, scope, evm
	// and p live across the loop; everything else (the table, the memory,
	// the contract, the PUSH constants) is loaded where an arm needs it. With more live values than registers the compiler
	// spilled some and reshuffled the rest on every back edge: a dozen
	// moves per instruction, the instruction index among them through
	// the stack frame.
	var (
		data    = &scope.Stack.data
		sp, gas = scope.Stack.n, scope.Contract.Gas
		in      = &p.ins[0]
	)
	for {
		// The most frequent opcodes, which behave the same in every fork
		// that has them, run inline: an indirect call (and writing sp and
		// gas back for it) costs as much as the operation itself. Their
		// gas and stack bounds were checked when their block was entered;
		// an opcode the fork does not have was decoded as INVALID.
		switch in.op {
		case opBlock:
			if g, ok := in.enter(sp, gas); ok {
				gas = g
				in = in.next()
				continue
			}
			// Something in the block fails: find out where and how one
			// instruction at a time.
			scope.Stack.n, scope.Contract.Gas = sp, gas
			return evm.interpretChecked(scope, uint64(in.pc))
		case PUSH0:
			data[sp].Clear()
			sp++
			in = in.next()
			continue
		case PUSH1, PUSH1 + 1, PUSH1 + 2, PUSH1 + 3, PUSH1 + 4, PUSH1 + 5, PUSH1 + 6, PUSH1 + 7:
			data[sp] = uint256.Int{in.arg}
			sp++
			in = in.next()
			continue
		case PUSH1 + 8, PUSH1 + 9, PUSH1 + 10, PUSH1 + 11, PUSH1 + 12, PUSH1 + 13, PUSH1 + 14, PUSH1 + 15,
			PUSH1 + 16, PUSH1 + 17, PUSH1 + 18, PUSH1 + 19, PUSH1 + 20, PUSH1 + 21, PUSH1 + 22, PUSH1 + 23,
			PUSH1 + 24, PUSH1 + 25, PUSH1 + 26, PUSH1 + 27, PUSH1 + 28, PUSH1 + 29, PUSH1 + 30, PUSH32:
			data[sp] = p.consts[in.arg]
			sp++
			in = in.next()
			continue
			// The arms below are written by internal/tools/opgen from the same
			// bodies as the table's functions (ops_gen.go).
			// opgen:begin
		case DUP1 + 0:
			data[sp] = data[sp-1]
			sp++
			in = in.next()
			continue
		case DUP1 + 1:
			data[sp] = data[sp-2]
			sp++
			in = in.next()
			continue
		case DUP1 + 2:
			data[sp] = data[sp-3]
			sp++
			in = in.next()
			continue
		case DUP1 + 3:
			data[sp] = data[sp-4]
			sp++
			in = in.next()
			continue
		case DUP1 + 4:
			data[sp] = data[sp-5]
			sp++
			in = in.next()
			continue
		case DUP1 + 5:
			data[sp] = data[sp-6]
			sp++
			in = in.next()
			continue
		case DUP1 + 6:
			data[sp] = data[sp-7]
			sp++
			in = in.next()
			continue
		case DUP1 + 7:
			data[sp] = data[sp-8]
			sp++
			in = in.next()
			continue
		case DUP1 + 8:
			data[sp] = data[sp-9]
			sp++
			in = in.next()
			continue
		case DUP1 + 9:
			data[sp] = data[sp-10]
			sp++
			in = in.next()
			continue
		case DUP1 + 10:
			data[sp] = data[sp-11]
			sp++
			in = in.next()
			continue
		case DUP1 + 11:
			data[sp] = data[sp-12]
			sp++
			in = in.next()
			continue
		case DUP1 + 12:
			data[sp] = data[sp-13]
			sp++
			in = in.next()
			continue
		case DUP1 + 13:
			data[sp] = data[sp-14]
			sp++
			in = in.next()
			continue
		case DUP1 + 14:
			data[sp] = data[sp-15]
			sp++
			in = in.next()
			continue
		case DUP1 + 15:
			data[sp] = data[sp-16]
			sp++
			in = in.next()
			continue
		case SWAP1 + 0:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-2]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 1:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-3]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 2:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-4]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 3:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-5]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 4:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-6]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 5:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-7]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 6:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-8]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 7:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-9]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 8:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-10]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 9:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-11]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 10:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-12]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 11:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-13]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 12:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-14]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 13:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-15]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 14:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-16]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case SWAP1 + 15:
			// Limb by limb: a whole-struct swap through two pointers
			// compiles to slow memory-to-memory copies.
			top, other := &data[sp-1], &data[sp-17]
			top[0], other[0] = other[0], top[0]
			top[1], other[1] = other[1], top[1]
			top[2], other[2] = other[2], top[2]
			top[3], other[3] = other[3], top[3]
			in = in.next()
			continue
		case ADD:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Add(x, y)
			in = in.next()
			continue
		case MUL:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Mul(x, y)
			in = in.next()
			continue
		case SUB:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Sub(x, y)
			in = in.next()
			continue
		case DIV:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Div(x, y)
			in = in.next()
			continue
		case SDIV:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.SDiv(x, y)
			in = in.next()
			continue
		case MOD:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Mod(x, y)
			in = in.next()
			continue
		case SMOD:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.SMod(x, y)
			in = in.next()
			continue
		case ADDMOD:
			x, y, z := &data[sp-1], &data[sp-2], &data[sp-3]
			sp -= 2
			z.AddMod(x, y, z)
			in = in.next()
			continue
		case MULMOD:
			x, y, z := &data[sp-1], &data[sp-2], &data[sp-3]
			sp -= 2
			z.MulMod(x, y, z)
			in = in.next()
			continue
		case SIGNEXTEND:
			back, num := &data[sp-1], &data[sp-2]
			sp--
			num.ExtendSign(num, back)
			in = in.next()
			continue
		case LT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Lt(y))
			in = in.next()
			continue
		case GT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Gt(y))
			in = in.next()
			continue
		case SLT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Slt(y))
			in = in.next()
			continue
		case SGT:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Sgt(y))
			in = in.next()
			continue
		case EQ:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			setBool(y, x.Eq(y))
			in = in.next()
			continue
		case ISZERO:
			x := &data[sp-1]
			setBool(x, x.IsZero())
			in = in.next()
			continue
		case AND:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.And(x, y)
			in = in.next()
			continue
		case OR:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Or(x, y)
			in = in.next()
			continue
		case XOR:
			x, y := &data[sp-1], &data[sp-2]
			sp--
			y.Xor(x, y)
			in = in.next()
			continue
		case NOT:
			x := &data[sp-1]
			x.Not(x)
			in = in.next()
			continue
		case BYTE:
			th, val := &data[sp-1], &data[sp-2]
			sp--
			val.Byte(th)
			in = in.next()
			continue
		case SHL:
			shift, value := &data[sp-1], &data[sp-2]
			sp--
			if shift.LtUint64(256) {
				value.Lsh(value, uint(shift.Uint64()))
			} else {
				value.Clear()
			}
			in = in.next()
			continue
		case SHR:
			shift, value := &data[sp-1], &data[sp-2]
			sp--
			if shift.LtUint64(256) {
				value.Rsh(value, uint(shift.Uint64()))
			} else {
				value.Clear()
			}
			in = in.next()
			continue
		case SAR:
			shift, value := &data[sp-1], &data[sp-2]
			sp--
			if shift.LtUint64(256) {
				value.SRsh(value, uint(shift.Uint64()))
			} else if value.Sign() >= 0 {
				value.Clear()
			} else {
				value.SetAllOne()
			}
			in = in.next()
			continue
		case CLZ:
			x := &data[sp-1]
			x.SetUint64(uint64(256 - x.BitLen()))
			in = in.next()
			continue
		case POP:
			sp--
			in = in.next()
			continue
		case JUMPDEST:
			in = in.next()
			continue
		case JUMP:
			dest := &data[sp-1]
			sp--
			t := p.target(dest)
			if t < 0 {
				return nil, ErrInvalidJump
			}
			if evm.cancelled.Load() {
				return nil, ErrCancelled
			}
			in = &p.ins[t]
			if g, ok := in.enter(sp, gas); ok {
				gas = g
				in = in.next()
			}
			continue
		case opPushJump:
			// PUSH, then JUMP.
			if int(in.arg) < 0 {
				return nil, ErrInvalidJump
			}
			if evm.cancelled.Load() {
				return nil, ErrCancelled
			}
			in = &p.ins[in.arg]
			if g, ok := in.enter(sp, gas); ok {
				gas = g
				in = in.next()
			}
			continue
		case JUMPI:
			dest, cond := &data[sp-1], &data[sp-2]
			sp -= 2
			if !cond.IsZero() {
				t := p.target(dest)
				if t < 0 {
					return nil, ErrInvalidJump
				}
				if evm.cancelled.Load() {
					return nil, ErrCancelled
				}
				in = &p.ins[t]
				if g, ok := in.enter(sp, gas); ok {
					gas = g
					in = in.next()
				}
				continue
			}
			in = in.next()
			continue
		case opPushJumpi:
			// PUSH, then JUMPI.
			cond := &data[sp-1]
			sp--
			if !cond.IsZero() {
				if int(in.arg) < 0 {
					return nil, ErrInvalidJump
				}
				if evm.cancelled.Load() {
					return nil, ErrCancelled
				}
				in = &p.ins[in.arg]
				if g, ok := in.enter(sp, gas); ok {
					gas = g
					in = in.next()
				}
				continue
			}
			in = in.next()
			continue
		// opgen:end
		case MLOAD, MSTORE:
			// Inside already-paid memory they cost nothing dynamic. Just
			// past its end, as Solidity's free-memory pointer walks on,
			// the expansion is charged here too when the gas left can pay
			// it (else the table's path finds out where gas runs out).
			off := &data[sp-1]
			if off[1]|off[2]|off[3] == 0 && off[0] <= maxMemory-32 {
				mem := scope.Memory
				o := off[0]
				if end := o + 32; end > uint64(len(mem.store)) {
					words := toWords(end)
					total := words*3 + words*words/512
					dyn := total - mem.lastGasCost
					if gas < dyn {
						break
					}
					gas -= dyn
					mem.lastGasCost = total
					mem.Resize(words * 32)
				}
				if in.op == MLOAD {
					off.SetBytes32(mem.store[o : o+32])
				} else {
					sp -= 2
					data[sp].PutUint256(mem.store[o : o+32])
				}
				in = in.next()
				continue
			}
		case KECCAK256:
			// Over already-paid memory only the words hashed cost
			// dynamic gas; when gas cannot pay it here, the table's path
			// finds out whether the instruction-by-instruction loop
			// could have.
			off, size := &data[sp-1], &data[sp-2]
			store := scope.Memory.store
			if l, n := uint64(len(store)), size[0]; off[1]|off[2]|off[3]|size[1]|size[2]|size[3] == 0 && n <= l && off[0] <= l-n {
				if dyn := keccakWordGas * toWords(n); gas >= dyn {
					gas -= dyn
					sp--
					evm.hashToWord(size, store[off[0]:off[0]+n])
					in = in.next()
					continue
				}
			}
		}
		// Through the table, with the gas the instruction-by-instruction
		// loop would have left at this point. What it needs is loaded
		// from scope and evm here, not kept in locals across the loop.
		op, corr := &evm.table[in.op], in.arg
		contract, stack := scope.Contract, scope.Stack
		stack.n, contract.Gas = sp, gas+corr
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
			dyn, err := op.dynamicGas(evm, contract, stack, scope.Memory, memorySize)
			if err != nil {
				return nil, err
			}
			if contract.Gas < dyn {
				return nil, ErrOutOfGas
			}
			contract.Gas -= dyn
			if memorySize > 0 {
				scope.Memory.Resize(memorySize)
			}
		}
		scope.pc = uint64(in.pc)
		res, err := op.execute(&scope.pc, evm, scope)
		if err != nil {
			return evm.finish(res, err)
		}
		if contract.Gas < corr {
			// The rest of the block is not paid for any more.
			return evm.interpretChecked(scope, scope.pc+1)
		}
		sp, gas = stack.n, contract.Gas-corr
		in = in.next()
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
