package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// eth_call and eth_estimateGas answer from the result alone, so the logs
// a call emits are never built: a call that emits 200 logs allocates about
// what the same loop without them does (two allocations a log before).
func TestCallBuildsNoLogs(t *testing.T) {
	be, from := bareBackend(t)
	// 200 times: LOG0 of mem[0:32] (or, without logs, two POPs).
	loop := func(body ...byte) []byte {
		c := append([]byte{0x61, 0x00, 0xc8, 0x5b, 0x60, 0x20, 0x60, 0x00}, body...)
		return append(c, 0x60, 0x01, 0x90, 0x03, 0x80, 0x60, 0x03, 0x57, 0x00)
	}
	ctx := context.Background()
	allocs := func(code []byte) float64 {
		to := types.Address{0x10}
		req := &backend.CallRequest{Block: be.Head(), Args: backend.CallArgs{From: &from, To: &to},
			StateOverrides: map[types.Address]backend.StateOverride{to: {Code: &code}}}
		var err error
		n := testing.AllocsPerRun(20, func() {
			if _, e := be.Call(ctx, req); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := be.EstimateGas(ctx, req); err != nil {
			t.Fatal(err)
		}
		return n
	}
	withLogs, without := allocs(loop(0xa0)), allocs(loop(0x50, 0x50))
	if withLogs > without+20 {
		t.Errorf("a call emitting 200 logs allocates %.0f times, %.0f without the logs: the logs are built", withLogs, without)
	}
}
