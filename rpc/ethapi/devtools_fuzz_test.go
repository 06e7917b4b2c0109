package ethapi

import (
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzDevQuantity: the helpers' number decoder never panics, and what it
// accepts is a number it reads back exactly.
func FuzzDevQuantity(f *testing.F) {
	for _, s := range []string{`"0x10"`, `16`, `"16"`, `"0x"`, `-1`, `1.5`, `"0xffffffffffffffffff"`, `null`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var q devQuantity
		if err := json.Unmarshal(in, &q); err != nil {
			return
		}
		var again devQuantity
		if err := json.Unmarshal([]byte(`"0x`+strconv.FormatUint(uint64(q), 16)+`"`), &again); err != nil || again != q {
			t.Fatalf("%s decoded to %d, which does not round-trip (%v)", in, q, err)
		}
	})
}

func TestDevQuantity(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{`"0x10"`, 16, true}, {`16`, 16, true}, {`"16"`, 16, true}, {`"0X1f"`, 31, true},
		{`"0x"`, 0, false}, {`-1`, 0, false}, {`1.5`, 0, false}, {`"0x1ffffffffffffffff"`, 0, false}, {`true`, 0, false},
	} {
		var q devQuantity
		err := json.Unmarshal([]byte(c.in), &q)
		if (err == nil) != c.ok || c.ok && uint64(q) != c.want {
			t.Errorf("%s: %d, %v; want %d ok=%v", c.in, q, err, c.want, c.ok)
		}
	}
}
