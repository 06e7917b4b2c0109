package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// eth_estimateGas answers a limit with which the call succeeds; when the
// call needs no more than it uses (no refund, no 63/64 reserve for a
// nested call), the answer is exact: one gas less fails. (The others may be
// up to 1.5% above the least, as go-ethereum's search leaves them.)
func TestEstimateGasIsMinimalWhenItCanBe(t *testing.T) {
	b, funded := bareBackend(t)
	head := b.Head()
	ctx := context.Background()
	target, callee := types.Address{0xe1}, types.Address{0xe2}
	// PUSH1 1 PUSH1 0 SSTORE STOP: a fresh slot, nothing refunded.
	store := []byte{0x60, 0x01, 0x60, 0x00, 0x55, 0x00}
	// PUSH1 0 PUSH1 0 SSTORE STOP on a set slot: clears it, refunded.
	clear := []byte{0x60, 0x00, 0x60, 0x00, 0x55, 0x00}
	// CALL(gas: GAS, callee, 0, 0, 0, 0, 0) then POP STOP: the nested
	// call gets only 63/64 of what is left.
	call := []byte{0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0x73}
	call = append(call, callee[:]...)
	call = append(call, 0x5a, 0xf1, 0x50, 0x00)
	slot0 := types.Hash{}
	set := types.Hash{31: 1}
	for _, tc := range []struct {
		name   string
		code   []byte
		diff   map[types.Hash]types.Hash
		callee []byte
		data   []byte
		exact  bool
	}{
		{"plain transfer", nil, nil, nil, nil, true},
		{"calldata to an account without code", nil, nil, nil, []byte{1, 2, 3, 0, 0}, true},
		{"fresh storage write", store, nil, nil, nil, true},
		{"refunded storage clear", clear, map[types.Hash]types.Hash{slot0: set}, nil, nil, false},
		{"nested call", call, nil, store, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ov := map[types.Address]backend.StateOverride{}
			if tc.code != nil {
				ov[target] = backend.StateOverride{Code: &tc.code, StateDiff: tc.diff}
			}
			if tc.callee != nil {
				ov[callee] = backend.StateOverride{Code: &tc.callee}
			}
			req := func(gas *uint64) *backend.CallRequest {
				to := target
				data := tc.data
				return &backend.CallRequest{Block: head, StateOverrides: ov,
					Args: backend.CallArgs{From: &funded, To: &to, Gas: gas, Data: &data}}
			}
			est, err := b.EstimateGas(ctx, req(nil))
			if err != nil {
				t.Fatalf("estimate: %v", err)
			}
			if _, err := b.Call(ctx, req(&est)); err != nil {
				t.Fatalf("the call fails with the estimate %d: %v", est, err)
			}
			less := est - 1
			_, err = b.Call(ctx, req(&less))
			if tc.exact && err == nil {
				t.Fatalf("the call succeeds with %d, below the estimate %d", less, est)
			}
		})
	}
}

// An EIP-7702 authorization of an account that already exists refunds
// part of its intrinsic cost, but the gas limit must still cover all of
// it: the estimate of a call that runs no code is the gas it used before
// its refund (viem's type-4 sends failed with "intrinsic gas too low:
// have 36800, want 46000").
func TestEstimateGasCoversRefundedAuthorization(t *testing.T) {
	key := secp256k1.PrivKeyFromBytes([]byte{31: 7})
	authority := types.Address(crypto.PrivkeyToAddress(key))
	funded := types.Address{0xfe}
	// The authority exists from genesis, so its authorization is refunded.
	c, err := chain.Open(chain.DevGenesis(chain.MainChainID, []types.Address{funded, authority}, 1_700_000_000), store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := New(chainview.New(c), nil, Options{})
	head := b.Head()
	ctx := context.Background()
	auth := types.SignSetCode(key, types.SetCodeAuthorization{ChainID: *uint256.NewInt(b.chain.Config.ChainID), Address: types.Address{0xdd}})
	to := types.Address{0xe0}
	req := func(gas *uint64) *backend.CallRequest {
		return &backend.CallRequest{Block: head,
			Args: backend.CallArgs{From: &funded, To: &to, Gas: gas, AuthorizationList: []types.SetCodeAuthorization{auth}}}
	}
	est, err := b.EstimateGas(ctx, req(nil))
	if err != nil {
		t.Fatal(err)
	}
	if est != 21000+25000 {
		t.Fatalf("estimate %d, want 46000 (21000 + 25000 for the authorization, before its refund)", est)
	}
	if _, err := b.Call(ctx, req(&est)); err != nil {
		t.Fatalf("the call fails with the estimate %d: %v", est, err)
	}
}
