package ethapi

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// maxDevBaseFee bounds a chosen base fee: Hardhat Network keeps base fees
// in 128 bits, and a fee cap times a block's gas must stay far inside 256.
var maxDevBaseFee = new(uint256.Int).Sub(new(uint256.Int).Lsh(uint256.NewInt(1), 128), uint256.NewInt(1))

// registerDevNextBlock installs the helpers that choose the next blocks'
// coinbase, gas limit, base fee and PREVRANDAO and edit the pool: hardhat_* answer
// true (or false) as Hardhat Network does, anvil_* null (or the dropped
// hash) as anvil does, with each one's errors.
func registerDevNextBlock(s *rpc.Server, h *devAPI) {
	dev := h.dev
	for _, ns := range []string{"hardhat", "anvil"} {
		done := any(true)
		if ns == "anvil" {
			done = nil
		}
		register(s, ns+"_setCoinbase", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
			var a types.Address
			if err := p.Decode(0, &a); err != nil {
				return nil, err
			}
			return done, dev.SetCoinbase(ctx, a)
		})
		method := ns + "_setNextBlockBaseFeePerGas"
		register(s, method, 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
			var fee types.HexU256
			if err := p.Decode(0, &fee); err != nil {
				return nil, err
			}
			if (*uint256.Int)(&fee).Gt(maxDevBaseFee) {
				return nil, rpc.InvalidParams(0, fmt.Errorf("base fee %s is above 2^128-1", (*uint256.Int)(&fee).Hex()))
			}
			err := dev.SetNextBlockBaseFee(ctx, (*uint256.Int)(&fee))
			if errors.Is(err, backend.ErrBaseFeeInactive) {
				// Hardhat answers -32000 ("invalid input"), anvil -32602,
				// each in its own words.
				if ns == "anvil" {
					return nil, rpc.Errorf(rpc.CodeInvalidParams, "%s is only supported when EIP-1559 is active", method)
				}
				return nil, rpc.Errorf(rpc.CodeServer, "%s is disabled because EIP-1559 is not active", method)
			}
			return done, err
		})
	}
	// eth_coinbase follows the chosen coinbase, as on both.
	if base, min, max, ok := s.Lookup("eth_coinbase"); ok {
		s.Register("eth_coinbase", min, max, func(ctx context.Context, p rpc.Params) (any, error) {
			if cb, chosen := dev.Coinbase(); chosen {
				return cb, nil
			}
			return base(ctx, p)
		})
	}
	// Hardhat's name and anvil's differ; the value is the next block's
	// alone in both.
	setRandao := func(result any) rpc.Handler {
		return func(ctx context.Context, p rpc.Params) (any, error) {
			var r types.Hash
			if err := p.Decode(0, &r); err != nil {
				return nil, err
			}
			return result, dev.SetNextBlockRandao(ctx, r)
		}
	}
	// evm_setBlockGasLimit is both tools' name (anvil also answers to
	// anvil_setBlockGasLimit); both answer true. Zero is refused as
	// Hardhat refuses it: no transaction would ever fit.
	for _, name := range []string{"evm_setBlockGasLimit", "anvil_setBlockGasLimit"} {
		register(s, name, 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
			var limit devQuantity
			if err := p.Decode(0, &limit); err != nil {
				return nil, err
			}
			switch {
			case limit == 0:
				return nil, rpc.Errorf(rpc.CodeServer, "Block gas limit must be greater than 0")
			case limit > math.MaxInt64:
				return nil, rpc.InvalidParams(0, fmt.Errorf("gas limit %d is above 2^63-1", limit))
			}
			return true, dev.SetBlockGasLimit(ctx, uint64(limit))
		})
	}
	register(s, "hardhat_setPrevRandao", 1, 1, setRandao(true))
	register(s, "anvil_setNextBlockPrevRandao", 1, 1, setRandao(nil))

	register(s, "hardhat_dropTransaction", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		var hash types.Hash
		if err := p.Decode(0, &hash); err != nil {
			return nil, err
		}
		if dropped, err := dev.DropTransaction(ctx, hash); dropped || err != nil {
			return dropped, err
		}
		if _, _, mined := h.b.TxLookup(hash); mined {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "Transaction %s cannot be dropped because it's already mined", hash.Hex())
		}
		return false, nil
	})
	register(s, "anvil_dropTransaction", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		var hash types.Hash
		if err := p.Decode(0, &hash); err != nil {
			return nil, err
		}
		dropped, err := dev.DropTransaction(ctx, hash)
		if !dropped || err != nil {
			return nil, err
		}
		return hash, nil
	})
	register(s, "anvil_dropAllTransactions", 0, 0, func(ctx context.Context, _ rpc.Params) (any, error) {
		return nil, dev.DropAllTransactions(ctx)
	})
}
