package evm

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// FuzzRun executes arbitrary bytecode: hostile code must end in a result
// or an error value, never a panic, and never use more gas than given.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"6002600301" + ret32,
		"600035600052602060002060005260206000f3",
		"60006000600060006000305af1", // CALL self
		"600060006000f0",             // CREATE empty
		"7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff600052", // MSTORE at huge offset
		"5b600056",     // infinite loop
		"3d600060003e", // RETURNDATACOPY
		"60016000fd",   // REVERT
		"ff",           // SELFDESTRUCT with empty stack
	} {
		f.Add(mustHex(f, seed), []byte{1, 2, 3}, uint8(forks.Cancun))
	}
	f.Fuzz(func(t *testing.T, code, input []byte, forkByte uint8) {
		fork := forks.Fork(int(forkByte) % int(forks.Count))
		const gas = 200_000
		_, used, _, _ := runCode(t, fork, code, input, gas)
		if used > gas {
			t.Fatalf("used %d gas of %d", used, gas)
		}
	})
}

// FuzzTracedMatchesUntraced runs the same code, calldata and gas through
// the interpreter's two loops: the fast one (inline opcodes, the MLOAD/
// MSTORE shortcut) and the traced one (every opcode through the table),
// which debug_trace* relies on to replay what a block did. Anything a
// fast path changes — result, error, gas, return data, logs, refund,
// storage, balances, access lists — fails here.
func FuzzTracedMatchesUntraced(f *testing.F) {
	// An outer frame that calls itself with one byte of calldata; the
	// inner frame writes storage, logs and reverts, so the outer one sees
	// a failed call whose effects are undone, then writes and returns.
	const selfCall = "36156014" + "57" + // CALLDATASIZE ISZERO PUSH1 20 JUMPI
		"6007600155" + "60006000a0" + "60006000fd" + // inner: SSTORE(1,7) LOG0(0,0) REVERT(0,0)
		"5b" + "6000600060016000600030" + "5af1" + // outer: CALL(gas, self, 0, 0, 1, 0, 0)
		"600052" + "6005600255" + "60206000f3" // MSTORE(0, ok) SSTORE(2,5) RETURN(0,32)
	for _, seed := range []struct {
		code, input string
		gas         uint64
		fork        forks.Fork
	}{
		{"6002600301" + ret32, "", 100_000, forks.Cancun},
		// MSTORE/MLOAD inside and past paid memory (the fast path's edge).
		{"602a600052600051602052600051601f5160405260606000f3", "", 100_000, forks.Cancun},
		{"602a600052600051602052600051601f5160405260606000f3", "", 40, forks.Cancun},
		{"6001600055600054600052" + "60206000a0" + "00", "", 100_000, forks.Cancun}, // SSTORE SLOAD LOG0
		{selfCall, "", 200_000, forks.Cancun},
		{selfCall, "", 30_000, forks.Berlin},
		{selfCall, "", 200_000, forks.Frontier},
		{"5b600056", "", 50_000, forks.Cancun},                                                         // loop until out of gas
		{"600035600052602060002060005260206000f3", "ff", 100_000, forks.Osaka},                         // CALLDATALOAD KECCAK256
		{"6001600a5d600a5c" + ret32, "", 100_000, forks.Cancun},                                        // TSTORE TLOAD
		{"6001600a5d", "", 100_000, forks.Shanghai},                                                    // TSTORE before Cancun
		{"6020600060006000600060025af1" + "3d600060003e" + "3d6000f3", "", 100_000, forks.Cancun},      // SHA-256 precompile, RETURNDATACOPY
		{"3d600160003e", "", 100_000, forks.Cancun},                                                    // RETURNDATACOPY out of bounds
		{"6c63deadbeef6000526004601cf3600052600d60136000f0" + "3b" + ret32, "", 200_000, forks.Cancun}, // CREATE, EXTCODESIZE
		{"60013580", "", 100_000, forks.Cancun},
		{"600160011b" + ret32, "", 100_000, forks.Cancun},                                        // SHL, inline
		{"600160011b" + ret32, "", 100_000, forks.Byzantium},                                     // SHL before Constantinople: undefined
		{"01", "", 100_000, forks.Cancun},                                                        // stack underflow
		{"0c", "", 100_000, forks.Cancun},                                                        // undefined
		{"fe", "", 100_000, forks.Cancun},                                                        // INVALID
		{"33ff", "", 100_000, forks.Cancun},                                                      // SELFDESTRUCT to the caller
		{"6000600060006000600161dead5af150" + "600160005560016000fd", "", 100_000, forks.Prague}, // value call, then SSTORE and REVERT
		// Blocks: GAS and a CALL with all gas inside one, a block the gas
		// cannot pay, a stack that overflows inside one.
		{"60015a01" + ret32, "", 100_000, forks.Cancun},
		{"6000600060006000600060025af1" + "5a01" + ret32, "", 100_000, forks.Cancun},
		{"6001600055" + "6002600155" + "600054" + ret32, "", 44_000, forks.Cancun},
		{"5b6001600056", "", 100_000, forks.Cancun},
		{"602a6000526020600020" + ret32, "", 60, forks.Cancun},
	} {
		f.Add(mustHex(f, seed.code), mustHex(f, seed.input), seed.gas, uint8(seed.fork))
	}
	f.Fuzz(func(t *testing.T, code, input []byte, gas uint64, forkByte uint8) {
		fork := forks.Fork(int(forkByte) % int(forks.Count))
		gas %= 2_000_000 // enough for loops to run out of gas, fast enough to fuzz
		compareTraced(t, fork, code, input, gas)
	})
}

// compareTraced runs code through the untraced and the traced loop and
// fails t on any difference in what the call did.
func compareTraced(t *testing.T, fork forks.Fork, code, input []byte, gas uint64) {
	t.Helper()
	ret, used, err, st := runCode(t, fork, code, input, gas)
	var ops int
	tracer := &Hooks{
		OnOpcode: func(uint64, byte, uint64, uint64, *ScopeContext, []byte, int, error) { ops++ },
		OnEnter:  func(int, byte, types.Address, types.Address, []byte, uint64, *uint256.Int) {},
		OnExit:   func(int, []byte, uint64, error, bool) {},
	}
	tret, tused, terr, tst := runCodeTraced(t, fork, code, input, gas, tracer)
	if fmt.Sprint(err) != fmt.Sprint(terr) {
		t.Fatalf("gas %d: error: untraced %v, traced %v", gas, err, terr)
	}
	if used != tused {
		t.Fatalf("gas %d: gas used: untraced %d, traced %d", gas, used, tused)
	}
	if !bytes.Equal(ret, tret) {
		t.Fatalf("gas %d: return data: untraced %x, traced %x", gas, ret, tret)
	}
	if !reflect.DeepEqual(st.logs, tst.logs) {
		t.Fatalf("gas %d: logs: untraced %v, traced %v", gas, st.logs, tst.logs)
	}
	if st.refund != tst.refund {
		t.Fatalf("gas %d: refund: untraced %d, traced %d", gas, st.refund, tst.refund)
	}
	if !reflect.DeepEqual(st.memWorld, tst.memWorld) {
		t.Fatalf("gas %d: state differs after the call:\nuntraced %+v\ntraced   %+v", gas, st.memWorld, tst.memWorld)
	}
	if len(code) > 0 && ops == 0 {
		t.Fatalf("gas %d: the traced run reported no opcode: it did not take the traced loop", gas)
	}
}

// Memory growing word by word and in jumps, by MSTORE and MLOAD, at every
// gas limit from too little for the first expansion to enough for all:
// the fast loop charges these expansions inline and must run out of gas
// exactly where the traced loop does.
func TestInlineExpansionMatchesTraced(t *testing.T) {
	code := mustHex(t, "6001600052"+ // MSTORE(0, 1)
		"6002602052"+ // MSTORE(0x20, 2): one word more
		"61010051"+ // MLOAD(0x100): a jump
		"600361012052600461012152"+"50"+ // MSTORE(0x120), MSTORE(0x121): unaligned, into a new word; POP
		"6104005160206000f3") // MLOAD(0x400), RETURN(0, 32)
	for gas := uint64(0); gas <= 400; gas++ {
		compareTraced(t, forks.Cancun, code, nil, gas)
	}
}
