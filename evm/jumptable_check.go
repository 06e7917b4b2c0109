package evm

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/chaind/chaind/internal/forks"
)

// validateTables checks every fork's jump table at init: the interpreter
// trusts the table for stack bounds and gas, so a slip in a fork's diff
// (an operation without gas, bounds that disagree with its stack effect, a
// byte made valid that names no instruction) would otherwise surface as a
// consensus failure on some block, not as an error here.
func validateTables() error {
	var errs []error
	for f := range forks.Count {
		if err := tables[f].validate(); err != nil {
			errs = append(errs, fmt.Errorf("evm: jump table of %v: %w", f, err))
		}
		if f == 0 {
			continue
		}
		// Forks only add instructions; none has taken one away.
		for op := range tables[f] {
			if !tables[f-1][op].undefined && tables[f][op].undefined {
				errs = append(errs, fmt.Errorf("evm: jump table of %v drops %v, defined in %v", f, OpCode(op), f-1))
			}
		}
	}
	return errors.Join(errs...)
}

// errTable marks every invariant a jump table breaks.
var errTable = errors.New("jump table invariant broken")

// validate returns every invariant t breaks, each wrapping errTable.
func (t *JumpTable) validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{errTable}, args...)...))
	}
	undefinedFn := funcID(opUndefined)
	for i := range t {
		op, o, info := OpCode(i), &t[i], opInfos[i]
		if o.undefined {
			// An undefined byte fails as invalid before anything else:
			// no stack bounds, no gas, nothing run but opUndefined.
			if funcID(o.execute) != undefinedFn || o.minStack != 0 || o.maxStack != stackLimit ||
				o.constantGas != 0 || o.dynamicGas != nil || o.memorySize != nil {
				bad("%v is undefined but carries an operation", op)
			}
			continue
		}
		switch {
		case info.name == "":
			bad("byte %#x is defined but names no instruction", byte(op))
		case op == INVALID:
			bad("INVALID is defined (EIP-141 keeps it invalid)")
		case o.execute == nil || funcID(o.execute) == undefinedFn:
			bad("%v is defined without an operation to run", op)
		}
		if want := stackLimit + info.pop - info.push; o.minStack != info.pop || o.maxStack != want {
			bad("%v has stack bounds [%d, %d], its stack effect (pop %d, push %d) gives [%d, %d]",
				op, o.minStack, o.maxStack, info.pop, info.push, info.pop, want)
		}
		if o.constantGas == 0 && o.dynamicGas == nil && op != STOP {
			bad("%v charges no gas", op)
		}
		if o.memorySize != nil && o.dynamicGas == nil {
			bad("%v touches memory but has no dynamic gas to charge its expansion", op)
		}
	}
	// The interpreter's MLOAD/MSTORE fast path skips the dynamic gas when
	// the memory is already large enough, which is right only while their
	// dynamic gas is the memory expansion alone.
	for _, op := range []OpCode{MLOAD, MSTORE} {
		if funcID(t[op].dynamicGas) != funcID(gasMemory) {
			bad("%v's dynamic gas is not gasMemory, which the interpreter's fast path assumes", op)
		}
	}
	// Its KECCAK256 fast path charges keccakWordGas per word over paid
	// memory, which is right only while that is the whole dynamic gas.
	if funcID(t[KECCAK256].dynamicGas) != funcID(gasKeccak256) {
		bad("KECCAK256's dynamic gas is not gasKeccak256, which the interpreter's fast path assumes")
	}
	// The interpreter loop runs opgen's operations inline from the same
	// bodies as these functions: right only while every fork that has
	// the opcode runs that function, and, for an arm whose opcode is not
	// gated by a fork, while Frontier already has it.
	for _, g := range generatedOps {
		o := &t[g.op]
		if !o.undefined && funcID(o.execute) != funcID(g.exec) {
			bad("%v does not run its generated operation, which the interpreter loop inlines", g.op)
		}
		if g.inline && !g.gated && o.undefined {
			bad("%v is inlined unchecked but undefined here", g.op)
		}
	}
	// A program charges an inlined operation's constant gas with its
	// block's and never asks for dynamic gas; opBlock must be no real
	// instruction.
	for op := range t {
		if inlined[op] && !t[op].undefined && t[op].dynamicGas != nil {
			bad("%v is run inline by the interpreter loop but has dynamic gas", OpCode(op))
		}
	}
	for _, op := range pseudoOps {
		if !t[op].undefined {
			bad("%v is defined, but programs use it as a pseudo-opcode", op)
		}
	}
	return errors.Join(errs...)
}

// funcID identifies a function value's code, so two table entries can be
// compared (Go compares functions only with nil).
func funcID(f any) uintptr {
	v := reflect.ValueOf(f)
	if !v.IsValid() || v.IsNil() {
		return 0
	}
	return v.Pointer()
}
