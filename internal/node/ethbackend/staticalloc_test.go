package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// staticCalls is code making n STATICCALLs to target with no input and no
// output, then STOP.
func staticCalls(n int, target types.Address) []byte {
	var c []byte
	for range n {
		c = append(c, 0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x73) // PUSH1 0 ×4, PUSH20
		c = append(c, target[:]...)
		c = append(c, 0x5a, 0xfa, 0x50) // GAS STATICCALL POP
	}
	return append(c, 0x00) // STOP
}

// An eth_call's STATICCALLs allocate nothing of their own, with a console
// watching (a development node's) or without: the zero value of each used
// to be a fresh uint256 handed to the state and to the console's tracer,
// which escaped, two allocations per call — 10,000 per eth_call of a
// contract hashing with the SHA-256 and RIPEMD-160 precompiles in a loop
// (evm-bench's TenThousandHashes), a third of its heap. Those two
// precompiles' outputs (and RIPEMD-160's hasher) were the rest: 5,000
// allocations per run, which on a node's large heap land on memory no
// recent call touched.
func TestCallStaticCallAllocs(t *testing.T) {
	const extra = 64
	for _, tc := range []struct {
		console bool
		target  byte
	}{{false, 0x04}, {true, 0x04}, {false, 0x02}, {true, 0x02}, {false, 0x03}, {true, 0x03}} {
		console := tc.console
		be, from := bareBackend(t)
		if console {
			be.SetConsole(func([]string) {})
		}
		allocs := func(n int) float64 {
			to := types.Address{0x10}
			code := staticCalls(n, types.Address{19: tc.target}) // identity, SHA-256, RIPEMD-160
			req := &backend.CallRequest{Block: be.Head(), Args: backend.CallArgs{From: &from, To: &to},
				StateOverrides: map[types.Address]backend.StateOverride{to: {Code: &code}}}
			return testing.AllocsPerRun(20, func() {
				if _, err := be.Call(context.Background(), req); err != nil {
					t.Fatal(err)
				}
			})
		}
		one, many := allocs(1), allocs(1+extra)
		if per := (many - one) / extra; per >= 0.5 {
			t.Errorf("precompile %#x, console %v: %.2f allocations per STATICCALL (%.0f for 1, %.0f for %d), want none", tc.target, console, per, one, many, 1+extra)
		}
	}
}
