package staking

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// testEVM returns an EVM over a state with the system contracts' genesis
// (validator addr(1)) and a funded account addr(9).
func testEVM(t testing.TB) (*evm.EVM, *state.StateDB) {
	t.Helper()
	st, err := state.New(types.Hash(trie.EmptyRoot), trie.NewMemoryDB())
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	if err := InitGenesis(st, &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100)}}, 1000, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	for _, a := range Addresses() {
		st.SetNonce(a, 1)
		st.SetCode(a, ContractCode)
	}
	st.AddBalance(addr(9), chain(1000))
	e := evm.NewEVM(evm.BlockContext{Number: 2, Time: 1010, GasLimit: 30_000_000, BaseFee: new(uint256.Int)}, st, 1, forks.Cancun)
	e.SetNatives(Natives())
	e.SetTxContext(evm.TxContext{Origin: addr(9), GasPrice: new(uint256.Int)})
	st.BeginTx(types.Hash{1}, 0)
	return e, st
}

func calldata(sig string, enc *encoder) []byte {
	sel := selector(sig)
	return append(sel[:], enc.encode()...)
}

func TestContractDelegateThroughEVM(t *testing.T) {
	e, st := testEVM(t)
	in := calldata("delegate(address)", new(encoder).address(addr(1)))
	_, left, err := e.Call(addr(9), StakingAddress, in, 100_000, chain(5))
	if err != nil {
		t.Fatal(err)
	}
	if used := 100_000 - left; used != gasDelegate {
		t.Fatalf("delegate used %d gas", used)
	}
	logs := st.Logs()
	if len(logs) != 1 || logs[0].Topics[0] != evDelegate.topic || logs[0].Topics[1] != addrTopic(addr(9)) || logs[0].Address != StakingAddress {
		t.Fatalf("logs %+v", logs)
	}
	// The view through a static call sees the delegation.
	out, _, err := e.StaticCall(addr(9), StakingAddress, calldata("getDelegation(address,address)", new(encoder).address(addr(9)).address(addr(1))), 100_000)
	if err != nil {
		t.Fatal(err)
	}
	if amt := new(uint256.Int).SetBytes32(out[32:64]); !amt.Eq(chain(5)) {
		t.Fatalf("amount %v", amt)
	}
	if !st.GetBalance(StakingAddress).Eq(chain(105)) {
		t.Fatalf("staking balance %v", st.GetBalance(StakingAddress))
	}
}

func TestContractRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		input  []byte
		value  *uint256.Int
		static bool
		err    error
		reason string
	}{
		{"unknown selector", []byte{1, 2, 3, 4}, nil, false, evm.ErrExecutionReverted, "unknown method"},
		{"short input", []byte{1}, nil, false, evm.ErrExecutionReverted, "missing method selector"},
		{"value to non-payable", calldata("unjail()", new(encoder)), chain(1), false, evm.ErrExecutionReverted, "not payable"},
		{"write in static call", calldata("unjail()", new(encoder)), nil, true, evm.ErrWriteProtection, ""},
		{"truncated args", calldata("delegate(address)", new(encoder).address(addr(1)))[:20], chain(1), false, evm.ErrExecutionReverted, "malformed"},
		{"unknown validator", calldata("delegate(address)", new(encoder).address(addr(7))), chain(1), false, evm.ErrExecutionReverted, "no such validator"},
		{"zero delegation", calldata("delegate(address)", new(encoder).address(addr(1))), nil, false, evm.ErrExecutionReverted, "must be positive"},
		{"undelegate too much", calldata("undelegate(address,uint256)", new(encoder).address(addr(1)).uint(chain(1))), nil, false, evm.ErrExecutionReverted, "no delegation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, st := testEVM(t)
			before := st.GetBalance(addr(9)).Clone()
			value := tc.value
			if value == nil {
				value = new(uint256.Int)
			}
			var out []byte
			var err error
			if tc.static {
				out, _, err = e.StaticCall(addr(9), StakingAddress, tc.input, 100_000)
			} else {
				out, _, err = e.Call(addr(9), StakingAddress, tc.input, 100_000, value)
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if tc.reason != "" && !bytes.Contains(out, []byte(tc.reason)) {
				t.Fatalf("revert data %q lacks %q", out, tc.reason)
			}
			if !st.GetBalance(addr(9)).Eq(before) || len(st.Logs()) != 0 {
				t.Fatal("a failed call changed the state")
			}
		})
	}
}

// A contract cannot borrow the staking contract's identity: DELEGATECALL
// runs the account's code (INVALID), not the native contract.
func TestContractNoDelegateCall(t *testing.T) {
	e, _ := testEVM(t)
	_, _, err := e.DelegateCall(addr(9), addr(9), StakingAddress, calldata("unjail()", new(encoder)), 100_000, new(uint256.Int))
	if err == nil {
		t.Fatal("delegatecall into the staking contract succeeded")
	}
}

// BenchmarkDelegate measures a delegate call through the EVM.
func BenchmarkDelegate(b *testing.B) {
	e, _ := testEVM(b)
	in := calldata("delegate(address)", new(encoder).address(addr(1)))
	one := uint256.NewInt(1e9)
	b.ResetTimer()
	for range b.N {
		if _, _, err := e.Call(addr(9), StakingAddress, in, 100_000, one); err != nil {
			b.Fatal(err)
		}
	}
}
