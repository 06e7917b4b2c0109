package node

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/store"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// waitHead waits until n has committed block want.
func waitHead(t *testing.T, n *Node, want uint64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for n.Chain.Head().Number() < want {
		if time.Now().After(deadline) {
			t.Fatalf("head stuck at %d, want %d", n.Chain.Head().Number(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A 4-validator devnet runs on the validator set of its staking state:
// chain_getNodeList reports the four as active nodes with their keys and
// addresses, cycle records count them, and every block's certificate
// verifies against the set the staking state gives its height. A node
// that imports the devnet's blocks re-derives the very same state.
func TestDevnetValidatorsFromState(t *testing.T) {
	dn, err := StartDevnet(DevnetConfig{Validators: 4, BlockTime: 10 * time.Millisecond, HTTPPort: -1, ChainID: 8118})
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	n := dn.Nodes[0]
	waitHead(t, n, 12)
	// Rewards are paid at a cycle's end for the whole seconds since the
	// last payment, and 10 ms blocks keep to the clock: let two pass.
	waitTime(t, n, n.Chain.Head().Time()+2)
	waitCycles(t, n, 1)

	nw := n.stake.Network()
	nodes := nw.Nodes()
	if len(nodes) != 4 {
		t.Fatalf("%d nodes, want 4", len(nodes))
	}
	seen := map[int]bool{}
	for _, nd := range nodes {
		if nd.Status != "active" || nd.IP != "127.0.0.1" || len(nd.PublicKey) != 33 {
			t.Fatalf("node %+v", nd)
		}
		seen[nd.Port] = true
	}
	if len(seen) != 4 {
		t.Fatalf("ports %v", seen)
	}
	for _, c := range []uint64{0, 1} {
		ci, err := nw.CycleInfo(&c)
		if err != nil {
			t.Fatal(err)
		}
		if ci.Nodes.Active != 4 || ci.Desired != pos.DevParams().Desired || !ci.End.After(ci.Start) {
			t.Fatalf("cycle %d: %+v", c, ci)
		}
	}
	if acc, err := nw.NetworkAccount(); err != nil || acc.RestakeCooldown != time.Minute {
		t.Fatalf("network account %+v %v", acc, err)
	}

	sa := n.Staking()
	vals, err := sa.StakingValidators(nil)
	if err != nil || len(vals) != 4 {
		t.Fatalf("validators %d %v", len(vals), err)
	}
	for _, v := range vals {
		if v.Status != "active" || v.Tokens.Cmp(pos.DevValidatorStake) != 0 || v.Moniker == "" {
			t.Fatalf("validator %+v", v)
		}
		if ds, err := sa.ValidatorDelegations(nil, v.Operator); err != nil || len(ds) != 1 || ds[0].Delegator != v.Operator {
			t.Fatalf("delegations %+v %v", ds, err)
		}
	}
	if sp, err := sa.StakingParams(nil); err != nil || sp.RestakeCooldown != 60_000 {
		t.Fatalf("params %+v %v", sp, err)
	}

	head := n.Chain.Head().Number()
	sched := pos.Of(n.Chain).Validators(n.Chain)
	for num := uint64(1); num <= head; num++ {
		b, err := n.Chain.BlockByNumber(num)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := n.Certificate(num)
		if err != nil {
			t.Fatal(err)
		}
		set, err := sched.ValidatorSet(num)
		if err != nil {
			t.Fatal(err)
		}
		if set.Len() != 4 {
			t.Fatalf("set of %d has %d validators", num, set.Len())
		}
		if err := consensus.VerifyCertificate(8118, set, num, b.Hash(), cert); err != nil {
			t.Fatalf("certificate of block %d: %v", num, err)
		}
	}

	// Import: a fresh chain from the same genesis executes every block and
	// must reach the same state root (InsertBlock checks each root).
	g := n.cfg.Genesis
	c, err := chain.Open(g, store.NewMem(), pos.ForGenesis(g))
	if err != nil {
		t.Fatal(err)
	}
	if c.Genesis().Hash() != n.Chain.Genesis().Hash() {
		t.Fatal("genesis differs")
	}
	for num := uint64(1); num <= head; num++ {
		b, _ := n.Chain.BlockByNumber(num)
		if _, err := c.InsertBlock(b); err != nil {
			t.Fatalf("import block %d: %v", num, err)
		}
	}
	want, _ := n.Chain.BlockByNumber(head)
	if c.Head().Root() != want.Root() {
		t.Fatal("imported state root differs")
	}
	st, err := c.StateAt(c.Head().Root())
	if err != nil {
		t.Fatal(err)
	}
	if s := staking.ReadSupply(st); s.Minted.IsZero() {
		t.Fatal("no rewards minted after a cycle")
	}
}

// A staking genesis written out (as a data directory stores it) and read
// back builds the same block 0, and so does the genesis of a data
// directory written before the engine added the system accounts itself
// (they were stored in the alloc): they are recomputed, not counted twice.
func TestStakingGenesisRoundTrip(t *testing.T) {
	k, _ := DevValidatorKey(0)
	g := chain.DevGenesis(8118, nil, 1_700_000_000)
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{k}, ""); err != nil {
		t.Fatal(err)
	}
	e := pos.ForGenesis(g)
	if !e.ProofOfStake() {
		t.Fatal("a staking genesis runs Ethereum's rules")
	}
	want, err := g.ToBlock(e)
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := g.ToBlock(nil); plain.Hash() == want.Hash() {
		t.Fatal("the engine added nothing to block 0")
	}
	system, err := e.GenesisAlloc(g)
	if err != nil || len(system) == 0 {
		t.Fatalf("system accounts: %d, %v", len(system), err)
	}
	old := *g
	old.Alloc = chain.Alloc{}
	for a, acc := range g.Alloc {
		old.Alloc[a] = acc
	}
	for a, acc := range system {
		old.Alloc[a] = acc
	}
	for name, spec := range map[string]*chain.Genesis{"as written": g, "with the system accounts stored": &old} {
		raw, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		back, err := chain.ParseGenesis(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := back.ToBlock(pos.ForGenesis(back))
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash() != want.Hash() {
			t.Errorf("%s: block 0 changed through a round trip", name)
		}
	}
}

// The public presets are proof-of-stake chains: a node serving one has the
// system contracts and the network parameters in state, and chain_* read
// them (no validators until the launch genesis adds them).
func TestPublicPresetsHaveStaking(t *testing.T) {
	for name, g := range map[string]*chain.Genesis{"main": chain.MainGenesis(), "test": chain.TestGenesis()} {
		t.Run(name, func(t *testing.T) {
			n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			if !n.Chain.Engine().ProofOfStake() || n.Chain.Engine().Natives() == nil {
				t.Fatal("no system contracts")
			}
			acc, err := n.stake.Network().NetworkAccount()
			if err != nil {
				t.Fatal(err)
			}
			if want := staking.DefaultParams(); acc.MaintenanceFee.Cmp(want.MaintenanceFee) != 0 {
				t.Fatalf("maintenanceFee %v, want the default %v", acc.MaintenanceFee, want.MaintenanceFee)
			}
			if nodes := n.stake.Network().Nodes(); len(nodes) != 0 {
				t.Fatalf("%d nodes before the launch genesis", len(nodes))
			}
		})
	}
}

// A validator key on a chain whose genesis names no validators is refused
// with a clear error rather than running a set of none.
func TestValidatingWithoutGenesisValidators(t *testing.T) {
	k, _ := DevValidatorKey(0)
	n, err := New(Config{Genesis: chain.TestGenesis(), HTTPPort: -1, WSPort: -1, Validator: k})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Start(); err == nil || !strings.Contains(err.Error(), "no validators") {
		t.Fatalf("start: %v", err)
	}
}
