package ethapi

import (
	"context"
	"fmt"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// The wait of eth_sendTransactionSync and eth_sendRawTransactionSync
// (EIP-7966): the node's default when the request gives none, and the
// most a request may ask for, so a client cannot hold a handler for long.
const (
	syncSendDefault = 10 * time.Second
	syncSendMax     = 60 * time.Second
)

// syncTimeoutCode is EIP-7966's error code for a transaction that was
// accepted but not included within the wait.
const syncTimeoutCode = 4

// syncTimeout is that error; its data is the transaction's hash, so the
// client can go on waiting for the receipt itself.
type syncTimeout struct {
	hash types.Hash
	wait time.Duration
}

func (e *syncTimeout) Error() string {
	return fmt.Sprintf("The transaction was added to the mempool but wasn't processed within %dms.", e.wait.Milliseconds())
}
func (e *syncTimeout) ErrorCode() int { return syncTimeoutCode }
func (e *syncTimeout) ErrorData() any { return e.hash }

// sendSync wraps a send method (which returns the transaction's hash)
// into its EIP-7966 form: it sends, then answers the receipt once the
// transaction is in a block, waiting up to the timeout the request gives
// in milliseconds (argument wait) or the node's default.
func (api *ethAPI) sendSync(send rpc.Handler, wait int) rpc.Handler {
	return func(ctx context.Context, p rpc.Params) (any, error) {
		timeout := syncSendDefault
		var ms devQuantity
		if given, err := p.Optional(wait, &ms); err != nil {
			return nil, err
		} else if given {
			if time.Duration(ms) > syncSendMax/time.Millisecond {
				return nil, rpc.InvalidParams(wait, fmt.Errorf("timeout %dms exceeds the node's maximum of %dms", ms, syncSendMax.Milliseconds()))
			}
			timeout = time.Duration(ms) * time.Millisecond
		}
		// Subscribed before sending, so the block that includes it is
		// never missed.
		heads, cancel := api.b.SubscribeHeads(16)
		defer cancel()
		res, err := send(ctx, p[:min(len(p), wait)])
		if err != nil {
			return nil, err
		}
		h, ok := res.(types.Hash)
		if !ok {
			return nil, fmt.Errorf("send answered %T, not a hash", res)
		}
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		for {
			if r, err := api.getTransactionReceipt(ctx, rpc.Params{[]byte(`"` + h.Hex() + `"`)}); err != nil || r != nil {
				return r, err
			}
			select {
			case <-heads:
			case <-timer.C:
				return nil, &syncTimeout{hash: h, wait: timeout}
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
}
