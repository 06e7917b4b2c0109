package evm

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func testKey(t *testing.T, seed string) (types.Address, func(types.SetCodeAuthorization) types.SetCodeAuthorization) {
	h := crypto.Keccak256([]byte(seed))
	key, err := crypto.ToPrivateKey(h[:])
	if err != nil {
		t.Fatal(err)
	}
	addr := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	return addr, func(a types.SetCodeAuthorization) types.SetCodeAuthorization { return types.SignSetCode(key, a) }
}

func TestSetCodeTransaction(t *testing.T) {
	st := newMemState()
	sender := types.MustAddress("0x1000000000000000000000000000000000000001")
	st.AddBalance(sender, uint256.NewInt(1e18))
	authority, sign := testKey(t, "authority")
	st.AddBalance(authority, uint256.NewInt(1))
	target := types.MustAddress("0x00000000000000000000000000000000000000ee")
	st.SetCode(target, mustHex(t, "602a60005260206000f3")) // returns 42

	e := NewEVM(BlockContext{GasLimit: 30_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Prague)
	auths := []types.SetCodeAuthorization{
		sign(types.SetCodeAuthorization{ChainID: *uint256.NewInt(1), Address: target, Nonce: 0}),
		sign(types.SetCodeAuthorization{ChainID: *uint256.NewInt(5), Address: target, Nonce: 1}), // wrong chain: skipped
	}
	msg := &Message{From: sender, To: &authority, Value: new(uint256.Int), GasLimit: 100000,
		GasFeeCap: uint256.NewInt(1), GasTipCap: new(uint256.Int), AuthList: auths}
	res, err := ApplyMessage(e, msg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || new(uint256.Int).SetBytes(res.ReturnData).Uint64() != 42 {
		t.Fatalf("call through delegation: %v %x", res.Err, res.ReturnData)
	}
	if got, ok := ParseDelegation(st.GetCode(authority)); !ok || got != target {
		t.Fatalf("authority code %x", st.GetCode(authority))
	}
	if st.GetNonce(authority) != 1 {
		t.Errorf("authority nonce %d", st.GetNonce(authority))
	}
	// 21000 + 25000 per authorization + 18 execution; the existing
	// authority refunds 12500, capped at a fifth.
	used := uint64(21000 + 2*25000 + 18)
	if want := used - min(used/5, 12500); res.UsedGas != want {
		t.Errorf("gas used %d, want %d", res.UsedGas, want)
	}

	// Validation.
	for _, tc := range []struct {
		msg  Message
		want error
	}{
		{Message{From: sender, To: &authority, Nonce: 1, GasLimit: 100000, GasFeeCap: uint256.NewInt(1), AuthList: []types.SetCodeAuthorization{}}, ErrEmptyAuthList},
		{Message{From: sender, Nonce: 1, GasLimit: 100000, GasFeeCap: uint256.NewInt(1), AuthList: auths}, ErrSetCodeTxCreate},
	} {
		if _, err := ApplyMessage(e, &tc.msg, nil); !errors.Is(err, tc.want) {
			t.Errorf("got %v, want %v", err, tc.want)
		}
	}
	old := NewEVM(BlockContext{GasLimit: 30_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Cancun)
	if _, err := ApplyMessage(old, msg, nil); !errors.Is(err, ErrTxTypeNotSupported) {
		t.Errorf("set-code tx before forks.Prague: %v", err)
	}
}

func TestCalldataFloor(t *testing.T) {
	st := newMemState()
	sender := types.MustAddress("0x1000000000000000000000000000000000000001")
	to := types.MustAddress("0x2000000000000000000000000000000000000002")
	st.AddBalance(sender, uint256.NewInt(1e18))
	data := make([]byte, 100)
	for i := range data {
		data[i] = 0xaa
	}
	// Intrinsic 21000 + 100*16 = 22600; floor 21000 + 400*10 = 25000.
	e := NewEVM(BlockContext{GasLimit: 30_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Prague)
	msg := &Message{From: sender, To: &to, GasLimit: 24000, GasPrice: uint256.NewInt(1), Data: data}
	if _, err := ApplyMessage(e, msg, nil); !errors.Is(err, ErrFloorDataGas) {
		t.Fatalf("below floor: %v", err)
	}
	msg.GasLimit = 30000
	res, err := ApplyMessage(e, msg, nil)
	if err != nil || res.UsedGas != 25000 {
		t.Fatalf("used %v, err %v; want 25000", res, err)
	}
	// Cancun has no floor.
	msg.Nonce = 1
	res, err = ApplyMessage(NewEVM(BlockContext{GasLimit: 30_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Cancun), msg, nil)
	if err != nil || res.UsedGas != 22600 {
		t.Fatalf("cancun used %v, err %v; want 22600", res, err)
	}
}

func TestOsakaGasCap(t *testing.T) {
	st := newMemState()
	sender := types.MustAddress("0x1000000000000000000000000000000000000001")
	st.AddBalance(sender, uint256.NewInt(1e18))
	e := NewEVM(BlockContext{GasLimit: 60_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Osaka)
	msg := &Message{From: sender, To: &sender, GasLimit: MaxTxGas + 1, GasPrice: uint256.NewInt(1)}
	if _, err := ApplyMessage(e, msg, nil); !errors.Is(err, ErrGasLimitTooHigh) {
		t.Fatalf("got %v", err)
	}
	msg.GasLimit = MaxTxGas
	if _, err := ApplyMessage(e, msg, nil); err != nil {
		t.Fatal(err)
	}
}

func TestSystemCallHistory(t *testing.T) {
	st := newMemState()
	// The EIP-2935 contract code: set() stores calldata at (number-1) % 8191.
	st.SetCode(HistoryStorageAddress, mustHex(t, "3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500"))
	e := NewEVM(BlockContext{Number: 100, GasLimit: 30_000_000, BaseFee: uint256.NewInt(1)}, st, 1, forks.Prague)
	parent := types.Hash{0xab, 0xcd}
	if _, err := e.SystemCall(HistoryStorageAddress, parent[:]); err != nil {
		t.Fatal(err)
	}
	var slot types.Hash
	slot[31] = 99
	if got := st.GetState(HistoryStorageAddress, slot); got != parent {
		t.Fatalf("slot 99 = %x", got)
	}
	if ret, err := e.SystemCall(BeaconRootsAddress, parent[:]); ret != nil || err != nil {
		t.Fatalf("call without code: %x %v", ret, err)
	}
}

func TestSetPrecompiles(t *testing.T) {
	st := newMemState()
	e := NewEVM(BlockContext{}, st, 1, forks.Cancun)
	m := PrecompilesFor(forks.Cancun)
	id := types.Address{19: 4}
	moved := types.Address{19: 0x77}
	m[moved] = m[id]
	delete(m, id)
	e.SetPrecompiles(m)
	ret, _, err := e.Call(testCaller, moved, []byte{1, 2, 3}, 10000, new(uint256.Int))
	if err != nil || string(ret) != "\x01\x02\x03" {
		t.Fatalf("moved identity: %x %v", ret, err)
	}
	if _, ok := e.precs.get(id); ok {
		t.Fatal("old address still a precompile")
	}
	if len(e.PrecompileAddresses()) != len(m) {
		t.Fatal("addresses not updated")
	}
}
