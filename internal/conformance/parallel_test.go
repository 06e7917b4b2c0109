package conformance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Outcomes are recorded in file order whatever order the workers finish
// in, and an outcome whose kind was never set counts as a failure.
func TestRunFilesOrderAndKinds(t *testing.T) {
	files := []string{"a", "b", "c", "d"}
	var out bytes.Buffer
	r := NewReport(&out)
	r.Verbose = true
	RunFiles(files, 4, []int{3, 2, 1, 0}, func(path string) []Outcome {
		switch path {
		case "a":
			return []Outcome{Passed("a/1"), Failed("a/2", "bad %d", 2)}
		case "b":
			return []Outcome{Skipped("b/1", "not here")}
		case "c":
			return []Outcome{{Name: "c/1"}} // kind never set
		}
		return []Outcome{Passed("d/1")}
	}, r)
	if r.Passed != 2 || r.Failed != 2 || r.Skipped != 1 {
		t.Fatalf("counted %d/%d/%d, want 2 passed, 2 failed, 1 skipped", r.Passed, r.Failed, r.Skipped)
	}
	text := out.String()
	if i, j, k := strings.Index(text, "a/2"), strings.Index(text, "b/1"), strings.Index(text, "c/1"); !(i >= 0 && i < j && j < k) {
		t.Fatalf("outcomes not in file order:\n%s", text)
	}
}

// EachCase hands the cases of each file in name order and refuses a
// folder without case files.
func TestEachCase(t *testing.T) {
	dir := t.TempDir()
	if err := EachCase(dir, func(string, string, int) error { return nil }); err == nil {
		t.Fatal("an empty folder passed")
	}
	os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"zeta": 3, "alpha": 1, "mid": 2}`), 0o644)
	var got []string
	err := EachCase(dir, func(path, name string, v int) error {
		got = append(got, fmt.Sprintf("%s=%d", name, v))
		return nil
	})
	if err != nil || strings.Join(got, ",") != "alpha=1,mid=2,zeta=3" {
		t.Fatalf("got %v, %v", got, err)
	}
}
