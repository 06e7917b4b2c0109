package fork

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// Chain is what forwarding reads of the local chain.
type Chain interface {
	Genesis() *types.Block
	Head() *types.Block
}

// Forward makes the JSON-RPC methods of s that name a block before the
// local genesis ask the fork's upstream (upstream() at the time of the
// call; nil: no fork, every call is answered locally): by number
// (preFork), by hash, and the upstream's part of eth_getLogs ranges. The
// methods must be registered first.
func Forward(s *rpc.Server, c Chain, upstream func() *Client) {
	(&forwarder{RPC: s, Chain: c, up: upstream}).forwardOldBlocks()
}

// forwarder wraps a server's methods.
type forwarder struct {
	RPC   *rpc.Server
	Chain Chain
	up    func() *Client
}

// Upstream is the fork's upstream now (nil: none).
func (n *forwarder) Upstream() *Client { return n.up() }

// preFork lists the methods that name a block, and where: a block before
// the local genesis is an upstream block, which the upstream answers as it
// has it. The genesis itself is local, also when it is the upstream's fork
// block: the backend gives it the upstream's body, and its state is the
// upstream's with the local allocations, as anvil's fork block's is.
var preFork = []struct {
	method string
	param  int
}{
	{"eth_getBlockByNumber", 0},
	{"eth_getHeaderByNumber", 0},
	{"eth_getBlockReceipts", 0},
	{"eth_getBlockTransactionCountByNumber", 0},
	{"eth_getTransactionByBlockNumberAndIndex", 0},
	{"eth_getUncleCountByBlockNumber", 0},
	{"eth_getUncleByBlockNumberAndIndex", 0},
	{"eth_getBalance", 1},
	{"eth_getTransactionCount", 1},
	{"eth_getCode", 1},
	{"eth_getStorageAt", 2},
	{"eth_getProof", 2},
	{"eth_call", 1},
	{"eth_estimateGas", 1},
	{"eth_createAccessList", 1},
}

// forwardOldBlocks sends calls about blocks before the local genesis to the
// upstream: by number (preFork), by hash, and the upstream's part of
// eth_getLogs ranges.
func (n *forwarder) forwardOldBlocks() {
	n.forwardOldBlocksByHash()
	n.forwardOldLogs()
	for _, m := range preFork {
		local, minP, maxP, ok := n.RPC.Lookup(m.method)
		if !ok {
			continue
		}
		name, pos := m.method, m.param
		n.RPC.Register(name, minP, maxP, func(ctx context.Context, p rpc.Params) (any, error) {
			up := n.Upstream()
			if up == nil || p.Len() <= pos {
				return local(ctx, p)
			}
			num, ok := blockParam(p[pos])
			if !ok || num >= n.Chain.Genesis().Number() {
				return local(ctx, p) // a hash or tag, or a local block
			}
			params, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			return up.Forward(ctx, name, params)
		})
	}
}

// byHash lists the methods that look a block or transaction up by hash,
// and the field of the answer that holds its block number.
var byHash = []struct{ method, numberField string }{
	{"eth_getBlockByHash", "number"},
	{"eth_getTransactionByHash", "blockNumber"},
	{"eth_getTransactionReceipt", "blockNumber"},
}

// forwardOldBlocksByHash asks the upstream for blocks and transactions the
// local chain does not know, and answers with what it has up to the fork
// point (later blocks are not this chain's).
func (n *forwarder) forwardOldBlocksByHash() {
	for _, m := range byHash {
		local, minP, maxP, ok := n.RPC.Lookup(m.method)
		if !ok {
			continue
		}
		name, field := m.method, m.numberField
		n.RPC.Register(name, minP, maxP, func(ctx context.Context, p rpc.Params) (any, error) {
			res, err := local(ctx, p)
			up := n.Upstream()
			if err != nil || up == nil {
				return res, err
			}
			if enc, merr := json.Marshal(res); merr != nil || string(enc) != "null" {
				return res, nil
			}
			params, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			raw, err := up.Forward(ctx, name, params)
			if err != nil {
				return nil, err
			}
			var fields map[string]json.RawMessage
			if json.Unmarshal(raw, &fields) != nil {
				return res, nil
			}
			num, ok := blockParam(fields[field])
			if !ok || num > up.Block.Number {
				return res, nil
			}
			return raw, nil
		})
	}
}

// forwardOldLogs splits eth_getLogs at the fork point: logs of upstream
// blocks come from the upstream, the rest from the local chain.
func (n *forwarder) forwardOldLogs() {
	const name = "eth_getLogs"
	local, minP, maxP, ok := n.RPC.Lookup(name)
	if !ok {
		return
	}
	n.RPC.Register(name, minP, maxP, func(ctx context.Context, p rpc.Params) (any, error) {
		up := n.Upstream()
		var q map[string]json.RawMessage
		if up == nil || p.Len() == 0 || json.Unmarshal(p[0], &q) != nil || q["blockHash"] != nil {
			return local(ctx, p)
		}
		first := n.Chain.Genesis().Number()
		from, fromNum := blockParam(q["fromBlock"])
		if !fromNum || from >= first {
			return local(ctx, p) // no upstream-only block in the range
		}
		fork := first - 1 // the last block only the upstream has
		to, toNum := blockParam(q["toBlock"])
		if toNum && to < from {
			return local(ctx, p) // the local rules answer a reversed range
		}
		upTo := fork
		if toNum {
			upTo = min(to, fork)
		}
		uq := maps.Clone(q)
		uq["fromBlock"], _ = json.Marshal(hexNum(from))
		uq["toBlock"], _ = json.Marshal(hexNum(upTo))
		uparams, err := json.Marshal([]any{uq})
		if err != nil {
			return nil, err
		}
		upLogs, err := up.Forward(ctx, name, uparams)
		if err != nil {
			return nil, err
		}
		if toNum && to <= fork || !toNum && n.Chain.Head().Number() <= fork {
			return upLogs, nil // no local block in the range
		}
		lq := maps.Clone(q)
		lq["fromBlock"], _ = json.Marshal(hexNum(fork + 1))
		lp, err := json.Marshal(lq)
		if err != nil {
			return nil, err
		}
		res, err := local(ctx, rpc.Params{lp})
		if err != nil {
			return nil, err
		}
		var a, b []json.RawMessage
		if err := json.Unmarshal(upLogs, &a); err != nil {
			return nil, fmt.Errorf("fork upstream eth_getLogs: %w", err)
		}
		enc, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(enc, &b); err != nil {
			return nil, err
		}
		return append(a, b...), nil
	})
}

// blockParam reads a block parameter as a number: "earliest" is 0; a tag
// such as "latest" (or none) is not a number.
func blockParam(raw json.RawMessage) (uint64, bool) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	if s == "earliest" {
		return 0, true
	}
	if !strings.HasPrefix(s, "0x") {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	return v, err == nil
}
