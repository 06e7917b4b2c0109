package dev

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// RequestLog logs every JSON-RPC call a development node serves, as `npx
// hardhat node` prints them: the method, and for a transaction sent its
// hash, sender, recipient (or the contract it created), gas used of its
// limit and block; for eth_call and eth_estimateGas the sender and
// recipient; for a failed call the error. A method called again and again
// in a row (a client polling eth_blockNumber) is logged once at info and
// its repeats at debug, where Hardhat counts them on one line. It is the
// console's, so hardhat_/anvil_setLoggingEnabled switches it with the
// rest; it is an rpc.Observer (rpc.Server.Observe).
type RequestLog struct {
	console *Console

	mu   sync.Mutex
	last string // the method of the call logged last
}

// Requests returns the console's request log.
func (n *Console) Requests() *RequestLog { return &RequestLog{console: n} }

// sendMethods answer the hash of the transaction they sent.
var sendMethods = map[string]bool{
	"eth_sendTransaction": true, "eth_sendRawTransaction": true, "eth_sendUnsignedTransaction": true,
}

// Observe implements rpc.Observer.
func (r *RequestLog) Observe(ctx context.Context, c rpc.Call) {
	n := r.console
	if !n.log.Enabled(ctx, slog.LevelInfo) || (n.Enabled != nil && !n.Enabled()) {
		return
	}
	r.mu.Lock()
	repeat := c.Method == r.last && c.Err == nil && !sendMethods[c.Method]
	r.last = c.Method
	r.mu.Unlock()
	attrs := []any{"method", c.Method}
	if c.Err != nil {
		attrs = append(attrs, "err", c.Err.Error())
	}
	switch {
	case repeat:
		n.log.Debug("rpc", append(attrs, "repeat", true)...)
		return
	case c.Err == nil && sendMethods[c.Method]:
		if h, ok := c.Result.(types.Hash); ok {
			attrs = append(attrs, r.sent(h)...)
		}
	case c.Method == "eth_call" || c.Method == "eth_estimateGas":
		var args []struct {
			From *types.Address `json:"from"`
			To   *types.Address `json:"to"`
		}
		if json.Unmarshal(c.Params, &args) == nil && len(args) > 0 {
			if a := args[0].From; a != nil {
				attrs = append(attrs, "from", a.Hex())
			}
			if a := args[0].To; a != nil {
				attrs = append(attrs, "to", a.Hex())
			}
		}
	}
	n.log.Info("rpc", attrs...)
}

// sent describes a sent transaction: what the pool or the chain knows of
// it (with automine it is in a block by the time the call answers).
func (r *RequestLog) sent(h types.Hash) []any {
	c := r.console.Chain
	attrs := []any{"tx", h.Hex()}
	blockHash, i, ok := c.DB().TxLookup(h)
	if !ok {
		return append(attrs, "block", "pending")
	}
	b, err := c.DB().Block(blockHash)
	if err != nil || i >= len(b.Transactions()) {
		return attrs
	}
	tx := b.Transactions()[i]
	if from, err := c.Config.Signer(b.Number(), b.Time()).Sender(tx); err == nil {
		attrs = append(attrs, "from", from.Hex())
		if to := tx.To(); to != nil {
			attrs = append(attrs, "to", to.Hex())
		} else {
			attrs = append(attrs, "contract", types.CreateAddress(from, tx.Nonce()).Hex())
		}
	}
	if rs, err := c.DB().Receipts(blockHash); err == nil && i < len(rs) {
		used := rs[i].CumulativeGasUsed
		if i > 0 {
			used -= rs[i-1].CumulativeGasUsed
		}
		attrs = append(attrs, "gasUsed", used, "gasLimit", tx.Gas())
	}
	return append(attrs, "block", b.Number())
}
