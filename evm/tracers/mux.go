package tracers

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func init() {
	register("muxTracer", newMuxTracer)
}

// muxTracer runs several tracers over one execution and answers an
// object keyed by tracer name: {"callTracer": {...}, "4byteTracer": {...}}.
type muxTracer struct {
	names   []string
	tracers []evm.Tracer
	hooks   []*evm.Hooks
}

func newMuxTracer(ctx *Context, cfg json.RawMessage) (evm.Tracer, error) {
	var c map[string]json.RawMessage
	if err := decodeConfig("muxTracer", cfg, &c); err != nil {
		return nil, err
	}
	t := &muxTracer{}
	for name := range c {
		t.names = append(t.names, name)
	}
	slices.Sort(t.names) // one order for every run
	for _, name := range t.names {
		if name == "muxTracer" {
			return nil, fmt.Errorf("muxTracer cannot run itself")
		}
		sub, err := New(name, ctx, c[name])
		if err != nil {
			return nil, err
		}
		t.tracers = append(t.tracers, sub)
		t.hooks = append(t.hooks, sub.Hooks())
	}
	return t, nil
}

func (t *muxTracer) Hooks() *evm.Hooks {
	h := &evm.Hooks{
		OnTxStart: func(vm *evm.EVM, msg *evm.Message) {
			for _, s := range t.hooks {
				if s.OnTxStart != nil {
					s.OnTxStart(vm, msg)
				}
			}
		},
		OnTxEnd: func(res *evm.Result, err error) {
			for _, s := range t.hooks {
				if s.OnTxEnd != nil {
					s.OnTxEnd(res, err)
				}
			}
		},
		OnEnter: func(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int) {
			for _, s := range t.hooks {
				if s.OnEnter != nil {
					s.OnEnter(depth, typ, from, to, input, gas, value)
				}
			}
		},
		OnExit: func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
			for _, s := range t.hooks {
				if s.OnExit != nil {
					s.OnExit(depth, output, gasUsed, err, reverted)
				}
			}
		},
		OnLog: func(l *types.Log) {
			for _, s := range t.hooks {
				if s.OnLog != nil {
					s.OnLog(l)
				}
			}
		},
	}
	// The opcode hook only when a tracer needs it: it turns off the
	// interpreter's fast path.
	for _, s := range t.hooks {
		if s.OnOpcode != nil {
			h.OnOpcode = func(pc uint64, op byte, gas, cost uint64, scope *evm.ScopeContext, rdata []byte, depth int, err error) {
				for _, s := range t.hooks {
					if s.OnOpcode != nil {
						s.OnOpcode(pc, op, gas, cost, scope, rdata, depth, err)
					}
				}
			}
			break
		}
	}
	return h
}

func (t *muxTracer) Result() (json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(t.names))
	for i, name := range t.names {
		r, err := t.tracers[i].Result()
		if err != nil {
			return nil, err
		}
		out[name] = r
	}
	return json.Marshal(out)
}
