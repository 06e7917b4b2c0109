package evm

import (
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestTracerSeesEverything runs the same code with and without hooks: the
// result must not change, and the hooks must see each opcode and frame.
func TestTracerSeesEverything(t *testing.T) {
	code := benchInput(t, "ERC20Transfer.runtime.hex")
	input := mustHex(t, "30627b7c")
	plainRet, plainUsed, plainErr, _ := runCode(t, forks.Cancun, code, input, 100_000_000)

	st := newMemState()
	st.SetCode(testContract, code)
	e := NewEVM(BlockContext{Number: 10, Time: 1000, GasLimit: 30_000_000, BaseFee: uint256.NewInt(7),
		GetHash: func(n uint64) types.Hash { return types.Hash{byte(n)} }}, st, 1, forks.Cancun)
	e.SetTxContext(TxContext{Origin: testCaller, GasPrice: uint256.NewInt(1)})
	var (
		ops, enters, exits int
		costSum            uint64
		lastDepthExit      = -1
		topUsed            uint64
	)
	e.Config.Tracer = &Hooks{
		OnOpcode: func(pc uint64, op byte, gas, cost uint64, scope *ScopeContext, returnData []byte, depth int, err error) {
			ops++
			costSum += cost
		},
		OnEnter: func(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int) {
			enters++
		},
		OnExit: func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			exits++
			lastDepthExit = depth
			topUsed = gasUsed
		},
	}
	const gas = 100_000_000
	ret, left, err := e.Call(testCaller, testContract, input, gas, new(uint256.Int))
	if err != plainErr || string(ret) != string(plainRet) || gas-left != plainUsed {
		t.Fatalf("traced run differs: %v/%v used %d/%d", err, plainErr, gas-left, plainUsed)
	}
	if ops < 100000 || enters != 1 || exits != 1 || lastDepthExit != 0 || topUsed != plainUsed {
		t.Fatalf("ops %d enters %d exits %d depth %d used %d", ops, enters, exits, lastDepthExit, topUsed)
	}
	if costSum != plainUsed {
		t.Errorf("sum of opcode costs %d, gas used %d", costSum, plainUsed)
	}
}
