package ethapi

import (
	"context"
	"fmt"
	"strconv"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// registerTxPool installs the txpool_ methods in go-ethereum's shapes.
func registerTxPool(s *rpc.Server, r backend.TxPool) {
	register(s, "txpool_status", 0, 0, func(context.Context, rpc.Params) (any, error) {
		pending, queued := r.PoolContent()
		return map[string]types.HexUint64{"pending": types.HexUint64(count(pending)), "queued": types.HexUint64(count(queued))}, nil
	})
	register(s, "txpool_content", 0, 0, func(context.Context, rpc.Params) (any, error) {
		pending, queued := r.PoolContent()
		return map[string]any{"pending": bySender(pending, txObject), "queued": bySender(queued, txObject)}, nil
	})
	register(s, "txpool_inspect", 0, 0, func(context.Context, rpc.Params) (any, error) {
		pending, queued := r.PoolContent()
		return map[string]any{"pending": bySender(pending, txSummary), "queued": bySender(queued, txSummary)}, nil
	})
	register(s, "txpool_contentFrom", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var addr types.Address
		if err := p.Decode(0, &addr); err != nil {
			return nil, err
		}
		pending, queued := r.PoolContent()
		return map[string]any{"pending": byNonce(addr, pending[addr], txObject), "queued": byNonce(addr, queued[addr], txObject)}, nil
	})
}

func count(m map[types.Address][]*types.Transaction) int {
	n := 0
	for _, txs := range m {
		n += len(txs)
	}
	return n
}

// bySender maps sender -> nonce (decimal string) -> rendered transaction.
func bySender[T any](m map[types.Address][]*types.Transaction, render func(*types.Transaction, types.Address) T) map[string]map[string]T {
	out := make(map[string]map[string]T, len(m))
	for from, txs := range m {
		out[from.Hex()] = byNonce(from, txs, render)
	}
	return out
}

func byNonce[T any](from types.Address, txs []*types.Transaction, render func(*types.Transaction, types.Address) T) map[string]T {
	out := make(map[string]T, len(txs))
	for _, tx := range txs {
		out[strconv.FormatUint(tx.Nonce(), 10)] = render(tx, from)
	}
	return out
}

func txObject(tx *types.Transaction, from types.Address) any { return types.TxJSON(tx, from, nil) }

// txSummary is txpool_inspect's one-line form of a transaction.
func txSummary(tx *types.Transaction, _ types.Address) string {
	to := "contract creation"
	if t := tx.To(); t != nil {
		to = t.Hex()
	}
	return fmt.Sprintf("%s: %s wei + %d gas × %s wei", to, tx.Value().Dec(), tx.Gas(), tx.GasFeeCap().Dec())
}
