package ethbackend

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// The evm-bench contracts whose Benchmark() fits under Osaka's 2^24 gas
// cap per call (EIP-7825), which the test chain runs.
var evmBenchCalls = []string{"ERC20Transfer", "ERC20Mint", "TenThousandHashes"}

// benchSelector is Benchmark()'s selector, the calldata of every one.
var benchSelector = []byte{0x30, 0x62, 0x7b, 0x7c}

// evmBenchCode reads a runtime code of the shared evm-bench inputs
// ($EVM_BENCH_DIR, as for make evmbench, else ../shared/evm-bench beside
// the repository), skipping when absent.
func evmBenchCode(b *testing.B, name string) []byte {
	dir := os.Getenv("EVM_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "evm-bench")
	}
	raw, err := os.ReadFile(filepath.Join(dir, name+".runtime.hex"))
	if err != nil {
		b.Skipf("evm-bench input %s not available: %v", name, err)
	}
	code, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		b.Fatal(err)
	}
	return code
}

// BenchmarkCallEVMBench runs the evm-bench contracts two ways side by
// side: "call" through Backend.Call on the head state, with the code
// installed at the head as hardhat_setCode does (what eth_call on a --dev
// node runs, less the HTTP and JSON around it), and "direct" as `chaind evm
// run` does, on a fresh in-memory state. Their difference is the cost of the
// call path (state view, EVM construction, message checks, answer); issue 30
// found it next to nothing, so the gap between eth_call on a node and
// `evm run` lies outside it. cpu-ms/op is the process's CPU time per
// operation, steadier than wall time on a shared machine.
func BenchmarkCallEVMBench(b *testing.B) {
	for _, name := range evmBenchCalls {
		code := evmBenchCode(b, name)
		for _, console := range []bool{false, true} {
			sub := "/call"
			if console {
				sub = "/call+console"
			}
			b.Run(name+sub, func(b *testing.B) { benchCall(b, code, console) })
		}
		b.Run(name+"/direct", func(b *testing.B) {
			be, from := bareBackend(b)
			cfg := be.chain.Config
			h := be.Head().HeaderRef()
			to := types.Address{0x10}
			runWithCPU(b, func() {
				st, err := state.New(types.Hash{}, trie.NewMemoryDB())
				if err != nil {
					b.Fatal(err)
				}
				st.SetCode(to, code)
				vm := evm.NewEVM(cfg.BlockContext(h, be.chain.GetHash), st, cfg.ChainID, cfg.HeaderFork(h))
				vm.SetTxContext(evm.TxContext{Origin: from, GasPrice: new(uint256.Int)})
				st.AddAddressToAccessList(from)
				st.AddAddressToAccessList(to)
				if _, _, err := vm.Call(from, to, benchSelector, evm.MaxTxGas, new(uint256.Int)); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// benchCall runs code's Benchmark() through Backend.Call at the head, as
// eth_call on a --dev node does; console: with a console watching for
// console.log, as a --dev node's is.
func benchCall(b *testing.B, code []byte, console bool) {
	be, from := bareBackend(b)
	if console {
		be.SetConsole(func([]string) {})
	}
	to := types.Address{0x10}
	head := be.Head()
	st, err := be.view.State(head.HeaderRef())
	if err != nil {
		b.Fatal(err)
	}
	st.SetCode(to, code)
	st.Finalise(false)
	if _, err := be.view.SetHeadState(head.Hash(), st); err != nil {
		b.Fatal(err)
	}
	data := benchSelector
	req := &backend.CallRequest{Block: be.Head(), Args: backend.CallArgs{From: &from, To: &to, Data: &data}}
	ctx := context.Background()
	if _, err := be.Call(ctx, req); err != nil {
		b.Fatal(err)
	}
	runWithCPU(b, func() {
		if _, err := be.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	})
}

// runWithCPU runs f b.N times, reporting allocations and the process's CPU
// time per run.
func runWithCPU(b *testing.B, f func()) {
	b.ReportAllocs()
	c0 := processCPU()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(processCPU()-c0)/float64(b.N)/float64(time.Millisecond), "cpu-ms/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
