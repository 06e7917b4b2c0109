package opslog

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// Transaction status codes of a captured submission.
const (
	BadTx        = 0 // the node refused it as invalid
	Success      = 1
	Busy         = 2 // refused for load (rate limit, full pool)
	OtherFailure = 3
)

// describeTx fills what a submission's parameters and outcome say about
// it: its kind, sender, recipient and whether the pool took it.
func describeTx(c rpc.Call) TxRow {
	row := TxRow{Type: "other", Accepted: Success, Injected: 1}
	var params []json.RawMessage
	json.Unmarshal(c.Params, &params)
	switch c.Method {
	case "eth_sendRawTransaction":
		var hexTx string
		if len(params) > 0 && json.Unmarshal(params[0], &hexTx) == nil {
			if b, err := decodeHex(hexTx); err == nil {
				if tx, err := types.DecodeTx(b); err == nil {
					row.Hash = tx.Hash().Hex()
					if from, err := types.Sender(tx); err == nil {
						row.From = from.Hex()
					}
					row.Type = kindOf(tx.To() == nil, len(tx.Data()) > 0)
					if to := tx.To(); to != nil {
						row.To = to.Hex()
					}
				}
			}
		}
	case "eth_sendTransaction":
		var args struct {
			From  string  `json:"from"`
			To    *string `json:"to"`
			Data  string  `json:"data"`
			Input string  `json:"input"`
		}
		if len(params) > 0 && json.Unmarshal(params[0], &args) == nil {
			row.From = args.From
			if args.To != nil {
				row.To = *args.To
			}
			data := strings.TrimPrefix(args.Input+args.Data, "0x")
			row.Type = kindOf(args.To == nil, data != "")
		}
	}
	if c.Err != nil {
		row.Injected = 0
		row.Reason = c.Err.Error()
		row.Accepted = statusOf(c.Err)
	}
	return row
}

func kindOf(create, hasData bool) string {
	switch {
	case create:
		return "contract deployment"
	case hasData:
		return "contract call"
	default:
		return "coin transfer"
	}
}

// statusOf sorts a refusal: load (busy), a fault of the transaction, or
// anything else.
func statusOf(err error) int {
	var e *rpc.Error
	if errors.As(err, &e) && e.Code == rpc.CodeLimitExceeded {
		return Busy
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "pool is full"), strings.Contains(msg, "busy"):
		return Busy
	case strings.Contains(msg, "nonce"), strings.Contains(msg, "insufficient funds"),
		strings.Contains(msg, "underpriced"), strings.Contains(msg, "invalid"),
		strings.Contains(msg, "gas"), strings.Contains(msg, "sender"),
		strings.Contains(msg, "already known"), strings.Contains(msg, "chain id"):
		return BadTx
	}
	return OtherFailure
}

func decodeHex(s string) ([]byte, error) {
	return hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
}
