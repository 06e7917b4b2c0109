package chain

import (
	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// transferRecorder notes the internal value transfers of one transaction:
// every frame below the top one that moves value (a CALL or CREATE with
// value, a SELFDESTRUCT's payout), and every contract created below the
// top frame, with value or without (so a factory's contracts have the
// transaction that created them in their history). A frame that fails takes its own
// transfer and those of the frames it opened with it, as the EVM undoes
// them. It uses only the frame hooks, which keep the interpreter's fast
// path.
type transferRecorder struct {
	to    []types.Address
	marks []int // len(to) when each open frame began
}

func (r *transferRecorder) hooks() *evm.Hooks {
	return &evm.Hooks{OnEnter: r.enter, OnExit: r.exit}
}

func (r *transferRecorder) reset() {
	r.to, r.marks = r.to[:0], r.marks[:0]
}

func (r *transferRecorder) enter(_ int, typ byte, _, to types.Address, _ []byte, _ uint64, value *uint256.Int) {
	top := len(r.marks) == 0 // the transaction's own call: its value is the transaction's
	r.marks = append(r.marks, len(r.to))
	create := typ == evm.FrameCreate || typ == evm.FrameCreate2
	if top || !create && (value == nil || value.IsZero()) || typ == evm.FrameCallCode || typ == evm.FrameDelegateCall {
		return
	}
	r.to = append(r.to, to)
}

func (r *transferRecorder) exit(_ int, _ []byte, _ uint64, err error, _ bool) {
	if len(r.marks) == 0 {
		return
	}
	m := r.marks[len(r.marks)-1]
	r.marks = r.marks[:len(r.marks)-1]
	if err != nil {
		r.to = r.to[:m]
	}
}

// recipients are the distinct addresses that received value inside the
// transaction, in first-seen order.
func (r *transferRecorder) recipients() []types.Address {
	if len(r.to) == 0 {
		return nil
	}
	out := make([]types.Address, 0, len(r.to))
	seen := make(map[types.Address]bool, len(r.to))
	for _, a := range r.to {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
