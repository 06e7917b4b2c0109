package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

func init() {
	register(command{"evm", "run bytecode: evm run --code HEX|--codefile F [--input HEX] [--gas N] [--fork NAME] [--bench [--cpuprofile F]]", evmCommand})
}

func evmCommand(args []string) int {
	const usage = "chaind evm run --code HEX | --codefile FILE [--input HEX] [--gas N] [--fork NAME] [--bench [--benchtime D] [--cpuprofile FILE]]"
	if wantsHelp(args) {
		fmt.Println("usage:", usage)
		return 0
	}
	if len(args) == 0 || args[0] != "run" {
		return usageError("chaind evm", "the only subcommand is run")
	}
	fs := flag.NewFlagSet("chaind evm run", flag.ContinueOnError)
	codeHex := fs.String("code", "", "runtime bytecode as hex")
	codeFile := fs.String("codefile", "", "file holding the runtime bytecode as hex")
	inputHex := fs.String("input", "", "calldata as hex")
	gas := fs.Uint64("gas", 10_000_000_000, "gas limit of the call")
	forkName := fs.String("fork", "Osaka", "fork rules (Frontier ... Osaka)")
	bench := fs.Bool("bench", false, "run repeatedly and report the median time and Mgas/s")
	benchTime := fs.Duration("benchtime", 3*time.Second, "how long --bench keeps running")
	cpuProfile := fs.String("cpuprofile", "", "with --bench, write a CPU profile of the timed runs to this file (go tool pprof reads it)")
	if code, ok := parseFlags(fs, usage, args[1:]); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*gas == 0, "--gas must be positive"},
		check{*benchTime <= 0, "--benchtime must be positive"},
		check{*cpuProfile != "" && !*bench, "--cpuprofile needs --bench"},
		noArgs(fs),
	); !ok {
		return code
	}
	code, input, fork, err := evmRunArgs(*codeHex, *codeFile, *inputHex, *forkName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind evm run:", err)
		return 2
	}
	r, err := evmRunOnce(code, input, *gas, fork)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind evm run:", err)
		return 1
	}
	fmt.Printf("output: 0x%x\ngas used: %d\n", r.out, r.gasUsed)
	if r.err != nil {
		fmt.Printf("error: %v\n", r.err)
	}
	if !*bench {
		if r.err != nil {
			return 1
		}
		return 0
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind evm run:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "chaind evm run:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	var times []time.Duration
	deadline := time.Now().Add(*benchTime)
	for len(times) < 3 || time.Now().Before(deadline) {
		start := time.Now()
		if _, err := evmRunOnce(code, input, *gas, fork); err != nil {
			fmt.Fprintln(os.Stderr, "chaind evm run:", err)
			return 1
		}
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	med := times[len(times)/2]
	fmt.Printf("runs: %d\ntime per run (median): %v\nMgas/s: %.1f\n", len(times), med, float64(r.gasUsed)/med.Seconds()/1e6)
	return 0
}

func evmRunArgs(codeHex, codeFile, inputHex, forkName string) (code, input []byte, fork forks.Fork, err error) {
	switch {
	case codeHex != "" && codeFile != "":
		return nil, nil, 0, errors.New("give --code or --codefile, not both")
	case codeFile != "":
		raw, err := os.ReadFile(codeFile)
		if err != nil {
			return nil, nil, 0, err
		}
		codeHex = string(raw)
	case codeHex == "":
		return nil, nil, 0, errors.New("no code: give --code HEX or --codefile FILE")
	}
	if code, err = decodeHexArg(codeHex); err != nil {
		return nil, nil, 0, fmt.Errorf("code: %w", err)
	}
	if input, err = decodeHexArg(inputHex); err != nil {
		return nil, nil, 0, fmt.Errorf("input: %w", err)
	}
	fork, ok := forks.ByName(forkName)
	if !ok {
		return nil, nil, 0, fmt.Errorf("unknown fork %q", forkName)
	}
	return code, input, fork, nil
}

func decodeHexArg(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	return hex.DecodeString(s)
}

type evmRunResult struct {
	out     []byte
	gasUsed uint64
	err     error // execution error of the call
}

// evmRunOnce installs code at a fixed address in a fresh in-memory state
// and calls it from a funded sender, as go-ethereum's "evm run" does.
func evmRunOnce(code, input []byte, gas uint64, fork forks.Fork) (evmRunResult, error) {
	st, err := state.New(types.Hash{}, trie.NewMemoryDB())
	if err != nil {
		return evmRunResult{}, err
	}
	// As the node does for an eth_call: the journal's chunks go back to
	// the pool for the next run (ERC20Mint fills 2 MB of them).
	defer st.Release()
	var (
		sender   = types.BytesToAddress([]byte("sender"))
		contract = types.BytesToAddress([]byte("contract"))
		random   types.Hash
	)
	st.SetCode(contract, code)
	block := evm.BlockContext{
		GasLimit:   gas,
		BaseFee:    new(uint256.Int),
		Difficulty: new(uint256.Int),
		GetHash:    func(uint64) types.Hash { return types.Hash{} },
	}
	if fork >= forks.Paris {
		block.Random = &random
	}
	if fork >= forks.Cancun {
		block.BlobBaseFee = evm.CalcBlobBaseFee(fork, 0)
	}
	e := evm.NewEVM(block, st, 1, fork)
	e.SetTxContext(evm.TxContext{Origin: sender, GasPrice: new(uint256.Int)})
	if fork >= forks.Berlin {
		st.AddAddressToAccessList(sender)
		st.AddAddressToAccessList(contract)
	}
	out, left, err := e.Call(sender, contract, input, gas, new(uint256.Int))
	return evmRunResult{out: out, gasUsed: gas - left, err: err}, nil
}
