package evm

import (
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestSstoreNetMetering runs the examples of EIP-1283 and EIP-2200: two or
// three SSTOREs to slot 0 with a given original value.
func TestSstoreNetMetering(t *testing.T) {
	tests := []struct {
		fork         forks.Fork
		code         string
		original     byte
		used, refund uint64
	}{
		{forks.Constantinople, "60006000556000600055", 0, 412, 0},
		{forks.Constantinople, "60006000556001600055", 0, 20212, 0},
		{forks.Constantinople, "60016000556000600055", 0, 20212, 19800},
		{forks.Constantinople, "60016000556002600055", 0, 20212, 0},
		{forks.Constantinople, "60016000556001600055", 0, 20212, 0},
		{forks.Constantinople, "60006000556000600055", 1, 5212, 15000},
		{forks.Constantinople, "60006000556001600055", 1, 5212, 4800},
		{forks.Constantinople, "60006000556002600055", 1, 5212, 0},
		{forks.Constantinople, "60026000556000600055", 1, 5212, 15000},
		{forks.Constantinople, "60026000556003600055", 1, 5212, 0},
		{forks.Constantinople, "60026000556001600055", 1, 5212, 4800},
		{forks.Constantinople, "60026000556002600055", 1, 5212, 0},
		{forks.Constantinople, "60016000556000600055", 1, 5212, 15000},
		{forks.Constantinople, "60016000556002600055", 1, 5212, 0},
		{forks.Constantinople, "60016000556001600055", 1, 412, 0},
		{forks.Constantinople, "600160005560006000556001600055", 0, 40218, 19800},
		{forks.Constantinople, "600060005560016000556000600055", 1, 10218, 19800},
		{forks.Istanbul, "60006000556000600055", 0, 1612, 0},
		{forks.Istanbul, "60016000556000600055", 0, 20812, 19200},
		{forks.Istanbul, "60006000556001600055", 1, 5812, 4200},
		{forks.Istanbul, "60006000556000600055", 1, 5812, 15000},
		{forks.Istanbul, "600160005560006000556001600055", 0, 40818, 19200},
		// Petersburg is back to the original rule: 20000 to set, 5000 else.
		{forks.Petersburg, "60016000556000600055", 0, 25012, 15000},
		// Berlin: cold slot 2100 once, then warm 100 (EIP-2929).
		{forks.Berlin, "60016000556000600055", 0, 2100 + 20000 + 100 + 12, 19900},
		// London: clearing refunds 4800 (EIP-3529).
		{forks.London, "60006000556000600055", 1, 2100 + 2900 + 100 + 12, 4800},
	}
	for _, tt := range tests {
		st := newMemState()
		st.SetCode(testContract, mustHex(t, tt.code))
		if tt.original != 0 {
			v := types.Hash{31: tt.original}
			acc := st.acct(testContract)
			acc.storage[types.Hash{}] = v
			acc.committed[types.Hash{}] = v
		}
		e := NewEVM(BlockContext{}, st, 1, tt.fork)
		const gas = 100000
		_, left, err := e.Call(testCaller, testContract, nil, gas, new(uint256.Int))
		if err != nil {
			t.Fatalf("%v %s: %v", tt.fork, tt.code, err)
		}
		if used := gas - left; used != tt.used || st.GetRefund() != tt.refund {
			t.Errorf("%v %s (orig %d): used %d refund %d, want %d %d", tt.fork, tt.code, tt.original, used, st.GetRefund(), tt.used, tt.refund)
		}
	}
}

// TestCallGasForwarding checks EIP-150's all-but-one-64th rule and the
// value stipend: the callee reports the gas it received.
func TestCallGasForwarding(t *testing.T) {
	// CALL(gas=all, callee, value, 0, 0, 0, 32) then return mem[0:32].
	call := func(value string) []byte {
		return mustHex(t, "6020600060006000600"+value+"73"+"00000000000000000000000000000000000000bb"+"5a"+"f1"+"5060206000f3")
	}
	for _, tc := range []struct {
		fork  forks.Fork
		value string
	}{{forks.Cancun, "0"}, {forks.Cancun, "1"}, {forks.Homestead, "0"}} {
		st := newMemState()
		callee := types.MustAddress("0x00000000000000000000000000000000000000bb")
		st.SetCode(callee, mustHex(t, "5a"+ret32)) // returns GAS
		st.AddBalance(testContract, uint256.NewInt(10))
		st.SetCode(testContract, call(tc.value))
		e := NewEVM(BlockContext{}, st, 1, tc.fork)
		const gas = 100000
		ret, _, err := e.Call(testCaller, testContract, nil, gas, new(uint256.Int))
		if tc.fork == forks.Homestead {
			// Before EIP-150 asking for more than is left fails the frame.
			if err != ErrOutOfGas {
				t.Errorf("homestead: err %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got := new(uint256.Int).SetBytes(ret).Uint64()
		// Before the CALL: 6 pushes (18) + GAS (2); the CALL itself costs
		// 2600 for the cold callee and 9000 more with value (the callee has
		// code, so no new-account charge).
		avail := uint64(gas - 20 - 2600 - 3) // 3: one word of memory for the output
		if tc.value == "1" {
			avail -= 9000
		}
		want := avail - avail/64 - 2 // the callee's GAS costs 2 before reading
		if tc.value == "1" {
			want += callStipend
		}
		if got != want {
			t.Errorf("%v value %s: callee got %d gas, want %d", tc.fork, tc.value, got, want)
		}
	}
}
