package ethbackend

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/evm/tracers"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// Every tracer, the struct logger and each registered by name, answers
// within the node's caps: past the time cap (the node's call cap, which a
// request's timeout may shorten but never lengthen) with an error naming
// the cap, past the size cap with an error naming it. The call loops
// until its gas runs out, so nothing but a cap stops it early.
func TestEveryTracerBounded(t *testing.T) {
	c, err := chain.Open(chain.DevGenesis(chain.MainChainID, []types.Address{{0xfe}}, 1_700_000_000), store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	loop := types.Address{0xaa}
	code := slowLoop
	gas := uint64(30_000_000)
	req := func() *backend.CallRequest {
		return &backend.CallRequest{Block: c.Head(), Args: backend.CallArgs{To: &loop, Gas: &gas},
			StateOverrides: map[types.Address]backend.StateOverride{loop: {Code: &code}}}
	}
	// The tracers' own configs where "{}" is not one.
	configs := map[string]string{"muxTracer": `{"callTracer":{}}`}
	names := append([]string{""}, tracers.Names()...)
	for _, name := range names {
		cfg := func(timeout time.Duration) *backend.TraceConfig {
			tc := &backend.TraceConfig{Tracer: name, Timeout: timeout}
			if c, ok := configs[name]; ok {
				tc.TracerConfig = []byte(c)
			}
			return tc
		}
		for _, tc := range []struct {
			what    string
			opts    Options
			timeout time.Duration // the request's
			want    string
			ok      func(error) bool
		}{
			{"the node's time cap", Options{CallTimeout: time.Millisecond}, 0, "execution aborted (timeout = 1ms)", isTimeout(time.Millisecond)},
			{"a longer request timeout is cut to the node's cap", Options{CallTimeout: time.Millisecond}, time.Hour, "execution aborted (timeout = 1ms)", isTimeout(time.Millisecond)},
			{"a shorter request timeout", Options{CallTimeout: time.Hour}, time.Millisecond, "execution aborted (timeout = 1ms)", isTimeout(time.Millisecond)},
			{"the size cap", Options{CallTimeout: time.Hour, TraceBytes: 1}, 0, "trace exceeds the node's limit of 1 bytes", func(err error) bool {
				var se *TraceSizeError
				return errors.As(err, &se) && se.Limit == 1
			}},
		} {
			label := name
			if label == "" {
				label = "struct logger"
			}
			t.Run(label+"/"+tc.what, func(t *testing.T) {
				b := New(chainview.New(c), nil, tc.opts)
				start := time.Now()
				raw, err := b.TraceCall(context.Background(), req(), cfg(tc.timeout))
				if err == nil || !tc.ok(err) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %.100s, %v; want the error %q", raw, err, tc.want)
				}
				// Generous for a loaded machine; unbounded, 30M gas of
				// tracing takes tens of seconds.
				if took := time.Since(start); took > 5*time.Second {
					t.Fatalf("stopped after %v", took)
				}
			})
		}
	}
}

// slowLoop hashes 8 KiB of memory, again and again until its gas runs
// out: about 10 µs of work per 1,600 gas, so even the 2^24 gas an Osaka
// call may use lasts ~100 ms — far past a 1 ms cap however fast the
// interpreter gets. (A bare JUMPDEST PUSH1 0 JUMP loop spends 2^24 gas in
// a few milliseconds once jumps are pre-decoded, and then finishes before
// a 1 ms timer fires on a loaded machine.)
var slowLoop = []byte{
	0x5b,             // JUMPDEST
	0x61, 0x20, 0x00, // PUSH2 0x2000
	0x60, 0x00, // PUSH1 0
	0x20,       // KECCAK256
	0x50,       // POP
	0x60, 0x00, // PUSH1 0
	0x56, // JUMP
}

func isTimeout(limit time.Duration) func(error) bool {
	return func(err error) bool {
		var te *TimeoutError
		return errors.As(err, &te) && te.Limit == limit
	}
}

// The struct logger honours disableStorage: the storage a step touched is
// shown on SLOAD and SSTORE unless the request turns it off.
func TestStructLoggerDisableStorage(t *testing.T) {
	c, err := chain.Open(chain.DevGenesis(chain.MainChainID, []types.Address{{0xfe}}, 1_700_000_000), store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := types.Address{0xaa}
	code := []byte{0x60, 0x01, 0x60, 0x00, 0x55, 0x60, 0x00, 0x54, 0x50} // PUSH1 1 PUSH1 0 SSTORE PUSH1 0 SLOAD POP
	b := New(chainview.New(c), nil, Options{})
	for _, off := range []bool{false, true} {
		raw, err := b.TraceCall(context.Background(), &backend.CallRequest{Block: c.Head(), Args: backend.CallArgs{To: &to},
			StateOverrides: map[types.Address]backend.StateOverride{to: {Code: &code}}}, &backend.TraceConfig{DisableStorage: off})
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			StructLogs []struct {
				Op      string             `json:"op"`
				Storage *map[string]string `json:"storage"`
			} `json:"structLogs"`
		}
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatal(err)
		}
		shown := 0
		for _, l := range tr.StructLogs {
			if l.Storage != nil {
				shown++
				if l.Op != "SSTORE" && l.Op != "SLOAD" {
					t.Fatalf("disableStorage %v: storage shown on %s", off, l.Op)
				}
			}
		}
		if want := map[bool]int{false: 2, true: 0}[off]; shown != want {
			t.Fatalf("disableStorage %v: storage shown on %d steps, want %d: %s", off, shown, want, raw)
		}
	}
}
