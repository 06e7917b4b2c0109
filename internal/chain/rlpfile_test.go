package chain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
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

// FuzzCountBlocks: whenever ReadBlocks reads a file whole, CountBlocks
// counts the same number of blocks.
func FuzzCountBlocks(f *testing.F) {
	f.Add([]byte{0xC1, 0x80, 0xC0})
	f.Add(append([]byte{0xF8, 3}, 1, 2, 3))
	if b, err := DevGenesis(1337, nil, 1).Commit(trie.NewMemoryDB()); err == nil {
		f.Add(append(b.EncodeRLP(), b.EncodeRLP()...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		read := 0
		if err := ReadBlocks(bytes.NewReader(data), func(*types.Block) error { read++; return nil }); err != nil {
			return
		}
		if n, err := CountBlocks(bytes.NewReader(data)); n != read || err != nil {
			t.Fatalf("CountBlocks = %d, %v; ReadBlocks read %d", n, err, read)
		}
	})
}
