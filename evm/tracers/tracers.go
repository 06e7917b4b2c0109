// Package tracers holds the tracers of debug_trace*, trace_* and ots_*:
// go-ethereum's native tracers in go-ethereum's JSON shapes (the struct
// logger, callTracer, flatCallTracer, prestateTracer, 4byteTracer,
// muxTracer, noopTracer) and the parity-style trace builders. Each tracer
// is one file that registers a constructor by name; every tracer is an
// evm.Tracer, observing execution through evm.Hooks alone.
//
// Every tracer charges what it records to the request's Budget, so a
// trace is bounded in size whichever tracer makes it; the driver bounds
// it in time by cancelling the EVM.
package tracers

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
)

// Context is what a tracer knows beyond the execution it observes: the
// size budget of the request, the struct logger's options and where the
// transaction sits (zero for a call).
type Context struct {
	Budget      *Budget
	Log         LogConfig
	BlockHash   types.Hash
	BlockNumber uint64
	TxIndex     int
	TxHash      types.Hash
}

// LogConfig is the struct logger's options: the top-level fields of
// go-ethereum's trace config.
type LogConfig struct {
	DisableStack     bool
	DisableStorage   bool
	EnableMemory     bool
	EnableReturnData bool
	// Limit is the most opcode entries recorded (later ones are left
	// out); 0: no limit.
	Limit int
}

// constructor builds a tracer from its tracerConfig (JSON, "{}" when the
// request gave none).
type constructor func(ctx *Context, cfg json.RawMessage) (evm.Tracer, error)

var registry = map[string]constructor{}

// register adds a tracer under name; each tracer's file calls it once.
func register(name string, c constructor) {
	if _, dup := registry[name]; dup {
		panic("tracers: " + name + " registered twice")
	}
	registry[name] = c
}

// Errors of New, testable with errors.Is.
var (
	ErrUnknownTracer = errors.New("tracer not found")
	// ErrJSTracer refuses JavaScript tracers (a code string or one of
	// go-ethereum's built-in JavaScript tracers): chaind runs no
	// JavaScript engine, so they are out of its scope.
	ErrJSTracer = errors.New("JavaScript tracers are out of scope for chaind; use a native tracer")
)

// jsTracers are go-ethereum's built-in JavaScript tracers.
var jsTracers = []string{
	"bigramTracer", "evmdisTracer", "opcountTracer", "trigramTracer", "unigramTracer",
	"callTracerLegacy", "prestateTracerLegacy", "4byteTracerLegacy", "noopTracerLegacy",
}

// Names lists the registered tracers, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// New builds the tracer called name ("" is the struct logger) with its
// tracerConfig.
func New(name string, ctx *Context, cfg json.RawMessage) (evm.Tracer, error) {
	if ctx.Budget == nil {
		ctx.Budget = NewBudget(0, nil)
	}
	if len(cfg) == 0 || string(cfg) == "null" {
		cfg = json.RawMessage("{}")
	}
	if name == "" {
		name = structLoggerName
	}
	c, ok := registry[name]
	if !ok {
		if slices.Contains(jsTracers, name) || strings.ContainsAny(name, "{}();") {
			return nil, fmt.Errorf("%w (native tracers: %s)", ErrJSTracer, strings.Join(Names(), ", "))
		}
		return nil, fmt.Errorf("%w: %q (native tracers: %s)", ErrUnknownTracer, name, strings.Join(Names(), ", "))
	}
	return c(ctx, cfg)
}

// decodeConfig reads a tracer's config strictly enough to catch typos in
// its own options' types, as go-ethereum does with json.Unmarshal.
func decodeConfig(name string, cfg json.RawMessage, v any) error {
	if err := json.Unmarshal(cfg, v); err != nil {
		return fmt.Errorf("%s config: %w", name, err)
	}
	return nil
}

// SizeError is the answer to a trace that would exceed the node's size
// cap: a struct log of a memory-heavy transaction grows by the whole
// memory at every step, hundreds of MiB for a small transaction.
type SizeError struct{ Limit int }

func (e *SizeError) Error() string {
	return fmt.Sprintf("trace exceeds the node's limit of %d bytes (ask for less: limit, disableStack, disableStorage, enableMemory off, or the callTracer)", e.Limit)
}

// Budget bounds the size of one trace answer, over all the transactions
// it traces. Tracers spend an estimate of the JSON they will render
// before they record it; once the budget is gone nothing more is
// recorded and the execution is stopped.
type Budget struct {
	limit, used int
	err         error
	stop        func()
}

// NewBudget is a budget of limit bytes (0: unbounded) that calls stop
// (when not nil) the moment it runs out.
func NewBudget(limit int, stop func()) *Budget {
	return &Budget{limit: limit, stop: stop}
}

// Spend charges n bytes and reports whether they fit.
func (b *Budget) Spend(n int) bool {
	if b.err != nil {
		return false
	}
	b.used += n
	if b.limit > 0 && b.used > b.limit {
		b.err = &SizeError{Limit: b.limit}
		if b.stop != nil {
			b.stop()
		}
		return false
	}
	return true
}

// Used is the bytes charged so far.
func (b *Budget) Used() int { return b.used }

// Settle replaces what was charged since mark (a Used value) with the
// true size of the rendered answer, and reports whether it fits.
func (b *Budget) Settle(mark, size int) bool {
	if b.err != nil {
		return false
	}
	b.used = mark
	return b.Spend(size)
}

// Err is the SizeError once the budget ran out, else nil.
func (b *Budget) Err() error { return b.err }

// Sizes of the JSON of recorded items, charged before they are recorded:
// a 32-byte word ("0x", 64 digits, quotes, comma), a storage slot (two),
// and the fixed fields of a call frame.
const (
	wordBytes      = 69
	slotBytes      = 2*wordBytes + 2
	callFrameBytes = 400
)
