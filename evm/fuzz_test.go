package evm

import (
	"testing"

	"github.com/chaind/chaind/internal/forks"
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
