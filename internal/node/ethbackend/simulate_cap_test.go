package ethbackend

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// eth_simulateV1 runs under the same time cap as one eth_call: a
// simulation that runs past it is cut with go-ethereum's timeout message,
// whichever of its blocks the time runs out in.
func TestSimulateTimeCap(t *testing.T) {
	loop := slowLoop // runs until out of gas, far longer than 1 ms
	to, quick := types.Address{0x10}, types.Address{0x11}
	overrides := map[types.Address]backend.StateOverride{to: {Code: &loop}}
	endless := backend.SimBlock{StateOverrides: overrides, Calls: []backend.CallArgs{{To: &to}}}
	short := backend.SimBlock{Calls: []backend.CallArgs{{To: &quick}}}
	tests := []struct {
		name    string
		limit   time.Duration
		blocks  []backend.SimBlock
		timeout bool
	}{
		{"endless call", time.Millisecond, []backend.SimBlock{endless}, true},
		{"endless call in a later block", time.Millisecond, []backend.SimBlock{short, short, endless}, true},
		{"many endless blocks", time.Millisecond, []backend.SimBlock{endless, endless, endless, endless}, true},
		{"within the cap", time.Minute, []backend.SimBlock{short, short}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := chain.Open(chain.DevGenesis(chain.MainChainID, nil, 1_700_000_000), store.NewMem(), nil)
			if err != nil {
				t.Fatal(err)
			}
			b := New(chainview.New(c), nil, Options{GasCap: 1 << 50, CallTimeout: tt.limit})
			res, err := b.Simulate(context.Background(), &backend.SimulateRequest{Base: b.Head(), Blocks: tt.blocks})
			var te *TimeoutError
			if !tt.timeout {
				if err != nil || len(res) != len(tt.blocks) {
					t.Fatalf("got %d blocks, %v", len(res), err)
				}
				return
			}
			if !errors.As(err, &te) || err.Error() != "execution aborted (timeout = 1ms)" {
				t.Fatalf("got %d blocks, error %v; want the timeout", len(res), err)
			}
		})
	}
}
