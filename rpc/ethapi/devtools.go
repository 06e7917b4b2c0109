package ethapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// RegisterDevTools installs a development node's test helpers under the
// names Hardhat Network (evm_*, hardhat_*) and anvil (anvil_*, and its
// evm_* aliases) give them, with their parameter shapes and results:
// where the two disagree the hardhat_ name answers as Hardhat does and the
// anvil_ name as anvil does (a null result, seconds for intervals).
func RegisterDevTools(s *rpc.Server, b Backend, dev backend.DevTools, keys backend.Accounts, opts EthOptions) {
	h := &devAPI{b: b, dev: dev, keys: keys, opts: opts}
	register(s, "evm_snapshot", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return types.HexUint64(dev.Snapshot()), nil
	})
	register(s, "anvil_snapshot", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return types.HexUint64(dev.Snapshot()), nil
	})
	// Hardhat's evm_revert puts back the pool, the coinbase and the next
	// block's PREVRANDAO as they were; anvil's revert leaves the pool and
	// the coinbase and drops a chosen PREVRANDAO.
	register(s, "evm_revert", 1, 1, h.revert(backend.RevertOptions{Pool: true, Coinbase: true, NextRandao: true}))
	register(s, "anvil_revert", 1, 1, h.revert(backend.RevertOptions{}))

	register(s, "evm_mine", 0, 1, h.evmMine)
	register(s, "hardhat_mine", 0, 2, func(ctx context.Context, p rpc.Params) (any, error) { return true, h.mine(ctx, p, 1) })
	register(s, "anvil_mine", 0, 2, func(ctx context.Context, p rpc.Params) (any, error) { return nil, h.mine(ctx, p, 0) })

	register(s, "evm_increaseTime", 1, 1, h.increaseTime)
	register(s, "anvil_increaseTime", 1, 1, h.increaseTime)
	register(s, "evm_setNextBlockTimestamp", 1, 1, func(_ context.Context, p rpc.Params) (any, error) { return nil, h.setNextTimestamp(p) })
	register(s, "anvil_setNextBlockTimestamp", 1, 1, func(_ context.Context, p rpc.Params) (any, error) { return nil, h.setNextTimestamp(p) })

	register(s, "evm_setAutomine", 1, 1, func(_ context.Context, p rpc.Params) (any, error) { return true, h.setAutomine(p) })
	register(s, "anvil_setAutomine", 1, 1, func(_ context.Context, p rpc.Params) (any, error) { return nil, h.setAutomine(p) })
	register(s, "hardhat_getAutomine", 0, 0, func(context.Context, rpc.Params) (any, error) { return dev.Automine(), nil })
	register(s, "anvil_getAutomine", 0, 0, func(context.Context, rpc.Params) (any, error) { return dev.Automine(), nil })
	// Hardhat counts the interval in milliseconds, anvil in seconds.
	register(s, "evm_setIntervalMining", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		return true, h.setInterval(p, time.Millisecond)
	})
	register(s, "anvil_setIntervalMining", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		return nil, h.setInterval(p, time.Second)
	})

	for _, ns := range []string{"hardhat", "anvil"} {
		result := any(true) // hardhat_* answer true, anvil_* null
		if ns == "anvil" {
			result = nil
		}
		set := func(f func(ctx context.Context, p rpc.Params, a types.Address) error) rpc.Handler {
			return func(ctx context.Context, p rpc.Params) (any, error) {
				var a types.Address
				if err := p.Decode(0, &a); err != nil {
					return nil, err
				}
				if err := f(ctx, p, a); err != nil {
					return nil, err
				}
				return result, nil
			}
		}
		register(s, ns+"_setLoggingEnabled", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
			var on bool
			if err := p.Decode(0, &on); err != nil {
				return nil, err
			}
			dev.SetLoggingEnabled(on)
			return result, nil
		})
		register(s, ns+"_setBalance", 2, 2, set(h.setBalance))
		register(s, ns+"_setCode", 2, 2, set(h.setCode))
		register(s, ns+"_setNonce", 2, 2, set(h.setNonce))
		register(s, ns+"_setStorageAt", 3, 3, set(h.setStorageAt))
		register(s, ns+"_impersonateAccount", 1, 1, set(func(_ context.Context, _ rpc.Params, a types.Address) error {
			dev.Impersonate(a)
			return nil
		}))
		register(s, ns+"_stopImpersonatingAccount", 1, 1, set(func(_ context.Context, _ rpc.Params, a types.Address) error {
			dev.StopImpersonating(a)
			return nil
		}))
	}
	register(s, "anvil_autoImpersonateAccount", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var on bool
		if err := p.Decode(0, &on); err != nil {
			return nil, err
		}
		dev.AutoImpersonate(on)
		return nil, nil
	})
	register(s, "anvil_dumpState", 0, 0, func(context.Context, rpc.Params) (any, error) {
		dump, err := dev.DumpState()
		return types.HexBytes(dump), err
	})
	register(s, "anvil_loadState", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		var dump types.HexBytes
		if err := p.Decode(0, &dump); err != nil {
			return nil, err
		}
		if err := dev.LoadState(ctx, dump); err != nil {
			return nil, err
		}
		return true, nil
	})
	register(s, "anvil_addBalance", 2, 2, func(ctx context.Context, p rpc.Params) (any, error) {
		var a types.Address
		var amount types.HexU256
		if err := p.Decode(0, &a); err != nil {
			return nil, err
		}
		if err := p.Decode(1, &amount); err != nil {
			return nil, err
		}
		return nil, dev.AddBalance(ctx, a, (*uint256.Int)(&amount))
	})
	// anvil_setTime and evm_setTime answer the seconds the clock moved
	// ahead.
	for _, name := range []string{"anvil_setTime", "evm_setTime"} {
		register(s, name, 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
			var ts devQuantity
			if err := p.Decode(0, &ts); err != nil {
				return nil, err
			}
			if ts > math.MaxInt64/2 {
				return nil, rpc.InvalidParams(0, fmt.Errorf("timestamp %d is too far", ts))
			}
			return dev.SetTime(uint64(ts)), nil
		})
	}
	register(s, "anvil_setBlockTimestampInterval", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var secs devQuantity
		if err := p.Decode(0, &secs); err != nil {
			return nil, err
		}
		if secs > math.MaxInt32 {
			return nil, rpc.InvalidParams(0, fmt.Errorf("interval %d is too long", secs))
		}
		dev.SetBlockTimestampInterval(uint64(secs))
		return nil, nil
	})
	register(s, "anvil_removeBlockTimestampInterval", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return dev.RemoveBlockTimestampInterval(), nil
	})
	// eth_pendingTransactions is anvil's: every transaction the pool
	// would put in the next blocks, in transaction-object form.
	register(s, "eth_pendingTransactions", 0, 0, func(context.Context, rpc.Params) (any, error) {
		pending, _ := b.PoolContent()
		senders := make([]types.Address, 0, len(pending))
		for from := range pending {
			senders = append(senders, from)
		}
		slices.SortFunc(senders, func(a, b types.Address) int { return bytes.Compare(a[:], b[:]) })
		out := []any{}
		for _, from := range senders {
			for _, tx := range pending[from] {
				out = append(out, txObject(tx, from))
			}
		}
		return out, nil
	})
	// eth_sendUnsignedTransaction sends from any address without its
	// key, as if it were impersonated (anvil).
	unsigned := &accountsAPI{b: b, keys: impersonateAll{}, eth: &ethAPI{b: b, opts: opts.withDefaults()}}
	register(s, "eth_sendUnsignedTransaction", 1, 1, unsigned.sendTransaction)
	register(s, "anvil_rollback", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		depth := devQuantity(1) // null: one block, as anvil
		if _, err := p.Optional(0, &depth); err != nil {
			return nil, err
		}
		if err := dev.Rollback(ctx, uint64(depth)); err != nil {
			return nil, rpc.InvalidParams(0, err)
		}
		return nil, nil
	})
	// A minimum gas price only applies without EIP-1559, which a chaind
	// chain always has: both answer as anvil (and Hardhat) do then.
	for _, name := range []string{"anvil_setMinGasPrice", "hardhat_setMinGasPrice"} {
		register(s, name, 1, 1, func(context.Context, rpc.Params) (any, error) {
			return nil, rpc.Errorf(-32602, "%s is not supported when EIP-1559 is active", name)
		})
	}
	registerDevNextBlock(s, h)
	registerDevERC20(s, h)
	register(s, "anvil_reorg", 1, 2, h.reorg)
	register(s, "anvil_setChainId", 1, 1, h.setChainID)
	register(s, "hardhat_metadata", 0, 0, h.metadata)
	register(s, "anvil_nodeInfo", 0, 0, h.nodeInfo)
}

type devAPI struct {
	b    Backend
	dev  backend.DevTools
	keys backend.Accounts // the node's keys, which sign anvil_reorg's requests
	opts EthOptions
}

// devQuantity is a number given as a hex quantity ("0x10"), a decimal
// string or a JSON number, as Hardhat and anvil both accept.
type devQuantity uint64

func (q *devQuantity) UnmarshalJSON(input []byte) error {
	if len(input) > 0 && input[0] != '"' {
		var f json.Number
		if err := json.Unmarshal(input, &f); err != nil {
			return errors.New("want a number or a hex quantity")
		}
		v, err := strconv.ParseUint(f.String(), 10, 64)
		if err != nil {
			return fmt.Errorf("not a non-negative integer below 2^64: %s", f)
		}
		*q = devQuantity(v)
		return nil
	}
	var str string
	if err := json.Unmarshal(input, &str); err != nil {
		return err
	}
	var v uint64
	var err error
	if strings.HasPrefix(str, "0x") || strings.HasPrefix(str, "0X") {
		v, err = strconv.ParseUint(str[2:], 16, 64)
	} else {
		v, err = strconv.ParseUint(str, 10, 64)
	}
	if err != nil || str == "0x" {
		return fmt.Errorf("not a quantity below 2^64: %q", str)
	}
	*q = devQuantity(v)
	return nil
}

func (h *devAPI) revert(opts backend.RevertOptions) rpc.Handler {
	return func(ctx context.Context, p rpc.Params) (any, error) {
		var id devQuantity
		if err := p.Decode(0, &id); err != nil {
			return nil, err
		}
		return h.dev.Revert(ctx, uint64(id), opts)
	}
}

// evmMine is evm_mine: one block, at the given timestamp if any ("0x0",
// as Hardhat answers).
func (h *devAPI) evmMine(ctx context.Context, p rpc.Params) (any, error) {
	var ts devQuantity
	given, err := p.Optional(0, &ts)
	if err != nil {
		// anvil also takes an object {timestamp, blocks}.
		var opts struct {
			Timestamp *devQuantity `json:"timestamp"`
			Blocks    *devQuantity `json:"blocks"`
		}
		if json.Unmarshal(p[0], &opts) != nil {
			return nil, err
		}
		n := uint64(1)
		if opts.Blocks != nil {
			n = uint64(*opts.Blocks)
		}
		var first uint64
		if opts.Timestamp != nil {
			first = uint64(*opts.Timestamp)
			if err := h.checkAfterHead(0, first); err != nil {
				return nil, err
			}
		}
		return "0x0", h.dev.Mine(ctx, n, first, 0)
	}
	if given {
		if err := h.checkAfterHead(0, uint64(ts)); err != nil {
			return nil, err
		}
	}
	return "0x0", h.dev.Mine(ctx, 1, uint64(ts), 0)
}

// maxMineBlocks bounds one mine call: each block is a real block.
const maxMineBlocks = 100_000

// mine is hardhat_mine / anvil_mine: blocks (default 1), each interval
// seconds after the one before (default defInterval; 0 the dev clock).
func (h *devAPI) mine(ctx context.Context, p rpc.Params, defInterval uint64) error {
	blocks, interval := devQuantity(1), devQuantity(defInterval)
	if _, err := p.Optional(0, &blocks); err != nil {
		return err
	}
	if _, err := p.Optional(1, &interval); err != nil {
		return err
	}
	if blocks > maxMineBlocks {
		return rpc.InvalidParams(0, fmt.Errorf("at most %d blocks per call", maxMineBlocks))
	}
	if blocks <= 1 || interval == 0 {
		return h.dev.Mine(ctx, uint64(blocks), 0, 0)
	}
	return h.dev.Mine(ctx, uint64(blocks), 0, uint64(interval))
}

func (h *devAPI) increaseTime(_ context.Context, p rpc.Params) (any, error) {
	var secs devQuantity
	if err := p.Decode(0, &secs); err != nil {
		return nil, err
	}
	if secs > math.MaxInt32*16 { // centuries; beyond that a timestamp overflows in contracts
		return nil, rpc.InvalidParams(0, fmt.Errorf("%d seconds is too far", secs))
	}
	return h.dev.IncreaseTime(uint64(secs)), nil
}

func (h *devAPI) setNextTimestamp(p rpc.Params) error {
	var ts devQuantity
	if err := p.Decode(0, &ts); err != nil {
		return err
	}
	return h.checkAfterHead(0, uint64(ts), h.dev.SetNextBlockTimestamp(uint64(ts)))
}

// checkAfterHead turns a timestamp not after the head's into an invalid
// argument arg; errs are earlier errors to report as they are.
func (h *devAPI) checkAfterHead(arg int, ts uint64, errs ...error) error {
	for _, err := range errs {
		if errors.Is(err, backend.ErrTimestampNotAfterHead) {
			return rpc.InvalidParams(arg, err)
		}
		if err != nil {
			return err
		}
	}
	if head := h.b.Head(); ts <= head.Time() {
		return rpc.InvalidParams(arg, fmt.Errorf("%w: %d is not after %d", backend.ErrTimestampNotAfterHead, ts, head.Time()))
	}
	return nil
}

func (h *devAPI) setAutomine(p rpc.Params) error {
	var on bool
	if err := p.Decode(0, &on); err != nil {
		return err
	}
	h.dev.SetAutomine(on)
	return nil
}

// setInterval takes one interval or, as Hardhat allows, a [min, max]
// range each block's interval is drawn from.
func (h *devAPI) setInterval(p rpc.Params, unit time.Duration) error {
	var lo, hi devQuantity
	var one devQuantity
	if err := p.Decode(0, &one); err == nil {
		lo, hi = one, one
	} else {
		var rng []devQuantity
		if json.Unmarshal(p[0], &rng) != nil || len(rng) != 2 || rng[0] == 0 || rng[0] > rng[1] {
			return rpc.InvalidParams(0, errors.New("want an interval or a [min, max] range with 0 < min <= max"))
		}
		lo, hi = rng[0], rng[1]
	}
	if uint64(hi) > math.MaxInt64/uint64(unit) {
		return rpc.InvalidParams(0, fmt.Errorf("interval %d is too long", hi))
	}
	h.dev.SetIntervalMining(time.Duration(lo)*unit, time.Duration(hi)*unit)
	return nil
}

func (h *devAPI) setBalance(ctx context.Context, p rpc.Params, a types.Address) error {
	var bal types.HexU256
	if err := p.Decode(1, &bal); err != nil {
		return err
	}
	return h.dev.SetBalance(ctx, a, (*uint256.Int)(&bal))
}

func (h *devAPI) setCode(ctx context.Context, p rpc.Params, a types.Address) error {
	var code types.HexBytes
	if err := p.Decode(1, &code); err != nil {
		return err
	}
	return h.dev.SetCode(ctx, a, code)
}

func (h *devAPI) setNonce(ctx context.Context, p rpc.Params, a types.Address) error {
	var nonce devQuantity
	if err := p.Decode(1, &nonce); err != nil {
		return err
	}
	return h.dev.SetNonce(ctx, a, uint64(nonce))
}

func (h *devAPI) setStorageAt(ctx context.Context, p rpc.Params, a types.Address) error {
	var slot types.HexU256
	if err := p.Decode(1, &slot); err != nil {
		return err
	}
	var value types.HexBytes
	if err := p.Decode(2, &value); err != nil {
		return err
	}
	if len(value) != 32 {
		return rpc.InvalidParams(2, fmt.Errorf("storage value must be 32 bytes, got %d", len(value)))
	}
	return h.dev.SetStorageAt(ctx, a, types.Hash((*uint256.Int)(&slot).Bytes32()), types.Hash(value))
}

// maxChainID is the largest chain ID anvil_setChainId takes: 2^53-1, the
// largest integer JavaScript clients read exactly, since hardhat_metadata
// and anvil_nodeInfo answer the ID as a JSON number (anvil takes any u64).
const maxChainID = 1<<53 - 1

// setChainID is anvil_setChainId: the blocks to come take the new ID, the
// blocks made keep theirs (null, as anvil answers).
func (h *devAPI) setChainID(ctx context.Context, p rpc.Params) (any, error) {
	var id devQuantity
	if err := p.Decode(0, &id); err != nil {
		return nil, err
	}
	switch {
	case id == 0:
		return nil, rpc.InvalidParams(0, errors.New("chain ID 0 is not a chain: EIP-155 signatures need a positive one"))
	case id > maxChainID:
		return nil, rpc.InvalidParams(0, fmt.Errorf("chain ID %d is above 2^53-1, the largest JavaScript clients read exactly", uint64(id)))
	}
	return nil, h.dev.SetChainID(ctx, uint64(id))
}

func (h *devAPI) metadata(context.Context, rpc.Params) (any, error) {
	m := h.dev.Metadata()
	return map[string]any{
		"clientVersion":     m.ClientVersion,
		"chainId":           m.ChainID,
		"instanceId":        m.InstanceID,
		"latestBlockNumber": m.LatestBlockNumber,
		"latestBlockHash":   m.LatestBlockHash,
		"forkedNetwork":     forkedNetwork(m.Forked),
	}, nil
}

func (h *devAPI) nodeInfo(context.Context, rpc.Params) (any, error) {
	m := h.dev.Metadata()
	head := h.b.Head()
	env := map[string]any{
		"chainId":  m.ChainID,
		"gasLimit": fmt.Sprint(head.GasLimit()),
	}
	if bf := head.BaseFee(); bf != nil {
		env["baseFee"] = bf.Dec()
	}
	mode := "none"
	if m.Automine {
		mode = "automine"
	}
	return map[string]any{
		"currentBlockNumber":    m.LatestBlockNumber,
		"currentBlockTimestamp": head.Time(),
		"currentBlockHash":      m.LatestBlockHash,
		"network":               nil,
		"miningMode":            mode,
		"environment":           env,
		"forkConfig":            map[string]any{},
	}, nil
}

// forkedNetwork is hardhat_metadata's forkedNetwork: null, or the chain
// this one forked and where.
func forkedNetwork(f *backend.DevFork) any {
	if f == nil {
		return nil
	}
	return map[string]any{"chainId": f.ChainID, "forkBlockNumber": f.BlockNumber, "forkBlockHash": f.BlockHash}
}

// impersonateAll holds no key and impersonates every address.
type impersonateAll struct{}

func (impersonateAll) Accounts() []types.Address { return nil }
func (impersonateAll) SignHash(types.Address, types.Hash) ([]byte, error) {
	return nil, backend.ErrUnknownAccount
}
func (impersonateAll) Impersonating(types.Address) bool { return true }
