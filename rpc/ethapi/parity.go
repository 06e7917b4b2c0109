package ethapi

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// RegisterTrace installs the parity-style trace_ methods (in Erigon's,
// Nethermind's and anvil's shapes), served by replaying transactions with
// the parity tracer.
func RegisterTrace(s *rpc.Server, b Backend, opts EthOptions) {
	api := &ethAPI{b: b, opts: opts.withDefaults()}
	register(s, "trace_transaction", 1, 1, api.traceTransactionParity)
	register(s, "trace_get", 2, 2, api.traceGet)
	register(s, "trace_block", 1, 1, api.traceBlockParity)
	register(s, "trace_filter", 1, 1, api.traceFilter)
	register(s, "trace_replayTransaction", 2, 2, api.replayTransaction)
	register(s, "trace_replayBlockTransactions", 2, 2, api.replayBlockTransactions)
	register(s, "trace_call", 2, 3, api.traceCallParity)
	register(s, "trace_callMany", 1, 2, api.traceCallMany)
}

// parityConfig is the parity tracer's configuration for traceTypes (a
// replay) or for located traces.
func parityConfig(types []string, located bool) (*backend.TraceConfig, error) {
	c := map[string]bool{"located": located}
	for _, t := range types {
		switch t {
		case "trace", "stateDiff", "vmTrace":
			c[t] = true
		default:
			return nil, fmt.Errorf("unknown trace type %q (trace, stateDiff, vmTrace)", t)
		}
	}
	raw, _ := json.Marshal(c)
	return &backend.TraceConfig{Tracer: "parityTracer", TracerConfig: raw}, nil
}

// parityTrace is one located trace as the filters read it.
type parityTrace struct {
	Action struct {
		From *types.Address `json:"from"`
		To   *types.Address `json:"to"`
	} `json:"action"`
	Result *struct {
		Address *types.Address `json:"address"`
	} `json:"result"`
	TraceAddress []int `json:"traceAddress"`
}

func (api *ethAPI) txTraces(ctx context.Context, h types.Hash) (json.RawMessage, error) {
	bh, idx, ok := api.b.TxLookup(h)
	if !ok {
		return nil, nil
	}
	blk, err := api.b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	cfg, _ := parityConfig(nil, true)
	return api.b.TraceTransaction(ctx, blk, idx, cfg)
}

func (api *ethAPI) traceTransactionParity(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	raw, err := api.txTraces(ctx, h)
	if raw == nil || err != nil {
		return nil, err
	}
	return raw, nil
}

// traceGet is the trace of transaction h at the given trace address.
func (api *ethAPI) traceGet(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	var path []Quantity
	if err := p.Decode(1, &path); err != nil {
		return nil, err
	}
	raw, err := api.txTraces(ctx, h)
	if raw == nil || err != nil {
		return nil, err
	}
	var traces []json.RawMessage
	if err := json.Unmarshal(raw, &traces); err != nil {
		return nil, err
	}
	want := make([]int, len(path))
	for i, q := range path {
		want[i] = int(q)
	}
	for _, t := range traces {
		var pt parityTrace
		if err := json.Unmarshal(t, &pt); err != nil {
			return nil, err
		}
		if slices.Equal(pt.TraceAddress, want) {
			return t, nil
		}
	}
	return nil, nil
}

// blockTraces are the located traces of every transaction of blk.
func (api *ethAPI) blockTraces(ctx context.Context, blk *types.Block) ([]json.RawMessage, error) {
	cfg, _ := parityConfig(nil, true)
	txs, err := api.b.TraceBlock(ctx, blk, cfg)
	if err != nil {
		return nil, err
	}
	out := []json.RawMessage{}
	for _, tx := range txs {
		var traces []json.RawMessage
		if err := json.Unmarshal(tx.Result, &traces); err != nil {
			return nil, err
		}
		out = append(out, traces...)
	}
	return out, nil
}

func (api *ethAPI) traceBlockParity(ctx context.Context, p rpc.Params) (any, error) {
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, err
	}
	blk, err := resolve(api.b, ref)
	if err != nil || blk == nil {
		return nil, err
	}
	if blk.Number() == 0 {
		return []json.RawMessage{}, nil
	}
	return api.blockTraces(ctx, blk)
}

// traceFilterArgs is trace_filter's filter: a block range, senders and
// recipients (any matching when empty), and a page (after, count).
type traceFilterArgs struct {
	FromBlock   *BlockRef       `json:"fromBlock"`
	ToBlock     *BlockRef       `json:"toBlock"`
	FromAddress []types.Address `json:"fromAddress"`
	ToAddress   []types.Address `json:"toAddress"`
	After       *uint64         `json:"after"`
	Count       *uint64         `json:"count"`
}

// traceFilter pages the traces of a block range that match the filter.
// The range is held to the node's eth_getLogs block range.
func (api *ethAPI) traceFilter(ctx context.Context, p rpc.Params) (any, error) {
	var f traceFilterArgs
	if err := p.Decode(0, &f); err != nil {
		return nil, err
	}
	from, to := uint64(0), api.b.Head().Number()
	for i, r := range []*BlockRef{f.FromBlock, f.ToBlock} {
		if r == nil {
			continue
		}
		blk, err := resolve(api.b, *r)
		if err != nil {
			return nil, err
		}
		if blk == nil {
			return nil, rpc.InvalidParams(0, fmt.Errorf("block %v not found", r))
		}
		if i == 0 {
			from = blk.Number()
		} else {
			to = blk.Number()
		}
	}
	if from > to {
		return nil, rpc.InvalidParams(0, fmt.Errorf("fromBlock %d after toBlock %d", from, to))
	}
	if limit := uint64(api.opts.LogRange); limit > 0 && to-from+1 > limit {
		return nil, rpc.InvalidParams(0, fmt.Errorf("block range %d over the node's limit of %d", to-from+1, limit))
	}
	var after, count uint64 = 0, ^uint64(0)
	if f.After != nil {
		after = *f.After
	}
	if f.Count != nil {
		count = *f.Count
	}
	out := []json.RawMessage{}
	var seen uint64
	for n := max(from, 1); n <= to && uint64(len(out)) < count; n++ {
		blk, err := api.b.BlockByNumber(n)
		if err != nil {
			return nil, err
		}
		if len(blk.Transactions()) == 0 {
			continue
		}
		traces, err := api.blockTraces(ctx, blk)
		if err != nil {
			return nil, err
		}
		for _, t := range traces {
			var pt parityTrace
			if err := json.Unmarshal(t, &pt); err != nil {
				return nil, err
			}
			if !matchAddr(f.FromAddress, pt.Action.From) {
				continue
			}
			target := pt.Action.To
			if target == nil && pt.Result != nil {
				target = pt.Result.Address // a creation's new contract
			}
			if !matchAddr(f.ToAddress, target) {
				continue
			}
			if seen++; seen <= after {
				continue
			}
			if uint64(len(out)) < count {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

func matchAddr(set []types.Address, a *types.Address) bool {
	return len(set) == 0 || a != nil && slices.Contains(set, *a)
}

func decodeTraceTypes(p rpc.Params, i int) ([]string, error) {
	var ts []string
	if err := p.Decode(i, &ts); err != nil {
		return nil, err
	}
	return ts, nil
}

func (api *ethAPI) replayTransaction(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	ts, err := decodeTraceTypes(p, 1)
	if err != nil {
		return nil, err
	}
	cfg, err := parityConfig(ts, false)
	if err != nil {
		return nil, rpc.InvalidParams(1, err)
	}
	bh, idx, ok := api.b.TxLookup(h)
	if !ok {
		return nil, fmt.Errorf("transaction %s not found", h)
	}
	blk, err := api.b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	return api.b.TraceTransaction(ctx, blk, idx, cfg)
}

func (api *ethAPI) replayBlockTransactions(ctx context.Context, p rpc.Params) (any, error) {
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, err
	}
	ts, err := decodeTraceTypes(p, 1)
	if err != nil {
		return nil, err
	}
	cfg, err := parityConfig(ts, false)
	if err != nil {
		return nil, rpc.InvalidParams(1, err)
	}
	blk, err := resolve(api.b, ref)
	if err != nil || blk == nil {
		return nil, err
	}
	if blk.Number() == 0 {
		return []any{}, nil
	}
	txs, err := api.b.TraceBlock(ctx, blk, cfg)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(txs))
	for i, tx := range txs {
		var m map[string]any
		if err := json.Unmarshal(tx.Result, &m); err != nil {
			return nil, err
		}
		m["transactionHash"] = tx.TxHash
		out[i] = m
	}
	return out, nil
}

// traceCallParity is trace_call: [call, traceTypes, block?].
func (api *ethAPI) traceCallParity(ctx context.Context, p rpc.Params) (any, error) {
	var args CallArgs
	if err := p.Decode(0, &args); err != nil {
		return nil, err
	}
	ts, err := decodeTraceTypes(p, 1)
	if err != nil {
		return nil, err
	}
	cfg, err := parityConfig(ts, false)
	if err != nil {
		return nil, rpc.InvalidParams(1, err)
	}
	ref, err := blockRef(p, 2)
	if err != nil {
		return nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	return api.b.TraceCall(ctx, &backend.CallRequest{Block: blk, Args: args.toBackend()}, cfg)
}

// traceCallMany is trace_callMany: [[[call, traceTypes], ...], block?],
// each call on the state the ones before it left.
func (api *ethAPI) traceCallMany(ctx context.Context, p rpc.Params) (any, error) {
	var raw [][2]json.RawMessage
	if err := p.Decode(0, &raw); err != nil {
		return nil, err
	}
	if len(raw) > otsMaxPage {
		return nil, rpc.InvalidParams(0, fmt.Errorf("%d calls, over the node's limit of %d", len(raw), otsMaxPage))
	}
	calls := make([]backend.CallArgs, len(raw))
	cfgs := make([]*backend.TraceConfig, len(raw))
	for i, pair := range raw {
		var args CallArgs
		if err := json.Unmarshal(pair[0], &args); err != nil {
			return nil, rpc.InvalidParams(0, fmt.Errorf("call %d: %w", i, err))
		}
		var ts []string
		if err := json.Unmarshal(pair[1], &ts); err != nil {
			return nil, rpc.InvalidParams(0, fmt.Errorf("call %d trace types: %w", i, err))
		}
		cfg, err := parityConfig(ts, false)
		if err != nil {
			return nil, rpc.InvalidParams(0, fmt.Errorf("call %d: %w", i, err))
		}
		calls[i], cfgs[i] = args.toBackend(), cfg
	}
	ref, err := blockRef(p, 1)
	if err != nil {
		return nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	return api.b.TraceCallMany(ctx, blk, calls, cfgs)
}
