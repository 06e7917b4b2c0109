package tracers

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func init() {
	register("4byteTracer", func(ctx *Context, _ json.RawMessage) (evm.Tracer, error) {
		return &fourByteTracer{budget: ctx.Budget, ids: map[string]int{}}, nil
	})
}

// fourByteTracer counts the 4-byte selectors of every call into code
// (not precompiles), keyed "0xselector-argsize".
type fourByteTracer struct {
	budget      *Budget
	ids         map[string]int
	precompiles []types.Address
}

func (t *fourByteTracer) Hooks() *evm.Hooks {
	return &evm.Hooks{
		OnTxStart: func(vm *evm.EVM, _ *evm.Message) { t.precompiles = vm.PrecompileAddresses() },
		OnEnter: func(_ int, typ byte, _, to types.Address, input []byte, _ uint64, _ *uint256.Int) {
			if len(input) < 4 || slices.Contains(t.precompiles, to) {
				return
			}
			switch typ {
			case evm.FrameCall, evm.FrameCallCode, evm.FrameDelegateCall, evm.FrameStaticCall:
			default:
				return
			}
			key := types.EncodeBytes(input[:4]) + "-" + strconv.Itoa(len(input)-4)
			if _, seen := t.ids[key]; !seen && !t.budget.Spend(len(key)+16) {
				return
			}
			t.ids[key]++
		},
	}
}

func (t *fourByteTracer) Result() (json.RawMessage, error) { return json.Marshal(t.ids) }
