package explorer

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/backend"
)

// abiWords joins hex words of 32 bytes.
func abiWords(ws ...string) []byte {
	b, err := hex.DecodeString(strings.Join(ws, ""))
	if err != nil {
		panic(err)
	}
	return b
}

func word32(hexTail string) string { return strings.Repeat("0", 64-len(hexTail)) + hexTail }

// Arguments decode by type: static words, strings and arrays through
// their offsets; input that does not fit its types is refused whole.
func TestDecodeArgs(t *testing.T) {
	params := []backend.ABIParam{{Name: "who", Type: "address"}, {Name: "name", Type: "string"}, {Name: "ids", Type: "uint256[]"}, {Name: "option", Type: "uint8"}}
	good := abiWords(word32("abcd"), word32("80"), word32("c0"), word32("2"),
		word32("3"), "6869000000000000000000000000000000000000000000000000000000000000",
		word32("2"), word32("7"), word32("9"))
	args, ok := decodeArgs(params, good)
	if !ok {
		t.Fatal("valid input refused")
	}
	want := []string{"0x000000000000000000000000000000000000aBcD", "hi\x00", "[7, 9]", "2"}
	for i, a := range args {
		if !strings.EqualFold(a.Value, want[i]) {
			t.Errorf("arg %s = %s, want %s", a.Name, a.Value, want[i])
		}
	}
	for name, bad := range map[string][]byte{
		"short":                  good[:100],
		"offset past the end":    abiWords(word32("abcd"), word32("ffff"), word32("c0"), word32("2")),
		"address with high bits": abiWords("ff"+word32("abcd")[2:], word32("80"), word32("c0"), word32("2")),
		"uint8 over 255":         abiWords(word32("abcd"), word32("80"), word32("c0"), word32("100"), word32("0"), word32("0")),
	} {
		if _, ok := decodeArgs(params, bad); ok {
			t.Errorf("%s: decoded", name)
		}
	}
}

func FuzzDecodeArgs(f *testing.F) {
	params := []backend.ABIParam{{Name: "a", Type: "address"}, {Name: "s", Type: "string"}, {Name: "v", Type: "uint256[]"}, {Name: "b", Type: "bytes"}}
	f.Add([]byte{})
	f.Add(abiWords(word32("1"), word32("80"), word32("c0"), word32("e0"), word32("0"), word32("0"), word32("0")))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeArgs(params, data) // must not panic or read out of bounds
	})
}
