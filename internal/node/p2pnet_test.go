package node

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/protocol/blocksync"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// p2pNet is a network of nodes in one test process that talk only over
// p2p on loopback: no shared memory between them.
type p2pNet struct {
	t       *testing.T
	genesis *chain.Genesis
	vals    consensus.ValidatorSource
	keys    []*secp256k1.PrivateKey
	addrs   []p2p.PeerAddr // where validator i listens
	dirs    []string
	nodes   []*Node
	// configure, when set, changes a node's config before it starts.
	configure func(*Config)
}

func freePort(t *testing.T) string {
	ps, err := devload.FreePorts("127.0.0.1", 1)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", ps[0])
}

func newP2PNet(t *testing.T, validators int) *p2pNet {
	pn := &p2pNet{t: t}
	accounts := devload.Keys("p2p-test", 2)
	pn.genesis = devload.GenesisWithToken(8119, accounts, 1_700_000_000)
	var members []consensus.Validator
	for i := range validators {
		k, err := DevValidatorKey(100 + i)
		if err != nil {
			t.Fatal(err)
		}
		pn.keys = append(pn.keys, k)
		addr := types.Address(crypto.PrivkeyToAddress(k))
		members = append(members, consensus.Validator{Address: addr, Power: 1})
		pn.addrs = append(pn.addrs, p2p.PeerAddr{ID: p2p.ID(addr), Addr: freePort(t)})
		pn.dirs = append(pn.dirs, filepath.Join(t.TempDir(), fmt.Sprint("v", i)))
	}
	set, err := consensus.NewValidatorSet(members)
	if err != nil {
		t.Fatal(err)
	}
	pn.vals = cycle.NewSchedule(set)
	pn.nodes = make([]*Node, validators)
	t.Cleanup(func() {
		for _, n := range pn.nodes {
			if n != nil {
				n.Close()
			}
		}
	})
	return pn
}

// start starts validator i (i < len(keys)) or a full node (key nil).
func (pn *p2pNet) start(key *secp256k1.PrivateKey, dir, listen string) *Node {
	var peers []p2p.PeerAddr
	for _, a := range pn.addrs {
		if a.Addr != listen {
			peers = append(peers, a)
		}
	}
	cfg := Config{Genesis: pn.genesis, DataDir: dir, HTTPPort: -1, WSPort: -1, Validator: key,
		BlockTime: 500 * time.Millisecond, Validators: pn.vals,
		P2P: &P2PConfig{ListenAddr: listen, StaticPeers: peers}, Log: testLogger(pn.t)}
	if pn.configure != nil {
		pn.configure(&cfg)
	}
	n, err := New(cfg)
	if err != nil {
		pn.t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		pn.t.Fatal(err)
	}
	return n
}

func (pn *p2pNet) startValidator(i int) {
	pn.nodes[i] = pn.start(pn.keys[i], pn.dirs[i], pn.addrs[i].Addr)
}

func waitHeight(t *testing.T, n *Node, h uint64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for n.Chain.Head().Number() < h {
		if time.Now().After(deadline) {
			t.Fatalf("head %d, want %d within %v", n.Chain.Head().Number(), h, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signed reports whether validator addr's precommit is in the certificate
// of block num on node n.
func signed(t *testing.T, n *Node, vals consensus.ValidatorSource, num uint64, addr types.Address) bool {
	cert, err := n.Certificate(num)
	if err != nil {
		t.Fatalf("certificate %d: %v", num, err)
	}
	set, err := vals.ValidatorSet(num)
	if err != nil {
		t.Fatal(err)
	}
	i, ok := set.Index(addr)
	return ok && cert.Signers[i/8]&(1<<(i%8)) != 0
}

// Four validators that talk only over p2p commit blocks; a full node that
// joins later syncs from genesis with checked certificates and follows
// the tip; a validator that was stopped restarts from its data directory,
// catches up and signs again; everyone agrees on every block.
func TestP2PNetwork(t *testing.T) {
	pn := newP2PNet(t, 4)
	for i := range 4 {
		pn.startValidator(i)
	}
	waitHeight(t, pn.nodes[0], 5, 60*time.Second)
	for _, n := range pn.nodes {
		if n.backend.PeerCount() != 3 {
			t.Errorf("validator has %d peers, want 3", n.backend.PeerCount())
		}
	}

	// Stop validator 3; the other three are a quorum and go on.
	stoppedAt := pn.nodes[3].Chain.Head().Number()
	pn.nodes[3].Close()
	pn.nodes[3] = nil
	waitHeight(t, pn.nodes[0], stoppedAt+8, 60*time.Second)

	// A full node joins from genesis.
	full := pn.start(nil, "", freePort(t))
	defer full.Close()
	waitHeight(t, full, pn.nodes[0].Chain.Head().Number(), 60*time.Second)

	// Validator 3 restarts, catches up and signs again.
	pn.startValidator(3)
	rejoined := pn.nodes[0].Chain.Head().Number()
	waitHeight(t, pn.nodes[3], rejoined, 60*time.Second)
	addr3 := types.Address(pn.addrs[3].ID)
	deadline := time.Now().Add(60 * time.Second)
	for {
		head := pn.nodes[0].Chain.Head().Number()
		found := false
		for num := rejoined + 1; num <= head; num++ {
			if signed(t, pn.nodes[0], pn.vals, num, addr3) {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("restarted validator signed no block after %d (head %d)", rejoined, head)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Same blocks and valid certificates everywhere, up to a common height.
	top := pn.nodes[0].Chain.Head().Number()
	all := append(append([]*Node{}, pn.nodes...), full)
	for _, n := range all {
		waitHeight(t, n, top, 30*time.Second)
	}
	for num := uint64(1); num <= top; num++ {
		want := pn.nodes[0].Chain.GetHash(num)
		for i, n := range all {
			if got := n.Chain.GetHash(num); got != want {
				t.Fatalf("node %d has %s at %d, node 0 %s", i, got, num, want)
			}
			b, _ := n.Chain.BlockByNumber(num)
			raw, err := n.Chain.Certificate(num)
			if err != nil {
				t.Fatalf("node %d: no certificate at %d: %v", i, num, err)
			}
			if err := blocksync.VerifyCertified(8119, pn.vals, b, raw); err != nil {
				t.Fatalf("node %d: certificate %d: %v", i, num, err)
			}
		}
	}
}

// A transaction sent to one node reaches the others' pools and is
// committed, whoever proposes.
func TestP2PTransactionGossip(t *testing.T) {
	pn := newP2PNet(t, 2)
	pn.startValidator(0)
	pn.startValidator(1)
	full := pn.start(nil, "", freePort(t))
	defer full.Close()
	waitHeight(t, full, 1, 60*time.Second)
	keys := devload.Keys("p2p-test", 2)
	txs, err := devload.NewSigner(8119).Workload(devload.KindTransfer, keys[1], 0, 3, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if err := full.Pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []*Node{pn.nodes[0], pn.nodes[1], full} {
		waitNonce(t, n, devload.Address(keys[1]), 3)
	}
}

// testLogger writes a node's log to the test log, shown when it fails.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Consensus names peers by validator address, so a validator may not run
// under another node key.
func TestP2PValidatorKeyIsNodeKey(t *testing.T) {
	pn := newP2PNet(t, 1)
	other, err := DevValidatorKey(999)
	if err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Genesis: pn.genesis, HTTPPort: -1, WSPort: -1, Validator: pn.keys[0], Validators: pn.vals,
		P2P: &P2PConfig{Key: other, ListenAddr: freePort(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Start(); err == nil {
		t.Fatal("a validator started under a different node key")
	}
}

// A peer that serves blocks whose certificates do not prove them is
// banned, and nothing it served is stored; an honest peer then brings the
// node to the tip.
func TestP2PSyncRejectsBadCertificates(t *testing.T) {
	pn := newP2PNet(t, 1)
	pn.startValidator(0)
	honest := pn.nodes[0]
	waitHeight(t, honest, 4, 60*time.Second)

	for _, tc := range []struct {
		name   string
		tamper func(num uint64, cert []byte) []byte
		honest bool
	}{
		{"certificate of another block", func(num uint64, _ []byte) []byte {
			other, _ := honest.Chain.Certificate(num%4 + 1)
			return other
		}, false},
		{"garbage certificate", func(uint64, []byte) []byte { return []byte{0xc0} }, false},
		{"no certificate", func(uint64, []byte) []byte { return nil }, false},
		{"the real certificates (control)", func(_ uint64, cert []byte) []byte { return cert }, true},
	} {
		name, tamper := tc.name, tc.tamper
		t.Run(name, func(t *testing.T) {
			liarKey, _ := DevValidatorKey(500)
			liar, err := p2p.New(p2p.Config{Key: liarKey, ListenAddr: freePort(t),
				Chain: p2p.Chain{ChainID: 8119, Genesis: honest.Chain.Genesis().Hash()}})
			if err != nil {
				t.Fatal(err)
			}
			liar.Handle(wire.TopicGetBlocks, p2p.TopicConfig{}, func(from p2p.ID, b []byte) error {
				req, err := wire.DecodeGetBlocks(b)
				if err != nil {
					return err
				}
				var out []wire.CertifiedBlock
				for num := req.From; num < req.From+uint64(req.Count) && num <= 4; num++ {
					blk, _ := honest.Chain.BlockByNumber(num)
					cert, _ := honest.Chain.Certificate(num)
					out = append(out, wire.CertifiedBlock{Block: blk, Cert: tamper(num, cert)})
				}
				liar.Send(from, wire.TopicBlocks, wire.EncodeBlocks(out))
				return nil
			})
			liar.Handle(wire.TopicStatus, p2p.TopicConfig{}, func(p2p.ID, []byte) error { return nil })
			if err := liar.Start(); err != nil {
				t.Fatal(err)
			}
			defer liar.Close()
			full, err := New(Config{Genesis: pn.genesis, HTTPPort: -1, WSPort: -1, Validators: pn.vals,
				P2P: &P2PConfig{StaticPeers: []p2p.PeerAddr{{ID: liar.ID(), Addr: liar.Addr().String()}}}, Log: testLogger(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer full.Close()
			if err := full.Start(); err != nil {
				t.Fatal(err)
			}
			fullID := full.net.Load().Host().ID()
			// The liar claims a head of 4.
			deadline := time.Now().Add(20 * time.Second)
			for !liar.Send(fullID, wire.TopicStatus, wire.Status{Height: 4}.Encode()) {
				if time.Now().After(deadline) {
					t.Fatal("the node never connected to the liar")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if tc.honest {
				waitHeight(t, full, 4, 20*time.Second)
				if full.net.Load().Host().PeerCount() != 1 {
					t.Fatal("an honest peer was dropped")
				}
				return
			}
			for full.net.Load().Host().PeerCount() != 0 {
				if time.Now().After(deadline) {
					t.Fatal("the liar was not dropped")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if h := full.Chain.Head().Number(); h != 0 {
				t.Fatalf("stored %d blocks from a peer whose certificates prove nothing", h)
			}
		})
	}
}

// Validators that are not connected to each other still decide: in a star
// around a full node, every proposal and vote reaches the others only by
// being relayed, and the hub relays each once to each validator.
func TestP2PVotesCrossAPartialMesh(t *testing.T) {
	pn := newP2PNet(t, 4)
	hubAddr := freePort(t)
	hub, err := New(Config{Genesis: pn.genesis, HTTPPort: -1, WSPort: -1, Validators: pn.vals,
		P2P: &P2PConfig{ListenAddr: hubAddr}, Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	hubPeer := p2p.PeerAddr{ID: hub.net.Load().Host().ID(), Addr: hubAddr}
	for i := range 4 {
		// No listening address: nobody can learn of a validator and dial
		// it, so the hub stays its only peer.
		n, err := New(Config{Genesis: pn.genesis, DataDir: pn.dirs[i], HTTPPort: -1, WSPort: -1, Validator: pn.keys[i],
			BlockTime: 200 * time.Millisecond, Validators: pn.vals,
			P2P: &P2PConfig{StaticPeers: []p2p.PeerAddr{hubPeer}}, Log: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
		pn.nodes[i] = n
	}
	for _, n := range pn.nodes {
		waitHeight(t, n, 4, 60*time.Second)
		if got := n.backend.PeerCount(); got != 1 {
			t.Fatalf("a validator has %d peers, want only the hub", got)
		}
	}
	// Block 4's certificate on node 0 carries precommits relayed from
	// validators it never talked to.
	cert, err := pn.nodes[0].Certificate(4)
	if err != nil {
		t.Fatal(err)
	}
	others := 0
	for i := 1; i < 4; i++ {
		if signed(t, pn.nodes[0], pn.vals, 4, types.Address(pn.addrs[i].ID)) {
			others++
		}
	}
	if others < 2 || cert == nil {
		t.Fatalf("block 4 certified with %d precommits of unconnected validators, want at least 2", others)
	}
	if st := &hub.net.Load().Transport().Stats; st.Relayed.Load() == 0 {
		t.Fatal("the hub relayed nothing")
	}
}
