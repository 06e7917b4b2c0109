package evm

import (
	"math"
	"unsafe"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A program is code decoded once per code hash and fork for the untraced
// loop (runProgram): one instr per instruction, PUSH values decoded,
// jump destinations resolved to instruction indices, and the code cut into
// blocks whose constant gas and stack bounds are checked once, when the
// block is entered, rather than per instruction (evmone's "advanced"
// analysis).
//
// A block starts at pc 0, at every JUMPDEST and after every instruction
// that jumps or ends the frame (JUMP, JUMPI, STOP, RETURN, REVERT,
// SELFDESTRUCT, an undefined opcode), so its instructions run in order
// from its first to its last unless one fails. Entering it charges the
// constant gas of all of them and checks that the stack neither
// underflows nor overflows inside it. Charging ahead is exact because no
// instruction the loop runs inline looks at the gas left, and every other
// one (the table's: GAS, CALL, SSTORE, the memory and copy operations,
// ...) runs with the block's not-yet-due constant gas added back (its
// correction), so it sees and charges exactly what the instruction-by-
// instruction loop would. When the entry check fails, or an instruction
// leaves less gas than the rest of its block costs, the frame goes on in
// interpretChecked from there, which fails at the same instruction with
// the same error as the traced loop.
type program struct {
	ins    []instr
	consts []uint256.Int // values of PUSH9..PUSH32
	// dests maps a code position to 1 + the index of the block a JUMPDEST
	// there starts; 0 where no JUMPDEST is.
	dests []uint32
}

// instr is one decoded instruction.
type instr struct {
	op OpCode // the opcode; opBlock for a block's entry; INVALID for any byte the fork does not define
	_  [3]byte
	pc uint32 // where it sits in the code
	// arg is PUSH1..PUSH8's value, PUSH9..PUSH32's index in consts,
	// opBlock's packed check (see blockArg), a fused jump's destination,
	// and for the table's operations the constant gas of the rest of its
	// block.
	arg uint64
}

// next returns the instruction after in. runProgram steps with it only
// past an instruction that does not end the frame, and decode ends every
// program with STOP, so it never steps past the last one.
func (in *instr) next() *instr {
	return (*instr)(unsafe.Add(unsafe.Pointer(in), unsafe.Sizeof(instr{})))
}

// enter checks the entry of the block whose opBlock is in, at stack
// height sp with gas left: when the block's constant gas is paid and its
// stack bounds hold, it returns the gas left after paying it and true.
// The loop runs it where a block is entered in order (opBlock's arm) and
// right where a jump lands on one, saving the jump a dispatch; when it
// fails there, the jump stops on the opBlock, whose arm hands the frame
// to the instruction-by-instruction loop.
func (in *instr) enter(sp int, gas uint64) (uint64, bool) {
	a := in.arg
	if g := a & maxBlockGas; gas >= g && sp >= int(a>>32&0xffff) && sp < int(a>>48) {
		return gas - g, true
	}
	return gas, false
}

// The program's pseudo-opcodes. Their bytes are undefined in every fork
// (validateTables checks), so no real instruction decodes to one: bytes a
// fork does not define decode to INVALID.
const (
	opBlock OpCode = 0x0c // a block's entry
	// A PUSH of at most 8 bytes followed by JUMP or JUMPI (ops_gen.go's
	// fusedOps): arg is the index of the destination's block, -1 when
	// no JUMPDEST is there.
	opPushJump  OpCode = 0x0d
	opPushJumpi OpCode = 0x0e
)

// pseudoOps lists them all.
var pseudoOps = [...]OpCode{opBlock, opPushJump, opPushJumpi}

// maxBlockGas bounds one block's constant gas so it packs in 32 bits; a
// longer run is cut into several blocks.
const maxBlockGas = math.MaxUint32

// blockArg packs a block's check: its constant gas, the least stack height
// it may be entered with, and the greatest.
func blockArg(gas uint64, minSP, maxSP int) uint64 {
	return gas | uint64(minSP)<<32 | uint64(maxSP)<<48
}

// target returns the instruction index of the block a jump to dest
// enters, or -1 when dest is not a JUMPDEST.
func (p *program) target(dest *uint256.Int) int {
	d, overflow := dest.Uint64WithOverflow()
	if overflow || d >= uint64(len(p.dests)) {
		return -1
	}
	return int(p.dests[d]) - 1
}

// endsBlock reports whether op is an instruction after which the next one
// only runs when jumped to (or, after JUMPI, when the jump is not taken).
func endsBlock(op OpCode, o *operation) bool {
	switch op {
	case JUMP, JUMPI, STOP, RETURN, REVERT, SELFDESTRUCT:
		return true
	}
	return o.undefined
}

// inlineOp reports whether the untraced loop runs op itself (it then does
// not look at the gas left), as opposed to through the table with the
// block's correction.
func inlineOp(op OpCode) bool {
	switch {
	case op >= PUSH0 && op <= PUSH32, op >= DUP1 && op <= DUP16, op >= SWAP1 && op <= SWAP16:
		return true
	}
	for _, g := range generatedOps {
		if g.op == op {
			return g.inline
		}
	}
	for _, f := range fusedOps {
		if f.pseudo == op {
			return true
		}
	}
	return false
}

// fusedWithPush returns the pseudo-opcode of a PUSH followed by op, if
// the loop has one.
func fusedWithPush(op OpCode) (OpCode, bool) {
	for _, f := range fusedOps {
		if f.op == op {
			return f.pseudo, true
		}
	}
	return 0, false
}

// inlined caches inlineOp per byte.
var inlined = func() (t [256]bool) {
	for i := range t {
		t[i] = inlineOp(OpCode(i))
	}
	return t
}()

// decode builds the program of code under the fork whose table is t.
func decode(code []byte, t *JumpTable) *program {
	p := &program{
		ins:   make([]instr, 0, len(code)/2+4),
		dests: make([]uint32, len(code)),
	}
	var (
		block      = -1 // index of the current block's opBlock
		gas        uint64
		height     int  // stack height relative to the block's entry
		need, peak int  // lowest entry height it needs, highest height it reaches
		open       bool // a block is open
		fused      []int
	)
	closeBlock := func() {
		if !open {
			return
		}
		minSP := min(need, stackLimit+1)
		maxSP := max(stackLimit-peak, -1) + 1 // exclusive upper bound, 0 when no height fits
		p.ins[block].arg = blockArg(gas, minSP, maxSP)
		// The table's operations got their prefix gas; turn it into what
		// is still due after them.
		for i := block + 1; i < len(p.ins); i++ {
			if in := &p.ins[i]; !inlined[in.op] {
				in.arg = gas - in.arg
			}
		}
		open = false
	}
	startBlock := func(pc int) {
		closeBlock()
		p.ins = append(p.ins, instr{op: opBlock, pc: uint32(pc)})
		block, gas, height, need, peak, open = len(p.ins)-1, 0, 0, 0, 0, true
	}
	// add appends the instruction op at pc, whose immediate data (PUSH)
	// has been decoded into arg.
	add := func(pc int, op OpCode, arg uint64) {
		o := &t[op]
		if op == JUMPDEST && !o.undefined {
			startBlock(pc)
			p.dests[pc] = uint32(block + 1)
		} else if !open {
			startBlock(pc)
		}
		if o.undefined {
			op, o = INVALID, &t[INVALID]
		}
		if gas+o.constantGas > maxBlockGas {
			startBlock(pc)
		}
		info := opInfos[op]
		need = max(need, info.pop-height)
		height += info.push - info.pop
		peak = max(peak, height)
		gas += o.constantGas
		if f, ok := fusedWithPush(op); ok && len(p.ins)-1 > block && isSmallPush(p.ins[len(p.ins)-1].op) {
			// The PUSH before it in the same block becomes the pair; its
			// arg, the destination, is resolved once every block is known.
			p.ins[len(p.ins)-1].op = f
			fused = append(fused, len(p.ins)-1)
		} else if op != JUMPDEST {
			if !inlined[op] {
				arg = gas // the prefix; closeBlock makes it the correction
			}
			p.ins = append(p.ins, instr{op: op, pc: uint32(pc), arg: arg})
		}
		if endsBlock(op, o) {
			closeBlock()
		}
	}
	pc := 0
	for ; pc < len(code); pc++ {
		op := OpCode(code[pc])
		var arg uint64
		switch {
		case op.IsPush() && !t[op].undefined:
			n := int(op - PUSH0)
			// Data running past the end of code reads as zero bytes on
			// the right.
			var buf [32]byte
			copy(buf[32-n:], code[pc+1:min(pc+1+n, len(code))])
			var v uint256.Int
			v.SetBytes32(buf[:])
			if n <= 8 {
				arg = v[0]
			} else {
				arg = uint64(len(p.consts))
				p.consts = append(p.consts, v)
			}
			add(pc, op, arg)
			pc += n
			continue
		}
		add(pc, op, arg)
	}
	add(min(pc, len(code)), STOP, 0) // the implicit STOP past the end
	closeBlock()
	for _, i := range fused {
		in := &p.ins[i]
		if dest := in.arg; dest < uint64(len(p.dests)) && p.dests[dest] != 0 {
			in.arg = uint64(p.dests[dest] - 1)
		} else {
			in.arg = math.MaxUint64 // -1 as an int: no JUMPDEST there
		}
	}
	return p
}

// isSmallPush reports whether op pushes a value held in an instr's arg.
func isSmallPush(op OpCode) bool { return op >= PUSH1 && op < PUSH1+8 }

// size is the program's footprint in bytes, for the cache's bound.
func (p *program) size() int {
	return len(p.ins)*int(unsafe.Sizeof(instr{})) + len(p.consts)*32 + len(p.dests)*4
}

type programKey struct {
	code  types.Hash
	table *JumpTable
}

// sharedPrograms keeps programs between frames and transactions, keyed by
// code hash and fork, since the same contracts are called over and over.
var sharedPrograms = &codeCache[programKey, *program]{}

// program returns the contract's program for the fork whose table is t.
func (c *Contract) program(t *JumpTable) *program {
	if c.CodeHash.IsZero() {
		return decode(c.Code, t) // init code: not worth keeping
	}
	k := programKey{c.CodeHash, t}
	if p, ok := sharedPrograms.lookup(k); ok && len(p.dests) == len(c.Code) {
		return p
	}
	// Absent, or kept under a hash that does not belong to this code.
	p := decode(c.Code, t)
	sharedPrograms.put(k, p, p.size())
	return p
}
