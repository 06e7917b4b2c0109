package tracers

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

// TestConsoleSigsTable: every selector of the generated table is the hash
// of its signature, or of the signature as Hardhat's early console.sol
// spelled it, and selectors known from the libraries are there.
func TestConsoleSigsTable(t *testing.T) {
	// 380 functions, 223 of them with a uint256 or int256 that Hardhat's
	// early console.sol spelled uint or int.
	if len(consoleSigs) != 380+223 {
		t.Errorf("%d selectors, want %d", len(consoleSigs), 380+223)
	}
	for sel, sig := range consoleSigs {
		canon := crypto.Keccak256([]byte(sig))
		short := strings.NewReplacer("uint256", "uint", "int256", "int").Replace(sig)
		legacy := crypto.Keccak256([]byte(short))
		if !bytes.Equal(sel[:], canon[:4]) && !bytes.Equal(sel[:], legacy[:4]) {
			t.Errorf("selector %x is neither %s's nor %s's", sel, sig, short)
		}
	}
	for _, tc := range []struct{ sel, sig string }{
		{"51973ec9", "log()"},
		{"41304fac", "log(string)"},
		{"f82c50f1", "log(uint256)"},
		{"f5b1bba9", "log(uint256)"}, // log(uint)
		{"2c2ecbc2", "log(address)"},
		{"32458eed", "log(bool)"},
		{"2d5b6cb9", "log(int256)"},
		{"b60e72cc", "log(string,uint256)"},
		{"9710a9d0", "log(string,uint256)"}, // log(string,uint)
		{"4b5c4277", "log(string,string)"},
		{"319af333", "log(string,address)"},
		{"e17bf956", "logBytes(bytes)"},
	} {
		b, _ := hex.DecodeString(tc.sel)
		if got := consoleSigs[[4]byte(b)]; got != tc.sig {
			t.Errorf("selector %s: %q, want %q", tc.sel, got, tc.sig)
		}
	}
}

// abiArg is one argument for encodeCall: a static word or dynamic bytes.
type abiArg struct {
	word    []byte // 32 bytes, static
	dynamic []byte // string or bytes
	isDyn   bool
}

func uintArg(v int64) abiArg {
	w := make([]byte, 32)
	b := big.NewInt(v)
	if v < 0 {
		b.Add(b, new(big.Int).Lsh(big.NewInt(1), 256))
	}
	b.FillBytes(w)
	return abiArg{word: w}
}

func strArg(s string) abiArg { return abiArg{dynamic: []byte(s), isDyn: true} }

func wordArg(b []byte) abiArg { w := make([]byte, 32); copy(w, b); return abiArg{word: w} }

// encodeCall ABI-encodes a call of sig with args.
func encodeCall(sig string, args ...abiArg) []byte {
	h := crypto.Keccak256([]byte(sig))
	head := []byte{}
	tail := []byte{}
	for _, a := range args {
		if !a.isDyn {
			head = append(head, a.word...)
			continue
		}
		off := uintArg(int64(32*len(args) + len(tail)))
		head = append(head, off.word...)
		tail = append(tail, uintArg(int64(len(a.dynamic))).word...)
		padded := make([]byte, (len(a.dynamic)+31)/32*32)
		copy(padded, a.dynamic)
		tail = append(tail, padded...)
	}
	return append(append(h[:4:4], head...), tail...)
}

func TestDecodeConsole(t *testing.T) {
	addr := types.Address{0x5a, 0xae, 0xb6, 0x05, 0x3f, 0x3e, 0x94, 0xc9, 0xb9, 0xa0, 0x9f, 0x33, 0x66, 0x94, 0x35, 0xe7, 0xef, 0x1b, 0xea, 0xed}
	for _, tc := range []struct {
		name  string
		input []byte
		want  string
		err   error
	}{
		{"no arguments", encodeCall("log()"), "", nil},
		{"string", encodeCall("log(string)", strArg("Hello, world")), "Hello, world", nil},
		{"uint256", encodeCall("log(uint256)", uintArg(42)), "42", nil},
		{"legacy uint", encodeCall("log(uint)", uintArg(42)), "42", nil},
		{"negative int256", encodeCall("log(int256)", uintArg(-7)), "-7", nil},
		{"logInt legacy", encodeCall("logInt(int)", uintArg(-1)), "-1", nil},
		{"bool", encodeCall("log(bool)", uintArg(1)), "true", nil},
		{"address checksummed", encodeCall("log(address)", wordArg(append(make([]byte, 12), addr[:]...))),
			"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", nil},
		{"bytes", encodeCall("logBytes(bytes)", abiArg{dynamic: []byte{0xde, 0xad}, isDyn: true}), "0xdead", nil},
		{"bytes4 left-aligned", encodeCall("logBytes4(bytes4)", wordArg([]byte{1, 2, 3, 4})), "0x01020304", nil},
		{"no format: space separated", encodeCall("log(uint256,bool,uint256)", uintArg(1), uintArg(0), uintArg(3)), "1 false 3", nil},
		{"format %s and %d", encodeCall("log(string,string,uint256)", strArg("from %s to %d"), strArg("a"), uintArg(5)), "from a to 5", nil},
		{"leftover arguments follow", encodeCall("log(string,uint256)", strArg("value:"), uintArg(9)), "value: 9", nil},
		{"%% and a lone %", encodeCall("log(string,uint256)", strArg("100%% of %d%"), uintArg(3)), "100% of 3%", nil},
		{"%x and %e", encodeCall("log(string,uint256,uint256)", strArg("%x %e"), uintArg(255), uintArg(1230)), "0xff 1.23e3", nil},
		{"more verbs than arguments", encodeCall("log(string,uint256)", strArg("%s %s"), uintArg(1)), "1 %s", nil},
		{"unknown selector", []byte{1, 2, 3, 4}, "", ErrConsoleSelector},
		{"short input", []byte{0x41, 0x30}, "", ErrConsoleSelector},
		{"missing word", encodeCall("log(uint256)", uintArg(1))[:20], "", ErrConsoleArgs},
		{"string offset out of range", append(encodeCall("log(string)", strArg("x"))[:4:4], uintArg(1<<40).word...), "", ErrConsoleArgs},
		{"string length out of range", append(encodeCall("log(string)", strArg("x"))[:36:36], uintArg(1000).word...), "", ErrConsoleArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeConsole(tc.input)
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// FuzzDecodeConsole: no input makes the decoder panic or print a line for
// an unknown selector.
func FuzzDecodeConsole(f *testing.F) {
	f.Add(encodeCall("log(string,uint256)", strArg("x %d"), uintArg(1)))
	f.Add(encodeCall("log(address,string,bool,uint256)", uintArg(1), strArg("s"), uintArg(1), uintArg(2)))
	f.Add(encodeCall("logBytes(bytes)", abiArg{dynamic: bytes.Repeat([]byte{1}, 40), isDyn: true}))
	f.Add([]byte{0x41, 0x30, 0x4f, 0xac, 0xff})
	f.Fuzz(func(t *testing.T, input []byte) {
		line, err := DecodeConsole(input)
		if err != nil && line != "" {
			t.Fatalf("error %v with line %q", err, line)
		}
		if len(input) >= 4 {
			if _, known := consoleSigs[[4]byte(input[:4])]; !known && err == nil {
				t.Fatal("decoded an unknown selector")
			}
		}
	})
}
