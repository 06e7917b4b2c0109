// Package archtest keeps the shape of the module: imports only ever point
// down the layers, the interface packages reach the node through the
// neutral backend alone, the consensus core does no I/O, reads no clock and
// draws no randomness, and the main module depends on nothing beyond its
// short list.
//
// The layers table and the rules below are the whole policy; check (in
// check_test.go) is the one function that applies them, both to the module
// as it is (TestArchitecture) and to the module with a rule broken on
// purpose (TestMutations), so a rule that stops catching what it names
// fails the tests.
package archtest

import (
	"strings"
	"testing"
)

// layers maps every package of the module (by path below the module, a
// trailing "/..." covering a tree) to its layer. A package missing here
// fails the test: a new package must be placed before it is used. One
// line places one package or tree; the first matching line wins.
var layers = []struct {
	pkg   string
	layer int
}{
	// 1: nothing of ours below.
	{"rlp", 1}, {"internal/crypto/...", 1}, {"internal/forks", 1}, {"internal/store", 1},
	{"internal/bech32", 1}, {"internal/protobuf", 1}, {"internal/jwt", 1}, {"internal/metrics", 1},
	{"internal/version", 1},
	{"internal/fdlimit", 1},  // the open-file limit and its budget
	{"internal/twogen", 1},   // the read caches' one bounded cache
	{"internal/benchpar", 1}, // readers-beside-a-writer benchmark harness (test files only)
	// 2: shared types and the trie.
	{"internal/types", 2}, {"trie", 2},
	// 3: world state and the EVM (which defines the state interface it needs).
	{"state/...", 3},
	// The tracers sit on the EVM (its hooks and StateDB), above it.
	{"evm/tracers", 4},
	{"evm/...", 3},
	// 4: the chain (one executor, genesis, forks schedule, store), the pool,
	// consensus (pure), p2p.
	{"internal/chain", 4}, {"internal/txpool", 4}, {"consensus/...", 4}, {"p2p/...", 4},
	{"internal/staking", 4},
	// 5: what sits on several of layer 4, which are kept apart from each
	// other: the chain's own rules (the proof-of-stake engine implementing
	// internal/chain's Engine over the chain, staking and consensus) and
	// the node's protocol on p2p (the wire format and one reactor per
	// concern, over p2p, consensus and the chain).
	{"internal/pos", 5}, {"internal/protocol/...", 5},
	// 6: the neutral backend and the one HTTP front, under the interface
	// packages.
	{"internal/backend", 6}, {"internal/front", 6},
	{"internal/h2", 6}, // the HTTP/2 server of the gRPC port
	// 7: the Cosmos-style query handlers the REST and gRPC packages share.
	{"internal/query/...", 7},
	// 8: the interface packages.
	{"rpc/...", 8}, {"internal/graphql/...", 8}, {"lcd/...", 8}, {"grpcsrv/...", 8}, {"explorer/...", 8},
	{"cometrpc/...", 8}, // the read-only CometBFT RPC
	// 9: the node wires everything; tools and the binary sit on top.
	// One tree, so its packages may import each other: the wiring (the
	// root), bft, the backends (ethbackend, stakebackend), the chain as the
	// backends read it with a dev node's overlay (chainview), the dev
	// helpers (dev), the fork upstream (fork), the p2p membership (p2pnet)
	// and the pruning passes (prune).
	{"internal/node/...", 9},
	{"internal/devload", 10}, {"internal/conformance/...", 10}, {"internal/archtest", 10}, {"internal/tools/...", 10},
	{"cmd/...", 11},
}

// neutralPackages sit under every interface package; they import nothing
// of the node above layer 2, so any interface can share them.
var neutralPackages = []string{"internal/backend", "internal/front", "internal/h2"}

// interfacePackages reach the node only through internal/backend.
var interfacePackages = []string{"internal/query/...", "cometrpc/...", "rpc/...", "internal/graphql/...", "lcd/...", "grpcsrv/...", "explorer/..."}

// interfaceForbidden are the packages an interface package must not reach:
// running the EVM, reading state, staking or the network goes through the
// backend.
var interfaceForbidden = []string{
	"evm/...", "state", "trie", "internal/chain", "internal/pos", "internal/txpool", "internal/store",
	"internal/staking", "consensus/...", "p2p/...", "internal/node/...",
}

// ioPackages are the standard library packages that do I/O or start
// processes, and the module packages that do; the consensus core reaches
// none of them.
var (
	ioPackages     = []string{"os", "os/...", "net", "net/...", "io/fs", "io/ioutil", "syscall", "log", "log/...", "path/filepath", "runtime/pprof"}
	ioOfOurs       = []string{"internal/store", "internal/node/...", "p2p/..."}
	randomPackages = []string{"math/rand", "math/rand/v2", "crypto/rand"}
)

// rule is one constraint on what the packages it binds may reach. Module
// packages (forbid, maxLayer) and standard library packages (std) count
// when reached through any chain of the module's imports, not only when
// imported directly: an interface package importing a helper that imports
// the EVM runs the EVM all the same.
type rule struct {
	name     string
	from     []string // the packages bound (patterns as in layers)
	except   []string // packages of from that the rule leaves alone, each said why below
	forbid   []string // module packages they must not reach
	maxLayer int      // if set, no module package above this layer may be reached
	std      []string // standard library packages they must not reach
	// trust names a module package and a standard library package it
	// imports that the rule accepts, with why.
	trust map[[2]string]string
	// source: the code of the bound packages and of every module package
	// they reach starts no goroutine and reads no clock (see readsClock).
	source bool
}

var rules = []rule{
	{
		name: "interface packages reach the node through internal/backend only",
		from: interfacePackages, forbid: interfaceForbidden,
	},
	{
		name: "neutral packages use layers 1-2 only",
		from: neutralPackages, maxLayer: 2,
	},
	{
		name: "the consensus core does no I/O",
		from: []string{"consensus/..."}, std: ioPackages, forbid: ioOfOurs,
	},
	{
		name: "the consensus core draws no randomness",
		from: []string{"consensus/..."}, std: randomPackages,
		// The simulator draws from a PCG seeded by its config, so every
		// run replays; it drives the core, it is not part of it.
		except: []string{"consensus/sim"},
		trust: map[[2]string]string{
			{"internal/crypto", "crypto/rand"}: "GenerateKey draws wallet keys; the core only verifies signatures",
		},
	},
	{
		name:   "the consensus core starts no goroutine and reads no clock: time comes in as timeout events",
		from:   []string{"consensus/..."},
		source: true,
	},
}

// allowedModules are the main module's dependencies besides the standard
// library.
var allowedModules = []string{
	"golang.org/x/crypto", "golang.org/x/sys", "github.com/holiman/uint256",
	"github.com/decred/dcrd/dcrec/secp256k1/v4", "github.com/coder/websocket",
}

// TestArchitecture runs the checker on the module as it is.
func TestArchitecture(t *testing.T) {
	g := moduleGraph(t)
	if len(g.pkgs["consensus"].files) == 0 {
		t.Fatal("no consensus source files were read: the source rule checks nothing")
	}
	if bad := check(g); len(bad) > 0 {
		t.Errorf("the module breaks its architecture:\n%s", strings.Join(bad, "\n"))
	}
}
