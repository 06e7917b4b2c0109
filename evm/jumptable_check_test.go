package evm

import (
	"errors"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/forks"
)

// TestJumpTableInvariants: the real tables pass (init would have panicked
// otherwise), and each invariant rejects a table broken in its way.
func TestJumpTableInvariants(t *testing.T) {
	if err := validateTables(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(*JumpTable)
		want   string
	}{
		{"no gas", func(j *JumpTable) { j[ADD].constantGas = 0 }, "ADD charges no gas"},
		{"undefined byte made valid", func(j *JumpTable) { j[0x0c] = j[ADD] }, "byte 0xc is defined but names no instruction"},
		{"INVALID defined", func(j *JumpTable) { j[INVALID] = j[STOP] }, "INVALID is defined"},
		{"stack bound", func(j *JumpTable) { j[SWAP1+2].minStack = 3 }, "SWAP3 has stack bounds [3, 1024], its stack effect (pop 4, push 4) gives [4, 1024]"},
		{"max stack", func(j *JumpTable) { j[PUSH1].maxStack = stackLimit }, "PUSH1 has stack bounds"},
		{"no execute", func(j *JumpTable) { j[MUL].execute = nil }, "MUL is defined without an operation"},
		{"defined runs undefined", func(j *JumpTable) { j[MUL].execute = opUndefined }, "MUL is defined without an operation"},
		{"memory without gas", func(j *JumpTable) { j[CODECOPY].dynamicGas = nil }, "CODECOPY touches memory but has no dynamic gas"},
		{"undefined with gas", func(j *JumpTable) { j[0x0c].constantGas = 3 }, "opcode 0xc not defined is undefined but carries an operation"},
		{"fast path", func(j *JumpTable) { j[MLOAD].dynamicGas = gasCopy }, "MLOAD's dynamic gas is not gasMemory"},
		{"inlined op replaced", func(j *JumpTable) { j[ADD].execute = opSub }, "ADD does not run its generated operation"},
		{"ungated op undefined", func(j *JumpTable) { j[ADD] = j[0x0c] }, "ADD is inlined unchecked but undefined here"},
		{"inline op with dynamic gas", func(j *JumpTable) { j[DUP1].dynamicGas = gasMemory }, "DUP1 is run inline by the interpreter loop but has dynamic gas"},
		{"block marker defined", func(j *JumpTable) { j[opBlock] = j[ADD] }, "programs use it as a pseudo-opcode"},
		{"fused jump defined", func(j *JumpTable) { j[opPushJumpi] = j[ADD] }, "programs use it as a pseudo-opcode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := *tableFor(forks.Osaka)
			tc.break_(&j)
			err := j.validate()
			if !errors.Is(err, errTable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("fork drops an instruction", func(t *testing.T) {
		saved := tables[forks.Osaka]
		j := *saved
		j[TLOAD] = j[0x0c]
		tables[forks.Osaka] = &j
		defer func() { tables[forks.Osaka] = saved }()
		if err := validateTables(); err == nil || !strings.Contains(err.Error(), "drops TLOAD, defined in") {
			t.Fatalf("got %v", err)
		}
	})
}

// TestOpCodeNames: every byte a fork defines has a name, and the names of
// the runs count as the Yellow Paper does.
func TestOpCodeNames(t *testing.T) {
	for op := range tableFor(forks.Osaka) {
		if !tableFor(forks.Osaka)[op].undefined && strings.Contains(OpCode(op).String(), "not defined") {
			t.Errorf("%#x is defined but unnamed", op)
		}
	}
	for op, want := range map[OpCode]string{
		PUSH32: "PUSH32", PUSH1 + 4: "PUSH5", DUP16: "DUP16", SWAP1: "SWAP1", LOG4: "LOG4", LOG0 + 2: "LOG2",
		KECCAK256: "KECCAK256", PREVRANDAO: "PREVRANDAO", 0x0c: "opcode 0xc not defined", INVALID: "INVALID",
	} {
		if got := op.String(); got != want {
			t.Errorf("%#x: %q, want %q", byte(op), got, want)
		}
	}
}
