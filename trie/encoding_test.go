package trie

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
)

// TestHexEncodeVectors checks the hex-prefix encoding against
// ethereum/tests BasicTests/hexencodetest.json.
func TestHexEncodeVectors(t *testing.T) {
	dir := conformance.VectorsDir("..")
	if dir == "" {
		t.Skip("shared vectors (../shared/vectors) absent: hexencodetest not run")
	}
	data, err := os.ReadFile(filepath.Join(dir, "ethereum-tests", "BasicTests", "hexencodetest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tests map[string]struct {
		Raw  []int  `json:"seq"`
		Term bool   `json:"term"`
		Out  string `json:"out"`
	}
	if err := json.Unmarshal(data, &tests); err != nil {
		t.Fatal(err)
	}
	if len(tests) == 0 {
		t.Fatal("no tests in hexencodetest.json")
	}
	for name, tc := range tests {
		nib := make([]byte, len(tc.Raw))
		for i, x := range tc.Raw {
			nib[i] = byte(x)
		}
		got := EncodeCompact(nib, tc.Term)
		if hex.EncodeToString(got) != tc.Out {
			t.Errorf("%s: got %x, want %s", name, got, tc.Out)
			continue
		}
		back, term, err := DecodeCompact(got)
		if err != nil || term != tc.Term || string(back) != string(nib) {
			t.Errorf("%s: decode gives %x %v %v", name, back, term, err)
		}
	}
}
