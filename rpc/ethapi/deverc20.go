package ethapi

import (
	"context"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// The ERC-20 getters whose storage the helpers below find.
var (
	selBalanceOf = []byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
	selAllowance = []byte{0xdd, 0x62, 0xed, 0x3e} // allowance(address,address)
)

// registerDevERC20 installs anvil_dealERC20 (also answering to its
// aliases hardhat_dealERC20 and anvil_setERC20Balance) and
// anvil_setERC20Allowance: a token balance or allowance set without
// knowing the token's storage layout. Both answer null, as anvil's do.
func registerDevERC20(s *rpc.Server, h *devAPI) {
	deal := func(ctx context.Context, p rpc.Params) (any, error) {
		var holder, token types.Address
		var amount types.HexU256
		if err := decodeAll(p, &holder, &token, &amount); err != nil {
			return nil, err
		}
		return nil, h.setERC20(ctx, token, abiCall(selBalanceOf, holder), (*uint256.Int)(&amount), "balance")
	}
	for _, name := range []string{"anvil_dealERC20", "hardhat_dealERC20", "anvil_setERC20Balance"} {
		register(s, name, 3, 3, deal)
	}
	register(s, "anvil_setERC20Allowance", 4, 4, func(ctx context.Context, p rpc.Params) (any, error) {
		var owner, spender, token types.Address
		var amount types.HexU256
		if err := decodeAll(p, &owner, &spender, &token, &amount); err != nil {
			return nil, err
		}
		return nil, h.setERC20(ctx, token, abiCall(selAllowance, owner, spender), (*uint256.Int)(&amount), "allowance")
	})
}

// decodeAll decodes the parameters in order into dst.
func decodeAll(p rpc.Params, dst ...any) error {
	for i, d := range dst {
		if err := p.Decode(i, d); err != nil {
			return err
		}
	}
	return nil
}

// abiCall is the calldata of a getter taking addresses.
func abiCall(selector []byte, args ...types.Address) []byte {
	out := append([]byte(nil), selector...)
	for _, a := range args {
		var word [32]byte
		copy(word[12:], a[:])
		out = append(out, word[:]...)
	}
	return out
}

// setERC20 writes amount into the storage slot of token that the getter
// call data reads, found as anvil finds it: the slots the call touches in
// the token (its access list) are tried in turn, each overridden with the
// amount in a call, and the first one that makes the getter answer the
// amount is written at the head. A token whose getter no single slot
// decides (a computed or proxied balance) gets anvil's error.
func (h *devAPI) setERC20(ctx context.Context, token types.Address, data []byte, amount *uint256.Int, what string) error {
	head := h.b.Head()
	args := backend.CallArgs{To: &token, Input: &data}
	al, err := h.b.CreateAccessList(ctx, &backend.CallRequest{Block: head, Args: args})
	if err == nil {
		want := types.Hash(amount.Bytes32())
		for _, t := range al.AccessList {
			if t.Address != token {
				continue
			}
			for _, slot := range t.StorageKeys {
				over := map[types.Address]backend.StateOverride{token: {StateDiff: map[types.Hash]types.Hash{slot: want}}}
				out, err := h.b.Call(ctx, &backend.CallRequest{Block: head, Args: args, StateOverrides: over})
				if err != nil || len(out) < 32 || types.Hash(out[:32]) != want {
					continue
				}
				return h.dev.SetStorageAt(ctx, token, slot, want)
			}
		}
	}
	return rpc.Errorf(rpc.CodeInternal, "Unable to set ERC20 %s, no slot found", what)
}
