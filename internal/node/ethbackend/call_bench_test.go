package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// emptyCall is an eth_call of a contract that is one STOP, given as a
// state override (which a real call pays for too), so execution itself is
// next to nothing and what it costs is the call's setup and answer.
func emptyCall(t testing.TB) (*Backend, *backend.CallRequest) {
	be, from := bareBackend(t)
	to := types.Address{0x10}
	code := []byte{0x00} // STOP
	req := &backend.CallRequest{Block: be.Head(), Args: backend.CallArgs{From: &from, To: &to},
		StateOverrides: map[types.Address]backend.StateOverride{to: {Code: &code}}}
	if _, err := be.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return be, req
}

// BenchmarkCallOverhead measures what an eth_call costs besides running
// code: opening the state view at the head, building the EVM and the
// answer (issue 30 sets 20 µs as the bound).
func BenchmarkCallOverhead(b *testing.B) {
	be, req := emptyCall(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := be.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// maxEmptyCallAllocs bounds the allocations of an empty eth_call. It was
// 57 (7.3 KB) while the fork's eighteen precompiles were entered in the
// access list per call, the state view made all its maps up front and the
// read cache's key escaped on every lookup; 36 since (the account trie's
// root node is decoded on first use, which a call served by the read cache
// never makes).
const maxEmptyCallAllocs = 40

// An empty eth_call's setup allocates no more than it did when its
// overhead was last cut, so the cost cannot creep back unnoticed.
func TestCallOverheadAllocs(t *testing.T) {
	be, req := emptyCall(t)
	ctx := context.Background()
	n := testing.AllocsPerRun(50, func() {
		if _, err := be.Call(ctx, req); err != nil {
			t.Fatal(err)
		}
	})
	if n > maxEmptyCallAllocs {
		t.Errorf("an empty eth_call allocates %.0f times, want at most %d", n, maxEmptyCallAllocs)
	}
}
