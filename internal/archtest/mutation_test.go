package archtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMutations breaks each rule on purpose and requires check to say so:
// a rule whose check stops catching what it names fails here, not in
// review. Each case is the real module graph with one change: source files
// from testdata/mutants/<name>/<package path>/ added to that package (as
// if written there), imports added, or a package dropped. want is a piece
// of the line check must add; "" means the change is allowed and check
// must report exactly what it reports for the module as it is.
func TestMutations(t *testing.T) {
	const mod = module + "/"
	for _, tc := range []struct {
		name    string
		imports [][2]string // importer (below the module) -> import path
		drop    string      // a package removed from the graph
		want    string
	}{
		// Source mutations (testdata/mutants/<name>).
		{name: "lcd-imports-staking", want: "lcd reaches internal/staking (lcd -> internal/staking): interface packages"},
		{name: "explorer-imports-p2p", want: "explorer reaches p2p (explorer -> p2p): interface packages"},
		{name: "consensus-imports-math-rand", want: "consensus reaches math/rand (consensus -> math/rand): the consensus core draws no randomness"},
		{name: "consensus-imports-math-rand-v2", want: "consensus reaches math/rand/v2 (consensus -> math/rand/v2): the consensus core draws no randomness"},
		{name: "consensus-imports-crypto-rand", want: "consensus reaches crypto/rand (consensus -> crypto/rand): the consensus core draws no randomness"},
		{name: "consensus-aliased-clock", want: "consensus/mutant.go:6:29: reads the clock (tm.Now, package time): the consensus core"},
		{name: "consensus-dot-time", want: "consensus/mutant.go:3:8: dot-imports time"},
		{name: "consensus-goroutine", want: "consensus/mutant.go:3:24: starts a goroutine"},
		{name: "shadowed-time-is-not-the-clock"},
		{name: "time-types-are-not-the-clock"},
		// Transitive: the package that breaks the rule is allowed to be
		// imported; the line names the bound package and the chain.
		{name: "consensus-rand-via-types", want: "consensus reaches math/rand (consensus -> internal/types -> math/rand)"},
		{name: "consensus-clock-via-types", want: "reads the clock (time.Now, package time) (in internal/types, which consensus reaches)"},
		{name: "lcd-staking-via-front", want: "lcd reaches internal/staking (lcd -> internal/front -> internal/staking)"},
		{name: "unplaced-package", want: `package newpkg has no layer: add a line {"newpkg", N} to the layers table`},

		// Import mutations.
		{name: "upward", imports: [][2]string{{"rlp", mod + "internal/types"}}, want: "rlp (layer 1) imports internal/types (layer 2): imports point down only"},
		{name: "same layer, other tree", imports: [][2]string{{"evm", mod + "state"}}, want: "evm imports state of its own layer 3 outside its tree"},
		{name: "pool and chain stay apart", imports: [][2]string{{"internal/txpool", mod + "internal/chain"}}, want: "internal/txpool imports internal/chain of its own layer 4"},
		{name: "chain below node", imports: [][2]string{{"internal/chain", mod + "internal/node"}}, want: "internal/chain (layer 4) imports internal/node (layer 9)"},
		{name: "interface runs the EVM", imports: [][2]string{{"rpc/ethapi", mod + "evm"}}, want: "rpc/ethapi reaches evm (rpc/ethapi -> evm)"},
		{name: "interface past the backend", imports: [][2]string{{"rpc", mod + "internal/chain"}}, want: "rpc reaches internal/chain (rpc -> internal/chain)"},
		{name: "interface reaches the EVM through staking", imports: [][2]string{{"lcd", mod + "internal/staking"}}, want: "lcd reaches evm (lcd -> internal/staking -> "},
		{name: "interfaces apart", imports: [][2]string{{"lcd", mod + "rpc"}}, want: "lcd imports rpc of its own layer 8 outside its tree"},
		{name: "backend is neutral", imports: [][2]string{{"internal/backend", mod + "internal/chain"}}, want: "internal/backend reaches internal/chain (internal/backend -> internal/chain): neutral packages"},
		{name: "consensus store", imports: [][2]string{{"consensus", mod + "internal/store"}}, want: "consensus reaches internal/store (consensus -> internal/store): the consensus core does no I/O"},
		{name: "consensus os", imports: [][2]string{{"consensus/cycle", "os"}}, want: "consensus/cycle reaches os (consensus/cycle -> os): the consensus core does no I/O"},
		{name: "consensus os via types", imports: [][2]string{{"internal/types", "net/http"}}, want: "consensus reaches net/http (consensus -> internal/types -> net/http)"},
		{name: "external module", imports: [][2]string{{"trie", "github.com/cockroachdb/pebble"}}, want: "trie imports github.com/cockroachdb/pebble, which is not among the main module's dependencies"},
		{name: "stale table entry", drop: "internal/h2", want: `table entry "internal/h2" matches no package`},
		{name: "namespace uses its transport", imports: [][2]string{{"rpc/ethapi", mod + "rpc"}}},
		{name: "interface uses the backend", imports: [][2]string{{"lcd", mod + "internal/backend"}}},
		{name: "simulator uses the cycle", imports: [][2]string{{"consensus/sim", mod + "consensus/cycle"}}},
		{name: "node wires an interface", imports: [][2]string{{"internal/node", mod + "rpc/ethapi"}}},
		{name: "binary wires the node", imports: [][2]string{{"cmd/chaind", mod + "internal/node"}}},
		{name: "the chain owns the engine interface, not the engine", imports: [][2]string{{"internal/chain", mod + "internal/pos"}}, want: "internal/chain (layer 4) imports internal/pos (layer 5)"},
		{name: "interface past the engine", imports: [][2]string{{"rpc", mod + "internal/pos"}}, want: "rpc reaches internal/pos (rpc -> internal/pos)"},
		{name: "engine over the chain and staking", imports: [][2]string{{"internal/pos", mod + "internal/chain"}, {"internal/pos", mod + "internal/staking"}}},
		{name: "engine under the backend", imports: [][2]string{{"internal/pos", mod + "internal/backend"}}, want: "internal/pos (layer 5) imports internal/backend (layer 6): imports point down only"},
		{name: "reactors under the node", imports: [][2]string{{"internal/protocol/relay", mod + "internal/node"}}, want: "internal/protocol/relay (layer 5) imports internal/node (layer 9)"},
		{name: "engine and reactors apart", imports: [][2]string{{"internal/pos", mod + "internal/protocol/wire"}}, want: "internal/pos imports internal/protocol/wire of its own layer 5 outside its tree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := moduleGraph(t)
			before := check(base)
			g := base.clone()
			files := 0
			dir := filepath.Join("testdata", "mutants", tc.name)
			if _, err := os.Stat(dir); err == nil {
				err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
						return err
					}
					src, err := os.ReadFile(path)
					if err != nil {
						return err
					}
					files++
					pkgDir, _ := filepath.Rel(dir, filepath.Dir(path))
					return g.addFile(filepath.ToSlash(pkgDir), d.Name(), src)
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range tc.imports {
				p := g.pkgs[e[0]]
				if p == nil {
					t.Fatalf("no package %s in the module", e[0])
				}
				p.imports = append(p.imports, e[1])
			}
			if tc.drop != "" {
				if g.pkgs[tc.drop] == nil {
					t.Fatalf("no package %s in the module", tc.drop)
				}
				delete(g.pkgs, tc.drop)
			}
			if files == 0 && tc.imports == nil && tc.drop == "" {
				t.Fatalf("case changes nothing: no files under %s, no imports, no drop", dir)
			}
			after := check(g)
			var added []string
			for _, l := range after {
				if !slices.Contains(before, l) {
					added = append(added, l)
				}
			}
			if tc.want == "" {
				if len(added) > 0 || len(after) != len(before) {
					t.Errorf("an allowed change was reported:\n%s", strings.Join(added, "\n"))
				}
				return
			}
			if !slices.ContainsFunc(added, func(l string) bool { return strings.Contains(l, tc.want) }) {
				t.Errorf("check missed the mutation; want a line with %q, got:\n%s", tc.want, strings.Join(added, "\n"))
			}
		})
	}
}

// TestMutantsListed: every directory under testdata/mutants is a case of
// TestMutations, so none lies there unchecked.
func TestMutantsListed(t *testing.T) {
	src, err := os.ReadFile("mutation_test.go")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "mutants"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.Contains(string(src), `{name: "`+e.Name()+`"`) {
			t.Errorf("testdata/mutants/%s is no case of TestMutations", e.Name())
		}
	}
}
