package trietests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
)

// The full suite runs through "chaind conformance trie"; here one file is
// enough to keep the runner itself honest.
func TestTrieTestFile(t *testing.T) {
	dir := conformance.VectorsDir("../../..")
	if dir == "" {
		t.Skip("shared vectors (../shared/vectors) absent: TrieTests not run")
	}
	r := conformance.NewReport(nil)
	if err := RunFile(filepath.Join(dir, "ethereum-tests", "TrieTests", "trietest.json"), r); err != nil {
		t.Fatal(err)
	}
	if r.Failed != 0 || r.Passed == 0 {
		t.Fatalf("%d passed, %d failed", r.Passed, r.Failed)
	}
}

// A wrong root, a wrong neighbour and a malformed file must not pass.
func TestRunnerDetectsFailures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"trietest.json": `{"bad": {"in": [["do", "verb"]], "root": "0x0000000000000000000000000000000000000000000000000000000000000000"},
			"good": {"in": [["doe", "reindeer"], ["dog", "puppy"], ["dogglesworth", "cat"]],
			         "root": "0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3"}}`,
		"trietestnextprev.json": `{"t": {"in": ["a", "c"], "tests": [["b", "a", "c"], ["b", "", "c"]]}}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := conformance.NewReport(nil)
	if err := Run(dir, nil, r); err != nil {
		t.Fatal(err)
	}
	if r.Passed != 2 || r.Failed != 2 {
		t.Fatalf("%d passed, %d failed; want 2 and 2", r.Passed, r.Failed)
	}
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644)
	if err := Run(dir, nil, conformance.NewReport(nil)); err == nil {
		t.Fatal("malformed file accepted")
	}
}
