package evm

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

var (
	testContract = types.MustAddress("0x00000000000000000000000000000000000c0de0")
	testCaller   = types.MustAddress("0x000000000000000000000000000000000000ca11")
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runCode installs code at testContract and calls it with input.
func runCode(t testing.TB, fork forks.Fork, code, input []byte, gas uint64) ([]byte, uint64, error, *memState) {
	return runCodeTraced(t, fork, code, input, gas, nil)
}

// runCodeTraced is runCode with tracer as the EVM's hooks (nil for none).
func runCodeTraced(t testing.TB, fork forks.Fork, code, input []byte, gas uint64, tracer *Hooks) ([]byte, uint64, error, *memState) {
	st := newMemState()
	st.SetCode(testContract, code)
	st.AddBalance(testCaller, uint256.NewInt(1e18))
	st.AddBalance(testContract, uint256.NewInt(1e9))
	e := NewEVM(BlockContext{Number: 10, Time: 1000, GasLimit: 30_000_000, BaseFee: uint256.NewInt(7),
		GetHash: func(n uint64) types.Hash { return types.Hash{byte(n)} }}, st, 1, fork)
	e.SetTxContext(TxContext{Origin: testCaller, GasPrice: uint256.NewInt(1)})
	e.Config.Tracer = tracer
	ret, left, err := e.Call(testCaller, testContract, input, gas, new(uint256.Int))
	return ret, gas - left, err, st
}

// ret32 wraps code that leaves one word on the stack so it returns it.
const ret32 = "60005260206000f3"

func TestOpcodes(t *testing.T) {
	tests := []struct {
		name string
		fork forks.Fork
		code string
		want string // returned word in hex (right-aligned)
		gas  uint64 // total gas used, 0 = don't check
		err  error
	}{
		{"add", forks.Cancun, "6002600301" + ret32, "05", 0, nil},
		{"sub wraps", forks.Cancun, "6001600003" + ret32, strings.Repeat("ff", 32), 0, nil},
		{"mul", forks.Cancun, "6007600602" + ret32, "2a", 0, nil},
		{"div by zero", forks.Cancun, "6000600704" + ret32, "00", 0, nil},
		{"sdiv -8/2", forks.Cancun, "6002" + "7f" + strings.Repeat("ff", 31) + "f8" + "05" + ret32, strings.Repeat("ff", 31) + "fc", 0, nil},
		{"mod", forks.Cancun, "6003600806" + ret32, "02", 0, nil},
		{"addmod", forks.Cancun, "600560046003" + "08" + ret32, "02", 0, nil},
		{"mulmod", forks.Cancun, "600560046003" + "09" + ret32, "02", 0, nil},
		{"exp", forks.Cancun, "600a60020a" + ret32, "0400", 0, nil},
		{"signextend", forks.Cancun, "60ff60000b" + ret32, strings.Repeat("ff", 32), 0, nil},
		{"lt", forks.Cancun, "600260011" + "0" + ret32, "01", 0, nil},
		{"byte", forks.Cancun, "61abcd601e1a" + ret32, "ab", 0, nil},
		{"shl", forks.Cancun, "600160041b" + ret32, "10", 0, nil},
		{"shr", forks.Cancun, "601060041c" + ret32, "01", 0, nil},
		{"sar negative", forks.Cancun, "7ff000000000000000000000000000000000000000000000000000000000000000" + "60041d" + ret32, "ff" + strings.Repeat("00", 31), 0, nil},
		{"shl before constantinople", forks.Byzantium, "600160041b", "", 0, ErrInvalidOpCode},
		{"clz", forks.Osaka, "60011e" + ret32, "ff", 0, nil},
		{"clz zero", forks.Osaka, "60001e" + ret32, "0100", 0, nil},
		{"clz before osaka", forks.Prague, "60011e", "", 0, ErrInvalidOpCode},
		{"push0", forks.Shanghai, "5f" + ret32, "00", 0, nil},
		{"push0 before shanghai", forks.Paris, "5f", "", 0, ErrInvalidOpCode},
		{"keccak empty", forks.Cancun, "60006000" + "20" + ret32, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470", 0, nil},
		{"address", forks.Cancun, "30" + ret32, "0c0de0", 0, nil},
		{"caller", forks.Cancun, "33" + ret32, "ca11", 0, nil},
		{"chainid", forks.Cancun, "46" + ret32, "01", 0, nil},
		{"basefee", forks.Cancun, "48" + ret32, "07", 0, nil},
		{"number", forks.Cancun, "43" + ret32, "0a", 0, nil},
		{"blockhash in range", forks.Cancun, "600940" + ret32, "09" + strings.Repeat("00", 31), 0, nil},
		{"blockhash current", forks.Cancun, "600a40" + ret32, "00", 0, nil},
		{"msize", forks.Cancun, "600051505959" + "50" + ret32, "20", 0, nil},
		{"mcopy", forks.Cancun, "60ff600052" + "6001601f6000" + "5e" + "600051" + ret32, "ff" + strings.Repeat("00", 30) + "ff", 0, nil},
		{"tstore/tload", forks.Cancun, "602a60015d60015c" + ret32, "2a", 0, nil},
		{"sstore/sload", forks.Cancun, "602a600155600154" + ret32, "2a", 0, nil},
		{"jump to jumpdest", forks.Cancun, "600456005b6001" + ret32, "01", 0, nil},
		{"jump into push data", forks.Cancun, "60035660005b", "", 0, ErrInvalidJump},
		{"jumpi not taken", forks.Cancun, "6000600757600260005260206000f35b", "02", 0, nil},
		{"stack underflow", forks.Cancun, "01", "", 0, ErrStackUnderflow},
		{"invalid opcode", forks.Cancun, "fe", "", 0, ErrInvalidOpCode},
		{"revert", forks.Cancun, "60016000fd", "", 0, ErrExecutionReverted},
		{"returndatasize empty", forks.Cancun, "3d" + ret32, "00", 0, nil},
		{"returndatacopy out of bounds", forks.Cancun, "600160006000" + "3e", "", 0, ErrReturnDataOutOfBounds},
		// 3+3 (PUSH) + 3 (ADD) = 9; no memory.
		{"gas of add", forks.Cancun, "6001600101", "", 9, nil},
		// MSTORE at 0: 3+3+3 + 3 (one word).
		{"gas of mstore", forks.Cancun, "6001600052", "", 12, nil},
		// Cold SLOAD 2100 + PUSH 3.
		{"gas of cold sload", forks.Berlin, "600054", "", 2103, nil},
		{"gas of sload istanbul", forks.Istanbul, "600054", "", 803, nil},
		{"gas of sload frontier", forks.Frontier, "600054", "", 53, nil},
		// SSTORE 0->1 on a clean slot: cold 2100 + 20000 + 2 PUSH.
		{"gas of sstore set", forks.Cancun, "6001600055", "", 22106, nil},
		{"gas of exp spurious", forks.SpuriousDragon, "61010060020a", "", 3 + 3 + 10 + 100, nil},
		{"gas of exp frontier", forks.Frontier, "61010060020a", "", 3 + 3 + 10 + 20, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ret, used, err, _ := runCode(t, tt.fork, mustHex(t, tt.code), nil, 100000)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.gas != 0 && used != tt.gas {
				t.Errorf("gas used = %d, want %d", used, tt.gas)
			}
			if tt.err == nil && tt.want != "" {
				want := new(uint256.Int).SetBytes(mustHex(t, tt.want))
				got := new(uint256.Int).SetBytes(ret)
				if !got.Eq(want) {
					t.Errorf("returned %x, want %s", ret, tt.want)
				}
			}
		})
	}
}

func TestCallStaticWriteProtection(t *testing.T) {
	st := newMemState()
	callee := types.MustAddress("0x00000000000000000000000000000000000000bb")
	st.SetCode(callee, mustHex(t, "6001600055")) // SSTORE
	// STATICCALL(gas, callee, 0,0,0,0) and return the success flag.
	code := mustHex(t, "6000600060006000"+"73"+hex.EncodeToString(callee[:])+"61fffffa"+ret32)
	st.SetCode(testContract, code)
	e := NewEVM(BlockContext{}, st, 1, forks.Cancun)
	ret, _, err := e.Call(testCaller, testContract, nil, 1_000_000, new(uint256.Int))
	if err != nil {
		t.Fatal(err)
	}
	if new(uint256.Int).SetBytes(ret).Uint64() != 0 {
		t.Fatalf("static SSTORE succeeded")
	}
}

func TestCreateAndCall(t *testing.T) {
	st := newMemState()
	from := types.MustAddress("0x1000000000000000000000000000000000000001")
	st.AddBalance(from, uint256.NewInt(1e18))
	// Init code returning runtime 602a60005260206000f3 (returns 42).
	initcode := mustHex(t, "69602a60005260206000f3600052600a6016f3")
	gp := GasPool(30_000_000)
	e := NewEVM(BlockContext{GasLimit: 30_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Cancun)
	res, err := ApplyMessage(e, &Message{From: from, Value: new(uint256.Int), GasLimit: 200000, GasPrice: uint256.NewInt(2), Data: initcode}, &gp)
	if err != nil || res.Err != nil {
		t.Fatal(err, res)
	}
	addr := CreateAddress(from, 0)
	if got := st.GetCode(addr); hex.EncodeToString(got) != "602a60005260206000f3" {
		t.Fatalf("deployed %x", got)
	}
	res, err = ApplyMessage(e, &Message{From: from, To: &addr, Nonce: 1, Value: new(uint256.Int), GasLimit: 50000, GasPrice: uint256.NewInt(2)}, &gp)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if new(uint256.Int).SetBytes(res.ReturnData).Uint64() != 42 || res.UsedGas != 21000+3+3+3+3+3+3 {
		t.Fatalf("ret %x used %d", res.ReturnData, res.UsedGas)
	}
	// Validation errors leave state alone.
	bal := st.GetBalance(from).Clone()
	for _, tc := range []struct {
		msg  Message
		want error
	}{
		{Message{From: from, To: &addr, Nonce: 1, GasLimit: 20000, GasPrice: uint256.NewInt(2)}, ErrNonceTooLow},
		{Message{From: from, To: &addr, Nonce: 9, GasLimit: 21000, GasPrice: uint256.NewInt(2)}, ErrNonceTooHigh},
		{Message{From: from, To: &addr, Nonce: 2, GasLimit: 20000, GasPrice: uint256.NewInt(2)}, ErrIntrinsicGas},
		{Message{From: from, To: &addr, Nonce: 2, GasLimit: 21000, GasPrice: uint256.NewInt(0)}, ErrFeeCapTooLow},
		{Message{From: from, To: &addr, Nonce: 2, GasLimit: 21000, GasPrice: uint256.NewInt(1e18)}, ErrInsufficientFunds},
		{Message{From: from, To: &addr, Nonce: 2, GasLimit: 40_000_000, GasPrice: uint256.NewInt(1)}, ErrGasLimitReached},
		{Message{From: from, To: &addr, Nonce: 2, GasLimit: 21000, GasFeeCap: uint256.NewInt(5), GasTipCap: uint256.NewInt(6)}, ErrTipAboveFeeCap},
		{Message{From: addr, To: &addr, Nonce: 1, GasLimit: 21000, GasPrice: uint256.NewInt(1)}, ErrSenderNoEOA},
		{Message{From: from, To: &addr, Nonce: 2, GasLimit: 21000, GasPrice: uint256.NewInt(1), BlobHashes: []types.Hash{}}, ErrMissingBlobHashes},
	} {
		if _, err := ApplyMessage(e, &tc.msg, &gp); !errors.Is(err, tc.want) {
			t.Errorf("got %v, want %v", err, tc.want)
		}
	}
	if !st.GetBalance(from).Eq(bal) {
		t.Error("invalid transactions changed the balance")
	}
}

// benchInput reads one of the shared evm-bench inputs, skipping when the
// folder is absent.
func benchInput(t testing.TB, name string) []byte {
	dir := os.Getenv("EVM_BENCH_DIR") // as make evmbench takes it; a worktree has no ../../shared
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "evm-bench")
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Skipf("evm-bench input %s not available: %v", name, err)
	}
	return mustHex(t, string(b))
}

func TestBenchInputs(t *testing.T) {
	for _, tc := range []struct {
		file, input, out string
		gas              uint64
	}{
		{"keccak_loop_1M.runtime.hex", "", "16e199635319b8c568a0405a570382994a90a56d5f116892d8cbcb3b13cda0eb", 74_000_012},
		{"arith_loop_1M.runtime.hex", "", "0a4ac3dc", 63_000_023},
		{"ERC20Transfer.runtime.hex", "30627b7c", "", 14_103_860},
		{"SnailTracer.runtime.hex", "30627b7c", "", 235_948_591},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(tc.file, "Snail") {
				t.Skip("long")
			}
			ret, used, err, _ := runCode(t, forks.Cancun, benchInput(t, tc.file), mustHex(t, tc.input), 1_000_000_000)
			if err != nil {
				t.Fatal(err)
			}
			if tc.out != "" && !strings.HasSuffix(hex.EncodeToString(ret), tc.out) {
				t.Errorf("output %x", ret)
			}
			// geth's evm tool reports gas including the 21000 intrinsic.
			if used+21000 != tc.gas && used != tc.gas {
				t.Errorf("gas used %d, want %d", used, tc.gas)
			}
		})
	}
}

func TestBlobBaseFee(t *testing.T) {
	for _, tc := range []struct {
		fork   forks.Fork
		excess uint64
		want   uint64
	}{
		{forks.Cancun, 0, 1},
		{forks.Cancun, 3338477, 2},          // floor(e)
		{forks.Cancun, 10 * 3338477, 22026}, // floor(e^10) within the series' rounding
		{forks.Prague, 5007716 * 10, 22026},
	} {
		got := CalcBlobBaseFee(tc.fork, tc.excess)
		if d := int64(got.Uint64()) - int64(tc.want); d < -2 || d > 2 {
			t.Errorf("%v excess %d: fee %d, want ~%d", tc.fork, tc.excess, got.Uint64(), tc.want)
		}
	}
	if f := CalcBlobBaseFee(forks.Cancun, 1<<62); !f.Eq(new(uint256.Int).SetAllOne()) {
		t.Errorf("huge excess: %v, want saturation", f)
	}
	// The remembered last fee answers a repeat, keyed by the fraction too,
	// and a caller changing its copy leaves the next answer alone.
	a := CalcBlobBaseFee(forks.Cancun, 10*3338477)
	a.SetUint64(7)
	if b := CalcBlobBaseFee(forks.Cancun, 10*3338477); b.Uint64() != BlobSchedule(forks.Cancun).baseFee(10*3338477).Uint64() {
		t.Errorf("repeat: fee %d after the caller changed its copy", b.Uint64())
	}
	if b := CalcBlobBaseFee(forks.Prague, 10*3338477); b.Eq(BlobSchedule(forks.Cancun).baseFee(10 * 3338477)) {
		t.Errorf("Prague's fraction answered with Cancun's fee %d", b.Uint64())
	}
}

// Cancel stops an endless loop at its next jump.
func TestCancelStopsLoop(t *testing.T) {
	// JUMPDEST; PUSH1 0; JUMP: loops until the gas runs out.
	code := []byte{0x5b, 0x60, 0x00, 0x56}
	db := newMemState()
	to := types.Address{0xc0}
	db.SetCode(to, code)
	vm := NewEVM(BlockContext{}, db, 1, forks.Latest)
	vm.Cancel()
	_, left, err := vm.Call(types.Address{1}, to, nil, 1_000_000_000, new(uint256.Int))
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("cancelled loop: %v (gas left %d)", err, left)
	}
}
