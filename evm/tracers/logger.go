package tracers

import (
	"encoding/json"
	"errors"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
)

// structLoggerName is the registry key of the default tracer, the one a
// request without "tracer" gets.
const structLoggerName = "structLogger"

func init() {
	register(structLoggerName, func(ctx *Context, _ json.RawMessage) (evm.Tracer, error) {
		return &structLogger{cfg: ctx.Log, budget: ctx.Budget, storage: map[types.Address]map[types.Hash]types.Hash{}}, nil
	})
}

type structLog struct {
	PC         uint64             `json:"pc"`
	Op         string             `json:"op"`
	Gas        uint64             `json:"gas"`
	GasCost    uint64             `json:"gasCost"`
	Depth      int                `json:"depth"`
	Error      string             `json:"error,omitempty"`
	Stack      *[]string          `json:"stack,omitempty"`
	ReturnData string             `json:"returnData,omitempty"`
	Memory     *[]string          `json:"memory,omitempty"`
	Storage    *map[string]string `json:"storage,omitempty"`
	Refund     uint64             `json:"refund,omitempty"`
}

// structLogger records every executed opcode (go-ethereum's default
// tracer): the stack, optionally memory and return data, and the storage
// slots the current contract read or wrote so far. Words are 0x-prefixed
// as the execution-apis specification asks (go-ethereum prints memory
// and storage as bare hex).
type structLogger struct {
	cfg     LogConfig
	budget  *Budget
	st      evm.StateDB
	logs    []structLog
	storage map[types.Address]map[types.Hash]types.Hash
	output  []byte
	err     error
	used    uint64
}

func (l *structLogger) Hooks() *evm.Hooks {
	return &evm.Hooks{
		OnTxStart: func(vm *evm.EVM, _ *evm.Message) { l.st = vm.StateDB },
		OnTxEnd: func(res *evm.Result, err error) {
			if err != nil {
				if l.err == nil {
					l.err = err
				}
				return
			}
			l.used = res.UsedGas
		},
		OnExit: func(depth int, output []byte, _ uint64, err error, _ bool) {
			if depth == 0 {
				l.output, l.err = append([]byte{}, output...), err
			}
		},
		OnOpcode: l.onOpcode,
	}
}

// entryBytes bounds the JSON of the entry onOpcode is about to record.
func (l *structLogger) entryBytes(op evm.OpCode, stack, memory, ret, slots int, err error) int {
	n := 160 + len(op.String())
	if err != nil {
		n += 2 * len(err.Error()) // escaping at worst doubles it
	}
	if !l.cfg.DisableStack {
		n += stack * wordBytes
	}
	if l.cfg.EnableMemory {
		n += memory / 32 * wordBytes
	}
	if l.cfg.EnableReturnData {
		n += 2*ret + 4
	}
	return n + slots*slotBytes
}

func (l *structLogger) onOpcode(pc uint64, opb byte, gas, cost uint64, scope *evm.ScopeContext, rdata []byte, depth int, err error) {
	if l.cfg.Limit > 0 && len(l.logs) >= l.cfg.Limit {
		return // the first entries only, no error
	}
	op := evm.OpCode(opb)
	stack, memory, addr := scope.StackData(), scope.MemoryData(), scope.Address()
	storageOp := !l.cfg.DisableStorage && (op == evm.SLOAD && len(stack) >= 1 || op == evm.SSTORE && len(stack) >= 2)
	slots := 0
	if storageOp {
		slots = len(l.storage[addr]) + 1
	}
	if !l.budget.Spend(l.entryBytes(op, len(stack), len(memory), len(rdata), slots, err)) {
		return
	}
	e := structLog{PC: pc, Op: op.String(), Gas: gas, GasCost: cost, Depth: depth}
	if l.st != nil {
		e.Refund = l.st.GetRefund()
	}
	if err != nil {
		e.Error = err.Error()
	}
	if !l.cfg.DisableStack {
		s := make([]string, len(stack))
		for i := range stack {
			s[i] = stack[i].Hex()
		}
		e.Stack = &s
	}
	// Memory is left out while it is still empty, as go-ethereum does.
	if l.cfg.EnableMemory && len(memory) > 0 {
		m := make([]string, 0, (len(memory)+31)/32)
		for i := 0; i < len(memory); i += 32 {
			m = append(m, types.EncodeBytes(memory[i:min(i+32, len(memory))]))
		}
		e.Memory = &m
	}
	if l.cfg.EnableReturnData && len(rdata) > 0 {
		e.ReturnData = types.EncodeBytes(rdata)
	}
	if storageOp && l.st != nil {
		m := l.storage[addr]
		if m == nil {
			m = map[types.Hash]types.Hash{}
			l.storage[addr] = m
		}
		key := types.Hash(stack[len(stack)-1].Bytes32())
		if op == evm.SLOAD {
			m[key] = l.st.GetState(addr, key)
		} else {
			m[key] = types.Hash(stack[len(stack)-2].Bytes32())
		}
		s := make(map[string]string, len(m))
		for k, v := range m {
			s[k.Hex()] = v.Hex()
		}
		e.Storage = &s
	}
	l.logs = append(l.logs, e)
}

func (l *structLogger) Result() (json.RawMessage, error) {
	logs := l.logs
	if logs == nil {
		logs = []structLog{}
	}
	// The return data when the call succeeded or reverted; nothing for
	// any other failure.
	ret := l.output
	if l.err != nil && !errors.Is(l.err, evm.ErrExecutionReverted) {
		ret = nil
	}
	return json.Marshal(struct {
		Gas         uint64         `json:"gas"`
		Failed      bool           `json:"failed"`
		ReturnValue types.HexBytes `json:"returnValue"`
		StructLogs  []structLog    `json:"structLogs"`
	}{l.used, l.err != nil, ret, logs})
}
