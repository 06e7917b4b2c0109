package tracers

import (
	"encoding/json"

	"github.com/chaind/chaind/evm"
)

func init() {
	register("noopTracer", func(*Context, json.RawMessage) (evm.Tracer, error) { return noopTracer{}, nil })
}

// noopTracer records nothing and answers {}: the cost of replaying with
// tracing on, as go-ethereum's noopTracer measures it.
type noopTracer struct{}

func (noopTracer) Hooks() *evm.Hooks                { return &evm.Hooks{} }
func (noopTracer) Result() (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
