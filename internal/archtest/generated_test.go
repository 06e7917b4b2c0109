package archtest

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Near-identical code kept for speed is written by a generator from one
// template. Every generator of the module takes -check, and this test runs
// each //go:generate directive with it: a file edited by hand, or a
// template changed without go generate, fails here.
func TestGeneratedFilesUpToDate(t *testing.T) {
	const prefix = "//go:generate go run "
	found := 0
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), prefix)
			if !ok {
				continue
			}
			found++
			args, err := splitArgs(rest)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			dir := filepath.Dir(path)
			// Read what the generator reads and writes here as well, so
			// go test's cache knows the result depends on them (reads
			// in the child process are not seen).
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".go") {
					os.ReadFile(filepath.Join(dir, e.Name()))
				}
			}
			cmd := exec.Command("go", append(append([]string{"run"}, args...), "-check")...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: go run %s -check: %v\n%s", path, rest, err, out)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no go:generate directive found: the walk is broken")
	}
}

// splitArgs splits a directive's arguments as go generate does: at
// spaces, with double-quoted strings kept whole.
func splitArgs(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, errors.New("unterminated quoted argument")
			}
			out = append(out, s[1:end+1])
			s = s[end+2:]
			continue
		}
		f, rest, _ := strings.Cut(s, " ")
		out = append(out, f)
		s = rest
	}
	return out, nil
}
