package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A call that pays nothing for gas runs with base fee 0 on every call
// path, whichever way "nothing" is spelled; a priced call sees the block's
// real base fee. The rule, not one vector: each path runs each shape.
func TestUnpricedCallsSeeZeroBaseFee(t *testing.T) {
	b, funded := bareBackend(t)
	head := b.Head()
	if head.BaseFee() == nil || head.BaseFee().IsZero() {
		t.Fatal("the dev chain's head needs a non-zero base fee for this test")
	}
	ctx := context.Background()
	// BASEFEE ISZERO PUSH1 9 JUMPI PUSH1 0 DUP1 REVERT JUMPDEST STOP:
	// succeeds only when BASEFEE is 0.
	needsZero := []byte{0x48, 0x15, 0x60, 0x09, 0x57, 0x60, 0x00, 0x80, 0xfd, 0x5b, 0x00}
	// BASEFEE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
	returnsBaseFee := []byte{0x48, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3}
	checker, reader := types.Address{0xc1}, types.Address{0xc2}
	overrides := map[types.Address]backend.StateOverride{checker: {Code: &needsZero}, reader: {Code: &returnsBaseFee}}
	price := new(uint256.Int).Mul(head.BaseFee(), uint256.NewInt(2))
	for _, tc := range []struct {
		name     string
		args     backend.CallArgs
		unpriced bool
	}{
		{"no price", backend.CallArgs{}, true},
		{"gasPrice 0", backend.CallArgs{GasPrice: new(uint256.Int)}, true},
		{"maxFeePerGas 0", backend.CallArgs{MaxFeePerGas: new(uint256.Int), MaxPriorityFeePerGas: new(uint256.Int)}, true},
		{"tip only", backend.CallArgs{MaxPriorityFeePerGas: uint256.NewInt(1)}, true},
		{"gasPrice", backend.CallArgs{GasPrice: price}, false},
		{"maxFeePerGas", backend.CallArgs{MaxFeePerGas: price, MaxPriorityFeePerGas: uint256.NewInt(1)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := func(to types.Address) *backend.CallRequest {
				a := tc.args
				a.From, a.To = &funded, &to
				return &backend.CallRequest{Block: head, Args: a, StateOverrides: overrides}
			}
			out, err := b.Call(ctx, req(reader))
			if err != nil {
				t.Fatalf("eth_call: %v", err)
			}
			want := new(uint256.Int)
			if !tc.unpriced {
				want.Set(head.BaseFee())
			}
			if got := new(uint256.Int).SetBytes(out); !got.Eq(want) {
				t.Errorf("eth_call: BASEFEE = %s, want %s", got, want)
			}
			_, err = b.EstimateGas(ctx, req(checker))
			if tc.unpriced != (err == nil) {
				t.Errorf("eth_estimateGas: err = %v, want success only when unpriced (%v)", err, tc.unpriced)
			}
			res, err := b.CreateAccessList(ctx, req(checker))
			if err != nil {
				t.Fatalf("eth_createAccessList: %v", err)
			}
			if tc.unpriced != (res.Err == nil) {
				t.Errorf("eth_createAccessList: call error %v, want success only when unpriced (%v)", res.Err, tc.unpriced)
			}
		})
	}
}
