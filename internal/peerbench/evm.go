package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/ethereum/go-ethereum/common"
	gstate "github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	gtypes "github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// The EVM cases run the shared evm-bench bytecode as a contract's code in a
// fresh in-memory state, on both sides the way "evm run" does.

const evmBenchGas = 1_000_000_000

var evmBenchInputs = []struct{ name, file, input string }{
	{"snailtracer", "SnailTracer.runtime.hex", "30627b7c"},
	{"erc20 transfer", "ERC20Transfer.runtime.hex", "30627b7c"},
	{"keccak loop 1M", "keccak_loop_1M.runtime.hex", ""},
	{"arith loop 1M", "arith_loop_1M.runtime.hex", ""},
}

func evmBenchDir() string {
	if d := os.Getenv("EVM_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "evm-bench")
}

// runOurs executes code the way chaind evm run does and returns output and
// gas used.
func runOurs(code, input []byte) ([]byte, uint64, error) {
	st, err := state.New(types.Hash{}, trie.NewMemoryDB())
	if err != nil {
		return nil, 0, err
	}
	contract := types.BytesToAddress([]byte("contract"))
	origin := types.BytesToAddress([]byte("sender"))
	st.SetCode(contract, code)
	rnd := types.Hash{}
	e := evm.NewEVM(evm.BlockContext{GasLimit: evmBenchGas, BaseFee: uint256.NewInt(1_000_000_000),
		BlobBaseFee: uint256.NewInt(1), Difficulty: new(uint256.Int), Random: &rnd,
		GetHash: func(uint64) types.Hash { return types.Hash{} }}, st, 1, forks.Cancun)
	e.SetTxContext(evm.TxContext{Origin: origin, GasPrice: new(uint256.Int)})
	st.AddAddressToAccessList(origin)
	st.AddAddressToAccessList(contract)
	ret, left, err := e.Call(origin, contract, input, evmBenchGas, new(uint256.Int))
	return ret, evmBenchGas - left, err
}

// gethChainConfig enables every fork through Cancun at genesis, as
// go-ethereum's core/vm/runtime defaults do.
var gethChainConfig = func() *params.ChainConfig {
	zero := uint64(0)
	return &params.ChainConfig{
		ChainID: big.NewInt(1), HomesteadBlock: new(big.Int), EIP150Block: new(big.Int),
		EIP155Block: new(big.Int), EIP158Block: new(big.Int), ByzantiumBlock: new(big.Int),
		ConstantinopleBlock: new(big.Int), PetersburgBlock: new(big.Int), IstanbulBlock: new(big.Int),
		MuirGlacierBlock: new(big.Int), BerlinBlock: new(big.Int), LondonBlock: new(big.Int),
		TerminalTotalDifficulty: big.NewInt(0), ShanghaiTime: &zero, CancunTime: &zero,
		BlobScheduleConfig: params.DefaultBlobSchedule,
	}
}()

// runGeth is go-ethereum's core/vm/runtime.Execute without the package
// (which drags in ethash): fresh state, code installed, one call.
func runGeth(code, input []byte) ([]byte, error) {
	statedb, err := gstate.New(gtypes.EmptyRootHash, gstate.NewDatabaseForTesting())
	if err != nil {
		return nil, err
	}
	var (
		address = common.BytesToAddress([]byte("contract"))
		origin  = common.BytesToAddress([]byte("sender"))
		rnd     common.Hash
	)
	blockCtx := vm.BlockContext{
		CanTransfer: func(db vm.StateDB, a common.Address, v *uint256.Int) bool { return db.GetBalance(a).Cmp(v) >= 0 },
		Transfer: func(db vm.StateDB, from, to common.Address, v *uint256.Int) {
			db.SubBalance(from, v, tracing.BalanceChangeTransfer)
			db.AddBalance(to, v, tracing.BalanceChangeTransfer)
		},
		GetHash:     func(uint64) common.Hash { return common.Hash{} },
		BlockNumber: new(big.Int), Time: 0, Difficulty: new(big.Int), GasLimit: evmBenchGas,
		BaseFee: big.NewInt(params.InitialBaseFee), BlobBaseFee: big.NewInt(1), Random: &rnd,
	}
	env := vm.NewEVM(blockCtx, statedb, gethChainConfig, vm.Config{})
	rules := gethChainConfig.Rules(blockCtx.BlockNumber, true, 0)
	statedb.Prepare(rules, origin, common.Address{}, &address, vm.ActivePrecompiles(rules), nil)
	statedb.CreateAccount(address)
	statedb.SetCode(address, code, tracing.CodeChangeUnspecified)
	ret, _, err := env.Call(origin, address, input, evmBenchGas, new(uint256.Int))
	return ret, err
}

func init() {
	for _, in := range evmBenchInputs {
		raw, err := os.ReadFile(filepath.Join(evmBenchDir(), in.file))
		if err != nil {
			continue // inputs absent: the cases are simply not registered
		}
		code, err1 := hex.DecodeString(strings.TrimSpace(string(raw)))
		input, err2 := hex.DecodeString(in.input)
		if err1 != nil || err2 != nil {
			panic(fmt.Sprintf("peerbench: bad evm-bench input %s", in.file))
		}
		register(Case{
			Area: "evm", Name: in.name,
			Ours: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, _, err := runOurs(code, input); err != nil {
						b.Fatal(err)
					}
				}
			},
			Geth: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := runGeth(code, input); err != nil {
						b.Fatal(err)
					}
				}
			},
		})
	}
}

// checkEVMAgreement makes sure both sides compute the same output before
// their speed is compared.
func checkEVMAgreement(code, input []byte) error {
	a, _, err := runOurs(code, input)
	if err != nil {
		return err
	}
	b, err := runGeth(code, input)
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("outputs differ: ours %x geth %x", a, b)
	}
	return nil
}
