package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// traceConfig is the options object of the debug_trace* methods.
type traceConfig struct {
	Tracer           string `json:"tracer"`
	DisableStack     bool   `json:"disableStack"`
	DisableStorage   bool   `json:"disableStorage"`
	EnableMemory     bool   `json:"enableMemory"`
	EnableReturnData bool   `json:"enableReturnData"`
	// DisableMemory is the option of go-ethereum before 1.11, when memory
	// was captured unless disabled; memory is now off unless enableMemory
	// asks, and disableMemory can only keep it off.
	DisableMemory bool            `json:"disableMemory"`
	Limit         int             `json:"limit"`
	TracerConfig  json.RawMessage `json:"tracerConfig"`
	Timeout       string          `json:"timeout"`
}

// traceCallConfig is the options object of debug_traceCall: a trace
// config with the call's state and block overrides.
type traceCallConfig struct {
	traceConfig
	StateOverrides map[types.Address]StateOverride `json:"stateOverrides"`
	BlockOverrides *BlockOverrides                 `json:"blockOverrides"`
}

func (c *traceConfig) toBackend(timeout time.Duration) *backend.TraceConfig {
	return &backend.TraceConfig{
		Tracer: c.Tracer, DisableStack: c.DisableStack, DisableStorage: c.DisableStorage,
		EnableMemory: c.EnableMemory && !c.DisableMemory, EnableReturnData: c.EnableReturnData,
		Limit: c.Limit, TracerConfig: c.TracerConfig, Timeout: timeout,
	}
}

// decodeTraceConfig reads the options object at position i, with its
// timeout (a Go duration, as go-ethereum reads it).
func decodeTraceConfig(p rpc.Params, i int) (*backend.TraceConfig, error) {
	cfg := &traceConfig{}
	if _, err := p.Optional(i, cfg); err != nil {
		return nil, err
	}
	return cfg.check(i)
}

// check validates the options read at position i.
func (cfg *traceConfig) check(i int) (*backend.TraceConfig, error) {
	if cfg.Limit < 0 {
		return nil, rpc.InvalidParams(i, fmt.Errorf("limit %d is negative", cfg.Limit))
	}
	var timeout time.Duration
	if cfg.Timeout != "" {
		var err error
		if timeout, err = time.ParseDuration(cfg.Timeout); err != nil {
			return nil, rpc.InvalidParams(i, fmt.Errorf("timeout: %w", err))
		}
		if timeout <= 0 {
			return nil, rpc.InvalidParams(i, fmt.Errorf("timeout %s is not positive", cfg.Timeout))
		}
	}
	return cfg.toBackend(timeout), nil
}

// traceBlock traces every transaction of blk, each as {txHash, result}.
func (api *ethAPI) traceBlock(ctx context.Context, blk *types.Block, cfg *backend.TraceConfig) (any, error) {
	traces, err := api.b.TraceBlock(ctx, blk, cfg)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(traces))
	for i, t := range traces {
		out[i] = map[string]any{"txHash": t.TxHash, "result": t.Result}
	}
	return out, nil
}

func (api *ethAPI) traceTransaction(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	cfg, err := decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	bh, idx, ok := api.b.TxLookup(h)
	if !ok {
		return nil, errors.New("transaction not found")
	}
	blk, err := api.b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	return api.b.TraceTransaction(ctx, blk, idx, cfg)
}

func (api *ethAPI) traceBlockByNumber(ctx context.Context, p rpc.Params) (any, error) {
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, err
	}
	cfg, err := decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	blk, err := resolve(api.b, ref)
	if err != nil {
		return nil, err
	}
	if blk == nil {
		return nil, fmt.Errorf("block #%d not found", ref.Number)
	}
	return api.traceBlock(ctx, blk, cfg)
}

func (api *ethAPI) traceBlockByHash(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	cfg, err := decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	blk, err := orNil(api.b.BlockByHash(h))
	if err != nil {
		return nil, err
	}
	if blk == nil {
		return nil, fmt.Errorf("block %s not found", h)
	}
	return api.traceBlock(ctx, blk, cfg)
}

// traceBlockRLP traces a block given whole, as RLP, on its parent's
// state (debug_traceBlock).
func (api *ethAPI) traceBlockRLP(ctx context.Context, p rpc.Params) (any, error) {
	var enc types.HexBytes
	if err := p.Decode(0, &enc); err != nil {
		return nil, err
	}
	blk, err := types.DecodeBlock(enc)
	if err != nil {
		return nil, rpc.InvalidParams(0, fmt.Errorf("could not decode block: %w", err))
	}
	cfg, err := decodeTraceConfig(p, 1)
	if err != nil {
		return nil, err
	}
	return api.traceBlock(ctx, blk, cfg)
}

// traceCall runs a call on a block's state and traces it
// (debug_traceCall: [call, block, config with overrides]).
func (api *ethAPI) traceCall(ctx context.Context, p rpc.Params) (any, error) {
	var args CallArgs
	if err := p.Decode(0, &args); err != nil {
		return nil, err
	}
	ref, err := blockRef(p, 1)
	if err != nil {
		return nil, err
	}
	tc := &traceCallConfig{}
	if _, err := p.Optional(2, tc); err != nil {
		return nil, err
	}
	cfg, err := tc.check(2)
	if err != nil {
		return nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	req := &backend.CallRequest{Block: blk, Args: args.toBackend(),
		StateOverrides: stateOverrides(tc.StateOverrides), BlockOverrides: tc.BlockOverrides.toBackend()}
	return api.b.TraceCall(ctx, req, cfg)
}

// storageRangeMax bounds the slots one debug_storageRangeAt answers.
const storageRangeMax = 1024

// storageRangeAt is debug_storageRangeAt: [blockHash, txIndex, address,
// startKey, maxResult], the storage as the transaction at txIndex finds
// it, keyed by the hash of each slot's key (the preimage is unknown:
// null, as go-ethereum answers without preimages).
func (api *ethAPI) storageRangeAt(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	var index int
	if err := p.Decode(1, &index); err != nil {
		return nil, err
	}
	var addr types.Address
	if err := p.Decode(2, &addr); err != nil {
		return nil, err
	}
	var start types.HexBytes
	if err := p.Decode(3, &start); err != nil {
		return nil, err
	}
	if len(start) > 32 {
		return nil, rpc.InvalidParams(3, fmt.Errorf("start key of %d bytes", len(start)))
	}
	var max int
	if err := p.Decode(4, &max); err != nil {
		return nil, err
	}
	if max < 0 || max > storageRangeMax {
		return nil, rpc.InvalidParams(4, fmt.Errorf("maxResult %d out of 0..%d", max, storageRangeMax))
	}
	blk, err := orNil(api.b.BlockByHash(h))
	if err != nil {
		return nil, err
	}
	if blk == nil {
		return nil, fmt.Errorf("block %s not found", h)
	}
	r, err := api.b.StorageRangeAt(ctx, blk, index, addr, types.BytesToHash(start), max)
	if err != nil {
		return nil, err
	}
	type entry struct {
		Key   *types.Hash `json:"key"`
		Value types.Hash  `json:"value"`
	}
	storage := make(map[types.Hash]entry, len(r.Slots))
	for _, sl := range r.Slots {
		storage[sl.KeyHash] = entry{Value: sl.Value}
	}
	return map[string]any{"storage": storage, "nextKey": r.Next}, nil
}
