package chain

import (
	"bytes"
	"strings"
	"testing"
)

// TestCountBlocks counts short- and long-form list items by their prefixes
// and reports a truncated or non-list item.
func TestCountBlocks(t *testing.T) {
	long := append([]byte{0xF8, 60}, bytes.Repeat([]byte{0x80}, 60)...)
	for _, tc := range []struct {
		name string
		data []byte
		want int
		err  string
	}{
		{"empty", nil, 0, ""},
		{"short", []byte{0xC1, 0x80, 0xC0}, 2, ""},
		{"long", append(append([]byte{0xC0}, long...), long...), 3, ""},
		{"truncated", append([]byte{0xC0}, long[:30]...), 1, "block 1 in file: truncated"},
		{"not a list", []byte{0xC0, 0x05}, 1, "block 1 in file"},
	} {
		n, err := CountBlocks(bytes.NewReader(tc.data))
		if n != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %d, %v; want %d, %q", tc.name, n, err, tc.want, tc.err)
		}
	}
}
