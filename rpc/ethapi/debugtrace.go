package ethapi

import (
	"context"
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
	DisableMemory bool `json:"disableMemory"`
	Limit         int  `json:"limit"`
	TracerConfig  struct {
		OnlyTopCall bool `json:"onlyTopCall"`
		WithLog     bool `json:"withLog"`
	} `json:"tracerConfig"`
	Timeout string `json:"timeout"`
}

func (c *traceConfig) toBackend(timeout time.Duration) *backend.TraceConfig {
	return &backend.TraceConfig{
		Tracer: c.Tracer, DisableStack: c.DisableStack, DisableStorage: c.DisableStorage,
		EnableMemory: c.EnableMemory && !c.DisableMemory, EnableReturnData: c.EnableReturnData,
		Limit:       c.Limit,
		OnlyTopCall: c.TracerConfig.OnlyTopCall, WithLog: c.TracerConfig.WithLog,
		Timeout: timeout,
	}
}

// decodeTraceConfig reads the options object at position i, with its
// timeout (a Go duration, as go-ethereum reads it).
func decodeTraceConfig(p rpc.Params, i int) (*backend.TraceConfig, error) {
	cfg := &traceConfig{}
	if _, err := p.Optional(i, cfg); err != nil {
		return nil, err
	}
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
