package evm

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // the EVM's precompile 0x03

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// staticCallCode is STATICCALL(GAS, to, in, inSize, out, outSize); POP.
func staticCallCode(to, in, inSize, out, outSize byte) []byte {
	return []byte{0x60, outSize, 0x60, out, 0x60, inSize, 0x60, in, 0x60, to, 0x5a, 0xfa, 0x50}
}

// Outputs of SHA-256 and RIPEMD-160 called from code live in a scratch the
// EVM reuses (runPrecompile): each must still be right where the code
// reads it (its memory, the return data), a tracer keeps the outputs it
// was shown, and a top-level call's output stays the caller's after the
// next call.
func TestPrecompileOutputsSurviveReuse(t *testing.T) {
	word := bytes.Repeat([]byte{0x11}, 32)
	code := append([]byte{0x7f}, word...)                         // PUSH32 word
	code = append(code, 0x60, 0x00, 0x52)                         // MSTORE at 0
	code = append(code, staticCallCode(2, 0, 32, 0x40, 32)...)    // sha256(word) -> 0x40
	code = append(code, staticCallCode(3, 0, 32, 0x60, 32)...)    // ripemd160(word) -> 0x60
	code = append(code, 0x60, 32, 0x60, 0, 0x60, 0x80, 0x3e)      // RETURNDATACOPY the ripemd output -> 0x80
	code = append(code, staticCallCode(2, 0x60, 32, 0xa0, 32)...) // sha256(ripemd160(word)) -> 0xa0
	code = append(code, 0x60, 0x80, 0x60, 0x40, 0xf3)             // RETURN mem[0x40:0xc0]

	sha := func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }
	rmd := func(b []byte) []byte { h := ripemd160.New(); h.Write(b); return h.Sum(make([]byte, 12)) }
	var want []byte
	want = append(want, sha(word)...)
	want = append(want, rmd(word)...)
	want = append(want, rmd(word)...)
	want = append(want, sha(rmd(word))...)

	ret, _, err, _ := runCode(t, forks.Prague, code, nil, 1_000_000)
	if err != nil || !bytes.Equal(ret, want) {
		t.Fatalf("untraced: %x, %v\nwant %x", ret, err, want)
	}

	var kept [][]byte
	tracer := &Hooks{OnExit: func(depth int, output []byte, _ uint64, _ error, _ bool) {
		if depth == 1 {
			kept = append(kept, output)
		}
	}}
	ret, _, err, _ = runCodeTraced(t, forks.Prague, code, nil, 1_000_000, tracer)
	if err != nil || !bytes.Equal(ret, want) {
		t.Fatalf("traced: %x, %v\nwant %x", ret, err, want)
	}
	wantKept := [][]byte{sha(word), rmd(word), sha(rmd(word))}
	if len(kept) != len(wantKept) {
		t.Fatalf("tracer saw %d precompile exits, want %d", len(kept), len(wantKept))
	}
	for i := range kept {
		if !bytes.Equal(kept[i], wantKept[i]) {
			t.Errorf("output %d as the tracer kept it: %x, want %x", i, kept[i], wantKept[i])
		}
	}

	e := NewEVM(BlockContext{GasLimit: 30_000_000, BaseFee: new(uint256.Int), GetHash: func(uint64) types.Hash { return types.Hash{} }},
		newMemState(), 1, forks.Prague)
	out1, _, err1 := e.Call(testCaller, types.Address{19: 2}, word, 100_000, new(uint256.Int))
	_, _, err2 := e.Call(testCaller, types.Address{19: 3}, []byte("other"), 100_000, new(uint256.Int))
	if err1 != nil || err2 != nil || !bytes.Equal(out1, sha(word)) {
		t.Fatalf("a top-level call's output after the next call: %x (%v, %v), want %x", out1, err1, err2, sha(word))
	}
}
