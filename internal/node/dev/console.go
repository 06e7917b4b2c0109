package dev

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/chaind/chaind/evm/tracers"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

// Console logs, at info level, one line per transaction of every new
// block (hash, sender, recipient or created contract, gas used, status and
// the decoded revert reason of a failed one), before it the lines the
// transaction printed with console.log, and one line per block, as a
// developer watching a dev node expects.
type Console struct {
	Chain   *chain.Chain
	log     *slog.Logger
	backend Tracer
	// Enabled, when set, says whether to log at all
	// (hardhat_setLoggingEnabled); nil: always.
	Enabled func() bool
}

// Tracer replays a block's transactions (the console asks the call tracer
// why one failed, and the console tracer what each printed).
type Tracer interface {
	TraceBlock(ctx context.Context, blk *types.Block, cfg *backend.TraceConfig) ([]backend.TxTrace, error)
	TraceTransaction(ctx context.Context, blk *types.Block, index int, cfg *backend.TraceConfig) (json.RawMessage, error)
}

// NewConsole returns a console of c's blocks writing to log.
func NewConsole(c *chain.Chain, log *slog.Logger, t Tracer) *Console {
	return &Console{Chain: c, log: log, backend: t}
}

// Start follows the chain's new blocks from the head on, on a goroutine
// of its own, until stop is closed; then it calls done.
func (n *Console) Start(stop <-chan struct{}, done func()) {
	heads, cancel := n.Chain.Subscribe(256)
	last := n.Chain.Head().Number()
	go func() {
		defer done()
		defer cancel()
		for {
			select {
			case <-stop:
				return
			case b, ok := <-heads:
				if !ok {
					return
				}
				// A subscriber that fell behind misses heads: fill the gap
				// from the chain by number.
				for num := last + 1; num < b.Number(); num++ {
					if gap, err := n.Chain.BlockByNumber(num); err == nil {
						n.logBlock(gap)
					}
				}
				n.logBlock(b)
				last = b.Number()
			}
		}
	}()
}

// logBlock writes a block's transaction lines, then its own line.
func (n *Console) logBlock(b *types.Block) {
	if !n.log.Enabled(context.Background(), slog.LevelInfo) || (n.Enabled != nil && !n.Enabled()) {
		return
	}
	printed := n.consoleLines(b)
	receipts, err := n.Chain.DB().Receipts(b.Hash())
	if err != nil {
		n.log.Warn("block receipts", "number", b.Number(), "err", err)
		receipts = nil
	}
	signer := n.Chain.Config.Signer(b.Number(), b.Time())
	var prevCum uint64
	for i, tx := range b.Transactions() {
		if i < len(printed) {
			n.PrintConsole(tx.Hash(), printed[i])
		}
		attrs := []any{"hash", tx.Hash().Hex()}
		from, err := signer.Sender(tx)
		if err == nil {
			attrs = append(attrs, "from", from.Hex())
		}
		var r *types.Receipt
		if i < len(receipts) {
			r = receipts[i]
		}
		if to := tx.To(); to != nil {
			attrs = append(attrs, "to", to.Hex())
		} else if err == nil {
			// A failed creation leaves no contract: name the address it
			// would have had under another key.
			key := "created"
			if r == nil || r.Status != types.ReceiptStatusSuccessful {
				key = "create"
			}
			attrs = append(attrs, key, types.CreateAddress(from, tx.Nonce()).Hex())
		}
		if r != nil {
			attrs = append(attrs, "gas", r.CumulativeGasUsed-prevCum)
			prevCum = r.CumulativeGasUsed
			if r.Status == types.ReceiptStatusSuccessful {
				attrs = append(attrs, "status", "success")
			} else {
				attrs = append(attrs, "status", "failed")
				attrs = append(attrs, n.failure(b, i)...)
			}
		}
		n.log.Info("transaction", attrs...)
	}
	h := b.Hash().Hex()
	n.log.Info("block", "number", b.Number(), "hash", h[:10]+"…", "txs", len(b.Transactions()), "gas", b.GasUsed())
}

// consoleLines replays b with the console tracer for what each of its
// transactions printed with console.log. Blocks are built and imported by
// the chain's one executor, which runs no tracer; the replay sees exactly
// what that execution did, on the block's parent state, and changes
// nothing. nil when b has no transactions or cannot be replayed.
func (n *Console) consoleLines(b *types.Block) [][]string {
	if len(b.Transactions()) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	traces, err := n.backend.TraceBlock(ctx, b, &backend.TraceConfig{Tracer: tracers.ConsoleTracerName})
	if err != nil {
		n.log.Warn("console.log replay", "number", b.Number(), "err", err)
		return nil
	}
	out := make([][]string, len(traces))
	for i, tr := range traces {
		if json.Unmarshal(tr.Result, &out[i]) != nil {
			out[i] = nil
		}
	}
	return out
}

// PrintConsole logs lines printed with console.log, one log line each,
// by the transaction tx (zero: an eth_call or eth_estimateGas).
func (n *Console) PrintConsole(tx types.Hash, lines []string) {
	if n.Enabled != nil && !n.Enabled() {
		return
	}
	for _, l := range lines {
		if tx == (types.Hash{}) {
			n.log.Info("console.log", "text", l, "call", true)
		} else {
			n.log.Info("console.log", "text", l, "tx", tx.Hex())
		}
	}
}

// failure replays a failed transaction for why it failed: its decoded
// revert reason (Error(string) or Panic(uint256)) and the EVM's error.
func (n *Console) failure(b *types.Block, i int) []any {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := n.backend.TraceTransaction(ctx, b, i, &backend.TraceConfig{Tracer: "callTracer", TracerConfig: json.RawMessage(`{"onlyTopCall":true}`)})
	if err != nil {
		return []any{"replay", err.Error()}
	}
	var frame struct {
		Error        string `json:"error"`
		RevertReason string `json:"revertReason"`
	}
	if json.Unmarshal(res, &frame) != nil {
		return nil
	}
	out := []any{"error", frame.Error}
	if frame.RevertReason != "" {
		out = append(out, "reason", frame.RevertReason)
	}
	return out
}
