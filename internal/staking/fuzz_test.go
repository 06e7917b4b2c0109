package staking

import (
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/holiman/uint256"
)

// FuzzContractInput feeds arbitrary call data to every system contract,
// with and without value: a call may fail, but never panics (run directly
// here, since the EVM would turn a panic into a failed call and hide the
// bug), and through the EVM a failed call never moves the caller's coins.
func FuzzContractInput(f *testing.F) {
	for _, c := range Specs() {
		for _, m := range c.methods {
			sel := selector(m.sig())
			f.Add(byte(0), append(sel[:], make([]byte, 64)...), false)
			f.Add(byte(1), append(sel[:], new(encoder).address(addr(1)).uint(chain(1)).encode()...), true)
		}
	}
	f.Fuzz(func(t *testing.T, which byte, input []byte, withValue bool) {
		e, st := testEVM(t)
		to := Addresses()[int(which)%len(Addresses())]
		value := new(uint256.Int)
		if withValue {
			value = chain(1)
		}
		snap := st.Snapshot()
		_, _ = Natives()[to].RunNative(&evm.NativeCall{EVM: e, Caller: addr(9), Address: to, Value: value, Input: input, Gas: 1_000_000})
		st.RevertToSnapshot(snap)
		before := st.GetBalance(addr(9)).Clone()
		_, _, err := e.Call(addr(9), to, input, 1_000_000, value)
		if err != nil && !st.GetBalance(addr(9)).Eq(before) {
			t.Fatal("a failed call moved the caller's coins")
		}
	})
}
