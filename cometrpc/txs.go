package cometrpc

import "github.com/chaind/chaind/internal/query"

// Transactions as CometBFT reports them: the query layer's TxResult (the
// TxRaw Cosmos EVM makes of each Ethereum transaction, named by the
// sha256 of those bytes, with the events Cosmos EVM emits for it) in the
// ExecTxResult and ResultTx shapes. A reverted transaction is code 0 with
// ethereumTxFailed set, as in Cosmos EVM.

// execResult is the ExecTxResult of t.
func execResult(t *query.TxResult) map[string]any {
	return map[string]any{
		"code": 0, "data": query.EthTxResultData(t.Receipt), "log": "", "info": "",
		"gas_wanted": i64(t.Tx.Gas()), "gas_used": i64(t.Receipt.GasUsed),
		"events": t.Events, "codespace": "",
	}
}

// resultTx is t as the tx and tx_search methods return it.
func resultTx(t *query.TxResult) map[string]any {
	return map[string]any{"hash": hexBytes(t.Hash[:]), "height": i64(t.Height), "index": t.Index,
		"tx_result": execResult(t), "tx": t.Raw}
}

// eventResult is t's ExecTxResult as the Tx event carries it: CometBFT
// encodes the event's result with the fields' omitempty, so zero values
// are left out (the RPC methods' answers keep them).
func eventResult(t *query.TxResult) map[string]any {
	r := execResult(t)
	for k, v := range r {
		switch x := v.(type) {
		case int:
			if x == 0 {
				delete(r, k)
			}
		case i64:
			if x == 0 {
				delete(r, k)
			}
		case string:
			if x == "" {
				delete(r, k)
			}
		case []byte:
			if len(x) == 0 {
				delete(r, k)
			}
		case []query.Event:
			if len(x) == 0 {
				delete(r, k)
			}
		}
	}
	return r
}
