package evm

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// logCode is LOGn of 32 bytes at offset 0x100 (so memory grows) with
// topics 1..n, then STOP.
func logCode(n int) []byte {
	var c []byte
	for i := range n {
		c = append(c, 0x60, byte(i+1)) // PUSH1 topic
	}
	c = append(c, 0x60, 0x20, 0x61, 0x01, 0x00) // PUSH1 32 (size), PUSH2 0x100 (offset)
	return append(c, byte(LOG0)+byte(n), 0x00)
}

// With Config.NoLogs a LOG charges the same gas, grows memory the same and
// fails the same in a static frame, but hands no log to the state unless a
// tracer observes logs.
func TestNoLogs(t *testing.T) {
	logger := types.Address{0x77}
	// STATICCALL logger with all gas; return its success flag.
	static := append([]byte{0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x73}, logger[:]...)
	static = append(static, 0x5a, 0xfa, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3)
	type run struct {
		left  uint64
		ret   []byte
		err   error
		logs  int
		heard int
	}
	exec := func(code []byte, noLogs, tracer bool) run {
		st := newMemState()
		st.SetCode(testContract, code)
		st.SetCode(logger, logCode(1))
		e := NewEVM(BlockContext{}, st, 1, forks.Cancun)
		e.Config.NoLogs = noLogs
		var r run
		if tracer {
			e.Config.Tracer = &Hooks{OnLog: func(*types.Log) { r.heard++ }}
		}
		r.ret, r.left, r.err = e.Call(testCaller, testContract, nil, 100000, new(uint256.Int))
		r.logs = len(st.logs)
		return r
	}
	cases := []struct {
		name  string
		code  []byte
		logs  int
		fails bool
	}{
		{"LOG0", logCode(0), 1, false},
		{"LOG1", logCode(1), 1, false},
		{"LOG2", logCode(2), 1, false},
		{"LOG3", logCode(3), 1, false},
		{"LOG4", logCode(4), 1, false},
		{"static", static, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept := exec(tc.code, false, false)
			if kept.err != nil || kept.logs != tc.logs {
				t.Fatalf("logs kept: err %v, %d logs, want nil and %d", kept.err, kept.logs, tc.logs)
			}
			for _, v := range []struct {
				tracer bool
				logs   int
			}{{false, 0}, {true, tc.logs}} {
				got := exec(tc.code, true, v.tracer)
				if got.left != kept.left || !bytes.Equal(got.ret, kept.ret) || fmt.Sprint(got.err) != fmt.Sprint(kept.err) {
					t.Errorf("NoLogs (tracer %v): left %d, ret %x, err %v; with logs kept %d, %x, %v",
						v.tracer, got.left, got.ret, got.err, kept.left, kept.ret, kept.err)
				}
				if got.logs != v.logs || got.heard != v.logs {
					t.Errorf("NoLogs (tracer %v): %d logs in the state, %d heard by the tracer; want %d", v.tracer, got.logs, got.heard, v.logs)
				}
			}
		})
	}
	// The static call fails at its LOG either way: the flag it returns is 0.
	if r := exec(static, true, false); !bytes.Equal(r.ret, make([]byte, 32)) {
		t.Errorf("LOG in a static frame under NoLogs: STATICCALL returned %x, want failure (0)", r.ret)
	}
}
