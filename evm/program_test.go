package evm

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/holiman/uint256"
)

// TestProgramMatchesChecked runs code whose blocks fail or must hand gas
// back in every way at every gas limit up to what it needs: the untraced
// loop (block checks, corrections, the fall back to the checked loop)
// must do exactly what the traced loop does instruction by instruction.
func TestProgramMatchesChecked(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		fork       forks.Fork
	}{
		{"gas mid-block", "60015a01" + ret32, forks.Cancun},
		{"call with all gas mid-block", "6000600060006000600060025af1" + "5a01" + ret32, forks.Cancun},
		{"two sstores", "6001600055" + "6002600155" + "600054" + ret32, forks.Cancun},
		{"sstore sentry", "6001600055", forks.Istanbul},
		{"memory growth mid-block", "60ff611000526001600052600051" + ret32, forks.Cancun},
		{"underflow mid-block", "600160020101", forks.Cancun},
		{"overflow in one block", strings.Repeat("6001", 1025), forks.Cancun},
		{"overflow in a loop", "5b6001600056", forks.Cancun},
		{"undefined mid-block", "60016002" + "0c" + "01", forks.Cancun},
		{"push0 before shanghai", "5f" + ret32, forks.London},
		{"push past the end", "6001" + "61ff", forks.Cancun},
		{"push32 past the end", "7f0102", forks.Cancun},
		{"jump into push data", "600456605b00", forks.Cancun},
		{"jumpi not taken", "6000600757" + "600160010160005260206000f3" + "5b00", forks.Cancun},
		{"jumpi taken", "6001600757" + "00" + "00" + "5b6002" + ret32, forks.Cancun},
		{"pc", "6001600158" + ret32, forks.Cancun},
		{"keccak and log", "602a6000526020600020" + "60206000a1" + "6001" + ret32, forks.Cancun},
		{"revert keeps gas", "6001600255" + "60206000fd", forks.Cancun},
		{"selfdestruct", "6001" + "33ff", forks.Cancun},
		{"big push", "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff01" + "7f" + strings.Repeat("0a", 32) + "01" + ret32, forks.Cancun},
		{"exp dynamic", "600a60ff0a" + "600a0a" + ret32, forks.Cancun},
		{"arith loop", "6001600a5b906007028101637fffffff90069060019003806000106004575060005260206000f3", forks.Cancun},
		{"jumpdest first", "5b6001" + ret32, forks.Cancun},
		{"empty tail", "5b", forks.Cancun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code := mustHex(t, tc.code)
			_, need, _, _ := runCode(t, tc.fork, code, nil, 10_000_000)
			gases := map[uint64]bool{10_000_000: true}
			for g := uint64(0); g <= min(need+10, 3000); g++ {
				gases[g] = true
			}
			for g := need - min(need, 300); g <= need+10; g++ {
				gases[g] = true
			}
			for g := range gases {
				compareTraced(t, tc.fork, code, nil, g)
			}
		})
	}
}

// TestProgramMatchesCheckedERC20 cuts a token contract's run short at
// random gas limits, which fails blocks in the middle of real code.
func TestProgramMatchesCheckedERC20(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	code := benchInput(t, "ERC20Transfer.runtime.hex")
	input := mustHex(t, "30627b7c")
	r := rand.New(rand.NewSource(1))
	for range 6 {
		compareTraced(t, forks.Cancun, code, input, uint64(r.Int63n(14_200_000)))
	}
}

// TestDecode checks a program's shape: PUSH values (padded past the end
// of code), jump destinations, and a block's gas and stack bounds.
func TestDecode(t *testing.T) {
	// PUSH1 1, PUSH9 (9 bytes), JUMPDEST, SWAP1, DUP2, ADD, PUSH1 19, JUMP
	// (fused), JUMPDEST, PUSH2 past the end (one byte).
	code := mustHex(t, "6001"+"68010203040506070809"+"5b"+"90"+"81"+"01"+"6013"+"56"+"5b"+"61ff")
	p := decode(code, tableFor(forks.Cancun))
	want := []struct {
		op  OpCode
		pc  uint32
		arg uint64
	}{
		{opBlock, 0, blockArg(6, 0, stackLimit-2+1)},
		{PUSH1, 0, 1},
		{PUSH1 + 8, 2, 0},
		{opBlock, 12, blockArg(1+3+3+3+3+8, 2, stackLimit-1+1)},
		{SWAP1, 13, 0},
		{DUP1 + 1, 14, 0},
		{ADD, 15, 0},
		{opPushJump, 16, 8},
		{opBlock, 19, blockArg(1+3+0, 0, stackLimit-1+1)},
		{PUSH2, 20, 0xff00},
		{STOP, 22, 0},
	}
	if len(p.ins) != len(want) {
		t.Fatalf("%d instructions, want %d: %+v", len(p.ins), len(want), p.ins)
	}
	for i, w := range want {
		if in := p.ins[i]; in.op != w.op || in.pc != w.pc || in.arg != w.arg {
			t.Errorf("instruction %d: %v at %d arg %#x, want %v at %d arg %#x", i, in.op, in.pc, in.arg, w.op, w.pc, w.arg)
		}
	}
	if v := p.consts[0]; v != *new(uint256.Int).SetBytes(mustHex(t, "010203040506070809")) {
		t.Errorf("PUSH9 value %v", &v)
	}
	for pc, want := range map[uint64]int{12: 3, 19: 8, 0: -1, 11: -1, 1 << 40: -1} {
		if got := p.target(new(uint256.Int).SetUint64(pc)); got != want {
			t.Errorf("target(%d) = %d, want %d", pc, got, want)
		}
	}
}
