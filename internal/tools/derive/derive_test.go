package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const directive = "//go:generate go run github.com/chaind/chaind/internal/tools/derive "

// Every file derived in this module is what its template's directive
// derives now, so a fix made to a template is made to its copies.
func TestDerivedFilesUpToDate(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
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
		for sc.Scan() {
			args, ok := strings.CutPrefix(sc.Text(), directive)
			if !ok {
				continue
			}
			found++
			fields, err := splitArgs(args)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			// Read the derived file here too, so go test's cache knows
			// the result depends on it.
			for i, f := range fields {
				if f == "-out" && i+1 < len(fields) {
					if _, err := os.ReadFile(filepath.Join(filepath.Dir(path), fields[i+1])); err != nil {
						t.Errorf("%s: %v", path, err)
					}
				}
			}
			// derive reads -in and -out relative to the template's folder.
			cmd := exec.Command("go", append([]string{"run", mustAbs(t, ".")}, append(fields, "-check")...)...)
			cmd.Dir = filepath.Dir(path)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %v: %s", path, err, out)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no derive directive found: the walk is broken")
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// splitArgs splits a directive's arguments as go generate does: by
// spaces, with double-quoted strings kept whole.
func splitArgs(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, os.ErrInvalid
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
