package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// BenchmarkCallOverhead measures what an eth_call costs besides running
// code: opening the state view at the head, building the EVM and the
// answer (issue 30 sets 20 µs as the bound). The contract is one STOP,
// given as a state override (which a real call pays for too), so execution
// itself is next to nothing.
func BenchmarkCallOverhead(b *testing.B) {
	be, from := bareBackend(b)
	to := types.Address{0x10}
	code := []byte{0x00} // STOP
	req := &backend.CallRequest{Block: be.Head(), Args: backend.CallArgs{From: &from, To: &to},
		StateOverrides: map[types.Address]backend.StateOverride{to: {Code: &code}}}
	ctx := context.Background()
	if _, err := be.Call(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := be.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
