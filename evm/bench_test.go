package evm

import (
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// benchCode runs code from the shared evm-bench inputs as a contract, the
// way geth's "evm run" does, and reports gas throughput.
func benchCode(b *testing.B, file, input string) {
	code := benchInput(b, file)
	in := mustHex(b, input)
	st := newMemState()
	st.SetCode(testContract, code)
	e := NewEVM(BlockContext{Number: 1, GasLimit: 1 << 40, BaseFee: new(uint256.Int),
		GetHash: func(uint64) types.Hash { return types.Hash{} }}, st, 1, forks.Osaka)
	e.SetTxContext(TxContext{Origin: testCaller, GasPrice: new(uint256.Int)})
	var gasUsed uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap := st.Snapshot()
		const gas = 1_000_000_000
		_, left, err := e.Call(testCaller, testContract, in, gas, new(uint256.Int))
		if err != nil {
			b.Fatal(err)
		}
		gasUsed = gas - left
		st.RevertToSnapshot(snap)
	}
	b.StopTimer()
	if ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N); ns > 0 {
		b.ReportMetric(float64(gasUsed)/ns*1e3, "Mgas/s")
	}
}

func BenchmarkSnailtracer(b *testing.B)   { benchCode(b, "SnailTracer.runtime.hex", "30627b7c") }
func BenchmarkERC20Transfer(b *testing.B) { benchCode(b, "ERC20Transfer.runtime.hex", "30627b7c") }
func BenchmarkKeccakLoop(b *testing.B)    { benchCode(b, "keccak_loop_1M.runtime.hex", "") }
func BenchmarkArithLoop(b *testing.B)     { benchCode(b, "arith_loop_1M.runtime.hex", "") }
func BenchmarkTenThousandHashes(b *testing.B) {
	benchCode(b, "TenThousandHashes.runtime.hex", "30627b7c")
}
func BenchmarkERC20Mint(b *testing.B) { benchCode(b, "ERC20Mint.runtime.hex", "30627b7c") }
