// Package conformance holds what every conformance runner shares: a report
// that counts passed, failed and skipped cases and prints them in the one
// format scripts depend on, and helpers for reading vector files.
// The runners for each kind of vector live in subpackages.
package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Report accumulates case outcomes. It is safe for concurrent use.
type Report struct {
	mu      sync.Mutex
	Out     io.Writer // failure lines go here as they happen
	Verbose bool      // also print skipped cases
	JSON    bool      // print one JSON object per failed or skipped case instead of text

	Passed, Failed, Skipped int
	skipReasons             map[string]int
}

// NewReport returns a report that prints to out.
func NewReport(out io.Writer) *Report { return &Report{Out: out, skipReasons: map[string]int{}} }

// Pass records a passed case.
func (r *Report) Pass(name string) {
	r.mu.Lock()
	r.Passed++
	r.mu.Unlock()
}

// Fail records a failed case and prints why.
func (r *Report) Fail(name, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Failed++
	r.line("FAIL", name, fmt.Sprintf(format, args...))
}

// Skip records a skipped case. The reason is counted so Summary can say
// what was skipped and how often.
func (r *Report) Skip(name, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Skipped++
	if r.skipReasons == nil {
		r.skipReasons = map[string]int{}
	}
	r.skipReasons[reason]++
	if r.Verbose {
		r.line("SKIP", name, reason)
	}
}

func (r *Report) line(kind, name, why string) {
	if r.Out == nil {
		return
	}
	if r.JSON {
		b, _ := json.Marshal(map[string]string{"status": strings.ToLower(kind), "case": name, "reason": why})
		fmt.Fprintln(r.Out, string(b))
		return
	}
	fmt.Fprintf(r.Out, "%s %s: %s\n", kind, name, why)
}

// Summary prints the skip reasons (if any) and then the closing line,
// exactly "N passed, M failed, K skipped", which must stay last.
func (r *Report) Summary(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reasons := make([]string, 0, len(r.skipReasons))
	for k := range r.skipReasons {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(w, "skipped %d: %s\n", r.skipReasons[k], k)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", r.Passed, r.Failed, r.Skipped)
}

// JSONFiles lists the .json files below dir (or dir itself if it is a
// file), in lexical order.
func JSONFiles(dir string) ([]string, error) {
	return FilesWithSuffix(dir, ".json")
}

// FilesWithSuffix lists the files below dir with the given suffix, sorted.
func FilesWithSuffix(dir, suffix string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{dir}, nil
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// VectorsDir returns the shared vectors folder relative to the repository
// root (../shared/vectors), or "" when it is absent. Tests use it to skip
// with a clear message on machines without the vectors.
func VectorsDir(repoRoot string) string {
	d := filepath.Join(repoRoot, "..", "shared", "vectors")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}
