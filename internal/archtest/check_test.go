package archtest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/chaind/chaind"

// pkg is one package of the module as the checker sees it: its path below
// the module, its imports (full import paths) and, for the packages whose
// code is read, the parsed files.
type pkg struct {
	path    string
	imports []string
	files   []*ast.File
}

// graph is the module's packages by path below the module. The real test
// builds it with go list; the mutation tests build it the same way and then
// break one rule, so both run through check.
type graph struct {
	fset *token.FileSet
	pkgs map[string]*pkg
}

// clone copies g deeply enough that a mutation of the copy (an import or a
// file added, a package added) leaves g as it was.
func (g *graph) clone() *graph {
	c := &graph{fset: g.fset, pkgs: make(map[string]*pkg, len(g.pkgs))}
	for k, p := range g.pkgs {
		c.pkgs[k] = &pkg{path: p.path, imports: slices.Clone(p.imports), files: slices.Clone(p.files)}
	}
	return c
}

// addFile parses src as a file of the module package at path (made if the
// graph has none) and adds its imports to the package's.
func (g *graph) addFile(path, name string, src []byte) error {
	f, err := parser.ParseFile(g.fset, path+"/"+name, src, 0)
	if err != nil {
		return err
	}
	p := g.pkgs[path]
	if p == nil {
		p = &pkg{path: path}
		g.pkgs[path] = p
	}
	p.files = append(p.files, f)
	for _, is := range f.Imports {
		imp, _ := strconv.Unquote(is.Path.Value)
		if !slices.Contains(p.imports, imp) {
			p.imports = append(p.imports, imp)
		}
	}
	return nil
}

var (
	loadOnce  sync.Once
	loaded    *graph
	loadError error
)

// moduleGraph lists the module's packages once per test binary; callers
// clone it before changing it.
func moduleGraph(t *testing.T) *graph {
	t.Helper()
	loadOnce.Do(func() { loaded, loadError = load() })
	if loadError != nil {
		t.Fatal(loadError)
	}
	return loaded
}

// load runs go list over the module and parses the files of every package
// whose code the source rules read (see sourceRead).
func load() (*graph, error) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	type listed struct {
		ImportPath string
		Dir        string
		GoFiles    []string
		Imports    []string
	}
	g := &graph{fset: token.NewFileSet(), pkgs: map[string]*pkg{}}
	var dirs = map[string]listed{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			return nil, err
		}
		r, ok := rel(l.ImportPath)
		if !ok {
			continue
		}
		g.pkgs[r] = &pkg{path: r, imports: l.Imports}
		dirs[r] = l
	}
	if len(g.pkgs) < 20 {
		return nil, fmt.Errorf("go list found %d packages; the walk is broken", len(g.pkgs))
	}
	for r := range g.sourceRead() {
		for _, f := range dirs[r].GoFiles {
			file, err := parser.ParseFile(g.fset, filepath.Join(dirs[r].Dir, f), nil, 0)
			if err != nil {
				return nil, err
			}
			g.pkgs[r].files = append(g.pkgs[r].files, file)
		}
	}
	return g, nil
}

// rel strips the module path; ok is false for packages outside the module.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// matches reports whether pkg is pattern or, for a pattern ending in
// "/...", in its tree.
func matches(pattern, pkg string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == tree || strings.HasPrefix(pkg, tree+"/")
	}
	return pkg == pattern
}

func matchesAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, pkg) })
}

// place returns a package's layer and the table entry that placed it.
func place(pkg string) (layer int, entry string, ok bool) {
	for _, l := range layers {
		if matches(l.pkg, pkg) {
			return l.layer, l.pkg, true
		}
	}
	return 0, "", false
}

// bound returns the rules that bind package p.
func bound(p string) []*rule {
	var out []*rule
	for i := range rules {
		r := &rules[i]
		if matchesAny(r.from, p) && !matchesAny(r.except, p) {
			out = append(out, r)
		}
	}
	return out
}

// sourceRead returns the packages whose code some rule reads: the
// packages a source rule binds and every module package they reach.
func (g *graph) sourceRead() map[string]bool {
	read := map[string]bool{}
	for p := range g.pkgs {
		if !slices.ContainsFunc(bound(p), func(r *rule) bool { return r.source }) {
			continue
		}
		read[p] = true
		for q := range g.reach(p) {
			read[q] = true
		}
	}
	return read
}

// reach returns the module packages p imports through any chain, each
// with the package that imports it on a shortest chain from p ("" marks
// p itself, which is absent from the map).
func (g *graph) reach(p string) map[string]string {
	parent := map[string]string{}
	queue := []string{p}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		n := g.pkgs[q]
		if n == nil {
			continue
		}
		for _, imp := range n.imports {
			r, ours := rel(imp)
			if !ours || r == p {
				continue
			}
			if _, seen := parent[r]; !seen {
				parent[r] = q
				queue = append(queue, r)
			}
		}
	}
	return parent
}

// chain spells the shortest import chain from p to q.
func chain(parent map[string]string, p, q string) string {
	path := []string{q}
	for at := q; at != p; {
		at = parent[at]
		path = append(path, at)
	}
	slices.Reverse(path)
	return strings.Join(path, " -> ")
}

// check returns every way g breaks the table and the rules, one line each,
// sorted. It is the one checker: TestArchitecture runs it on the module as
// it is, TestMutations on the module with one rule broken.
func check(g *graph) []string {
	var bad []string
	report := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	names := make([]string, 0, len(g.pkgs))
	for p := range g.pkgs {
		names = append(names, p)
	}
	slices.Sort(names)

	// Every table entry places a package that exists, so the table stays
	// a true map of the module.
	for _, l := range layers {
		if !slices.ContainsFunc(names, func(p string) bool { return matches(l.pkg, p) }) {
			report("table entry %q matches no package of the module: remove it or fix its path", l.pkg)
		}
	}

	for _, p := range names {
		n := g.pkgs[p]
		lp, ep, ok := place(p)
		if !ok {
			report("package %s has no layer: add a line {%q, N} to the layers table in internal/archtest/layers_test.go, N being the layer it belongs to", p, p)
			continue
		}
		// Direct imports: layers point down, externals are on the list.
		// Down is transitive by itself, so one step is enough here.
		for _, imp := range n.imports {
			if r, ours := rel(imp); ours {
				lm, em, ok := place(r)
				switch {
				case !ok:
					// reported once as an unplaced package
				case lm > lp:
					report("%s (layer %d) imports %s (layer %d): imports point down only", p, lp, r, lm)
				case lm == lp && ep != em:
					// One tree (evm/..., rpc/...) may import within
					// itself; two packages placed apart on one layer
					// stay apart.
					report("%s imports %s of its own layer %d outside its tree", p, r, lp)
				}
				continue
			}
			if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
				if !slices.ContainsFunc(allowedModules, func(m string) bool { return imp == m || strings.HasPrefix(imp, m+"/") }) {
					report("%s imports %s, which is not among the main module's dependencies", p, imp)
				}
			}
		}

		rs := bound(p)
		if len(rs) == 0 {
			continue
		}
		parent := g.reach(p)
		reached := make([]string, 0, len(parent)+1)
		reached = append(reached, p)
		for q := range parent {
			reached = append(reached, q)
		}
		slices.Sort(reached[1:])
		for _, r := range rs {
			for _, q := range reached {
				if q != p && slices.Contains(bound(q), r) {
					continue // q answers for itself and for what it reaches
				}
				qn := g.pkgs[q]
				if q != p {
					lq, _, _ := place(q)
					if matchesAny(r.forbid, q) || (r.maxLayer > 0 && lq > r.maxLayer) {
						report("%s reaches %s (%s): %s", p, q, chain(parent, p, q), r.name)
					}
				}
				if qn == nil {
					continue
				}
				for _, imp := range qn.imports {
					if _, ours := rel(imp); ours || !matchesAny(r.std, imp) {
						continue
					}
					if _, ok := r.trust[[2]string{q, imp}]; ok && q != p {
						continue
					}
					via := p
					if q != p {
						via = chain(parent, p, q)
					}
					report("%s reaches %s (%s -> %s): %s", p, imp, via, imp, r.name)
				}
				if r.source {
					for _, f := range qn.files {
						for _, why := range readsClock(g.fset, f) {
							if q == p {
								report("%s: %s", why, r.name)
							} else {
								report("%s (in %s, which %s reaches): %s", why, q, p, r.name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// clockFuncs are the functions of package time that read the clock or
// wait on it; the types and constants (time.Duration, time.Second) are
// fine, as they only name amounts.
var clockFuncs = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick"}

// readsClock returns where f starts a goroutine or reads the clock. The
// clock is found by import path, not by name: `import tm "time"` and a
// call to tm.Now are caught, and a local variable that happens to be
// called time is not.
func readsClock(fset *token.FileSet, f *ast.File) []string {
	var out []string
	local := map[string]bool{}
	for _, is := range f.Imports {
		if path, _ := strconv.Unquote(is.Path.Value); path != "time" {
			continue
		}
		switch {
		case is.Name == nil:
			local["time"] = true
		case is.Name.Name == ".":
			out = append(out, fmt.Sprintf("%s: dot-imports time, which hides clock reads", fset.Position(is.Pos())))
		case is.Name.Name != "_":
			local[is.Name.Name] = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fmt.Sprintf("%s: starts a goroutine", fset.Position(n.Pos())))
		case *ast.SelectorExpr:
			// An identifier the parser resolved is declared in this
			// file (a variable, a parameter), not the package name.
			if id, ok := n.X.(*ast.Ident); ok && id.Obj == nil && local[id.Name] && slices.Contains(clockFuncs, n.Sel.Name) {
				out = append(out, fmt.Sprintf("%s: reads the clock (%s.%s, package time)", fset.Position(n.Pos()), id.Name, n.Sel.Name))
			}
		}
		return true
	})
	return out
}
