// Package archtest keeps the shape of the module: imports only ever point
// down the layers, the interface packages reach the node through the
// neutral backend alone, the consensus core does no I/O, and the main
// module depends on nothing beyond its short list.
package archtest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/chaind/chaind"

// layers maps every package of the module (by path below the module, a
// trailing "/..." covering a tree) to its layer. A package missing here
// fails the test: a new package must be placed before it is used.
var layers = []struct {
	pkg   string
	layer int
}{
	// 1: nothing of ours below.
	{"rlp", 1}, {"internal/crypto/...", 1}, {"internal/forks", 1}, {"internal/store", 1},
	{"internal/bech32", 1}, {"internal/protobuf", 1}, {"internal/jwt", 1}, {"internal/metrics", 1},
	// 2: shared types and the trie.
	{"internal/types", 2}, {"trie", 2},
	// 3: world state and the EVM (which defines the state interface it needs).
	{"state/...", 3}, {"evm/...", 3},
	// 4: the chain (one executor, genesis, forks schedule, store), the pool,
	// consensus (pure), p2p.
	{"internal/chain", 4}, {"internal/txpool", 4}, {"consensus/...", 4}, {"p2p/...", 4},
	{"internal/staking", 4},
	// 5: the neutral backend and the one HTTP front, then the interface
	// packages above them.
	{"internal/backend", 5}, {"internal/front", 5},
	{"internal/h2", 5}, // the HTTP/2 server of the gRPC port
	// 6: the Cosmos-style query handlers the REST and gRPC packages share.
	{"internal/query/...", 6},
	{"rpc/...", 7}, {"graphql/...", 7}, {"internal/graphql/...", 7}, {"lcd/...", 7}, {"grpcsrv/...", 7}, {"explorer/...", 7},
	// 8: the node wires everything; tools and the binary sit on top.
	{"internal/node/...", 8},
	{"internal/devload", 9}, {"internal/conformance/...", 9}, {"internal/archtest", 9}, {"internal/tools/...", 9},
	{"cmd/...", 10},
}

// neutralPackages sit under every interface package; they import nothing
// of the node above layer 2, so any interface can share them.
var neutralPackages = []string{"internal/backend", "internal/front", "internal/h2"}

// interfacePackages reach the node only through internal/backend.
var interfacePackages = []string{"internal/query/...", "rpc/...", "graphql/...", "internal/graphql/...", "lcd/...", "grpcsrv/...", "explorer/..."}

// interfaceForbidden are the packages an interface package must not import:
// running the EVM or reading state goes through the backend.
var interfaceForbidden = []string{"evm/...", "state", "trie", "internal/chain", "internal/txpool", "internal/store", "consensus/...", "internal/node/..."}

// ioPackages are standard library packages that do I/O, start processes or
// read the clock's side effects; the consensus core imports none of them.
var ioPackages = []string{"os", "os/...", "net", "net/...", "io/fs", "io/ioutil", "syscall", "log", "log/...", "path/filepath", "runtime/pprof", "internal/store", "internal/node/..."}

// allowedModules are the main module's dependencies besides the standard
// library.
var allowedModules = []string{
	"golang.org/x/crypto", "golang.org/x/sys", "github.com/holiman/uint256",
	"github.com/decred/dcrd/dcrec/secp256k1/v4", "github.com/coder/websocket",
}

type pkgInfo struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Standard   bool
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkgInfo
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; the walk is broken", len(pkgs))
	}
	return pkgs
}

// rel strips the module path; ok is false for packages outside the module.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

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

func layerOf(pkg string) (int, bool) {
	l, _, ok := place(pkg)
	return l, ok
}

// checkImport returns why importer may not import imported, or "".
func checkImport(importer, imported string) string {
	li, ei, ok1 := place(importer)
	lm, em, ok2 := place(imported)
	switch {
	case !ok1:
		return fmt.Sprintf("%s has no layer in archtest", importer)
	case !ok2:
		return fmt.Sprintf("%s has no layer in archtest", imported)
	case lm > li:
		return fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports point down only", importer, li, imported, lm)
	case lm == li && ei != em:
		// One tree (evm/..., rpc/...) may import within itself; two
		// packages placed apart on one layer stay apart.
		return fmt.Sprintf("%s imports %s of its own layer %d outside its tree", importer, imported, li)
	case matchesAny(neutralPackages, importer) && lm > 2:
		return fmt.Sprintf("neutral package %s imports %s (layer %d): it may use layers 1-2 only", importer, imported, lm)
	case matchesAny(interfacePackages, importer) && matchesAny(interfaceForbidden, imported):
		return fmt.Sprintf("interface package %s imports %s: go through internal/backend", importer, imported)
	case matches("consensus/...", importer) && matchesAny(ioPackages, imported):
		return fmt.Sprintf("consensus package %s imports %s, which does I/O", importer, imported)
	}
	return ""
}

func TestLayers(t *testing.T) {
	for _, p := range listPackages(t) {
		importer, _ := rel(p.ImportPath)
		if _, ok := layerOf(importer); !ok {
			t.Errorf("package %s has no layer: place it in archtest's table", importer)
			continue
		}
		for _, imp := range p.Imports {
			if r, ours := rel(imp); ours {
				if why := checkImport(importer, r); why != "" {
					t.Error(why)
				}
				continue
			}
			if matches("consensus/...", importer) && matchesAny(ioPackages, imp) {
				t.Errorf("consensus package %s imports %s, which does I/O", importer, imp)
			}
			if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
				if !slices.ContainsFunc(allowedModules, func(m string) bool { return imp == m || strings.HasPrefix(imp, m+"/") }) {
					t.Errorf("%s imports %s, which is not among the main module's dependencies", importer, imp)
				}
			}
		}
	}
}

// TestConsensusIsPure: besides its imports, the consensus code starts no
// goroutines and reads no clock: time comes in as timeout events.
func TestConsensusIsPure(t *testing.T) {
	clock := []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick"}
	checked := 0
	for _, p := range listPackages(t) {
		r, _ := rel(p.ImportPath)
		if !matches("consensus/...", r) {
			continue
		}
		for _, f := range p.GoFiles {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: consensus starts a goroutine", fset.Position(n.Pos()))
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && slices.Contains(clock, n.Sel.Name) {
						t.Errorf("%s: consensus reads the clock (time.%s)", fset.Position(n.Pos()), n.Sel.Name)
					}
				}
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("no consensus source files found")
	}
}

// TestRules: each rule of checkImport catches what it is meant to catch.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		importer, imported string
		bad                bool
	}{
		{"internal/types", "rlp", false},
		{"rlp", "internal/types", true},  // upward
		{"evm", "state", true},           // same layer, other tree
		{"evm", "evm/precompile", false}, // same tree
		{"rpc/ethapi", "rpc", false},     // a transport's namespaces
		{"rpc/ethapi", "internal/backend", false},
		{"rpc/ethapi", "evm", true},                  // interface package running the EVM itself
		{"rpc", "internal/chain", true},              // interface package past the backend
		{"lcd", "rpc", true},                         // interface packages never import each other
		{"internal/backend", "internal/chain", true}, // the backend is neutral
		{"internal/backend", "internal/types", false},
		{"internal/backend", "rpc", true},
		{"consensus", "internal/store", true}, // I/O in consensus
		{"consensus/sim", "consensus", false},
		{"consensus/sim", "consensus/cycle", false},
		{"internal/txpool", "internal/chain", true}, // same layer, apart
		{"internal/chain", "internal/node", true},
		{"internal/node", "rpc/ethapi", false},
		{"cmd/chaind", "internal/node", false},
		{"newpkg", "rlp", true}, // unplaced package
	} {
		why := checkImport(tc.importer, tc.imported)
		if (why != "") != tc.bad {
			t.Errorf("%s -> %s: got %q, want bad=%v", tc.importer, tc.imported, why, tc.bad)
		}
	}
}
