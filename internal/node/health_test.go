package node

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// fault is an error a test holds a store at until it lets go, counting
// the calls it failed.
type fault struct {
	mu     sync.Mutex
	err    error
	failed int
}

func (f *fault) set(err error) {
	f.mu.Lock()
	f.err, f.failed = err, 0
	f.mu.Unlock()
}

// check fails a call while an error is held.
func (f *fault) check() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		f.failed++
	}
	return f.err
}

func (f *fault) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// faultyState fails Save as a full descriptor table or disk would.
type faultyState struct {
	bft.StateStore
	f *fault
}

func (s faultyState) Save(snap consensus.Snapshot) error {
	if err := s.f.check(); err != nil {
		return err
	}
	return s.StateStore.Save(snap)
}

// faultyKV fails writes.
type faultyKV struct {
	store.KV
	f *fault
}

func (kv faultyKV) Write(b *store.Batch) error {
	if err := kv.f.check(); err != nil {
		return err
	}
	return kv.KV.Write(b)
}

// newFaultyNode starts a sole validator on dir (sealing as transactions
// come) whose state store (state) or chain store (!state) f can fail.
func newFaultyNode(t *testing.T, dir string, f *fault, state bool) *Node {
	t.Helper()
	keys := devload.Keys("node-test", 3)
	cfg := Config{Genesis: devload.GenesisWithToken(8118, keys, 1_700_000_000), DataDir: dir, HTTPPort: -1, WSPort: -1, Validator: keys[0], Accounts: keys}
	if state {
		cfg.faults.state = func(s bft.StateStore) bft.StateStore { return faultyState{s, f} }
	} else {
		cfg.faults.kv = func(kv store.KV) store.KV { return faultyKV{kv, f} }
	}
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		n.Close()
		t.Fatal(err)
	}
	return n
}

// healthOf reads /health, eth_syncing and the chaind_healthy metric.
func healthOf(t *testing.T, n *Node) (code int, body string, syncing json.RawMessage, metric float64) {
	t.Helper()
	w := httptest.NewRecorder()
	n.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/health", nil))
	syncing, err := rpcCall(t, n, "eth_syncing")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if _, err := n.Metrics().WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	samples, err := metrics.ParseText(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	metric = -1
	for _, s := range samples {
		if s.Name == "chaind_healthy" {
			metric = s.Value
		}
	}
	return w.Code, w.Body.String(), syncing, metric
}

// A validator whose consensus hits a transient error (descriptors or
// disk space ran out) is unhealthy on every channel while it lasts and
// signs again at the head once the resource is back; no committed block
// is lost, in memory or on disk. On today's code the driver logged
// "consensus stopped" and never ran again.
func TestConsensusRecoversFromTransientErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state bool // the state file fails; else the chain store
		err   error
		want  string // in /health's reason
	}{
		{"EMFILE on the state file", true, &fs.PathError{Op: "open", Path: "consensus.state.tmp", Err: syscall.EMFILE}, "too many open files"},
		{"ENOSPC on the chain store", false, &fs.PathError{Op: "write", Path: "chain.log", Err: syscall.ENOSPC}, "no space left on device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := &fault{}
			n := newFaultyNode(t, dir, f, tc.state)
			defer n.Close()
			keys := devload.Keys("node-test", 3)
			from := devload.Address(keys[1])
			s := devload.NewSigner(8118)
			send := func(nonce uint64) {
				txs, err := s.Workload(devload.KindTransfer, keys[1], nonce, 1, types.Address{})
				if err != nil {
					t.Fatal(err)
				}
				if err := n.Pool.Add(txs[0]); err != nil {
					t.Fatal(err)
				}
			}
			send(0)
			waitNonce(t, n, from, 1)
			if code, body, syncing, m := healthOf(t, n); code != http.StatusOK || string(syncing) != "false" || m != 1 {
				t.Fatalf("healthy node: /health %d %s, eth_syncing %s, chaind_healthy %v", code, body, syncing, m)
			}

			f.set(tc.err)
			send(1) // the driver wakes, proposes and meets the fault
			waitFor(t, "the node reports itself unhealthy", func() bool { ok, _ := n.Healthy(); return !ok })
			waitFor(t, "the driver retried", func() bool { return f.count() >= 3 })
			code, body, syncing, m := healthOf(t, n)
			if code != http.StatusServiceUnavailable || !strings.Contains(body, tc.want) {
				t.Errorf("/health while down: %d %s, want 503 naming %q", code, body, tc.want)
			}
			if string(syncing) == "false" {
				t.Errorf("eth_syncing while down: %s, want a progress object", syncing)
			}
			if m != 0 {
				t.Errorf("chaind_healthy while down: %v, want 0", m)
			}
			select {
			case <-n.Failed():
				t.Fatalf("a transient error failed the node: %v", n.Failure())
			default:
			}

			f.set(nil)
			waitNonce(t, n, from, 2)
			send(2)
			waitNonce(t, n, from, 3)
			waitFor(t, "the node reports itself healthy", func() bool { ok, _ := n.Healthy(); return ok })
			if code, body, syncing, m := healthOf(t, n); code != http.StatusOK || string(syncing) != "false" || m != 1 {
				t.Errorf("recovered node: /health %d %s, eth_syncing %s, chaind_healthy %v", code, body, syncing, m)
			}
			head := n.Chain.Head()
			checkCertified(t, n, head.Number())
			if err := n.Close(); err != nil {
				t.Fatal(err)
			}

			again := newTestNode(t, dir, 0)
			defer again.Close()
			if got := again.Chain.Head(); got.Hash() != head.Hash() {
				t.Fatalf("after a restart the head is %d %s, was %d %s", got.Number(), got.Hash(), head.Number(), head.Hash())
			}
		})
	}
}

// checkCertified checks that blocks 1..head carry certificates signed by
// the validator set of their height.
func checkCertified(t *testing.T, n *Node, head uint64) {
	t.Helper()
	for num := uint64(1); num <= head; num++ {
		b, err := n.Chain.BlockByNumber(num)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := n.Certificate(num)
		if err != nil {
			t.Fatalf("certificate of block %d: %v", num, err)
		}
		set, err := n.Validators().ValidatorSet(num)
		if err != nil {
			t.Fatal(err)
		}
		if err := consensus.VerifyCertificate(8118, set, num, b.Hash(), cert); err != nil {
			t.Fatalf("certificate of block %d: %v", num, err)
		}
	}
}

// A permanent error (here an I/O error of the state file, after which the
// process cannot know what reached the disk) fails the node: Failed is
// closed with the reason and the node reports itself unhealthy, and no
// restart is attempted in process.
func TestConsensusFailsOnPermanentErrors(t *testing.T) {
	f := &fault{}
	n := newFaultyNode(t, t.TempDir(), f, true)
	defer n.Close()
	f.set(&fs.PathError{Op: "write", Path: "consensus.state.tmp", Err: syscall.EIO})
	keys := devload.Keys("node-test", 3)
	txs, err := devload.NewSigner(8118).Workload(devload.KindTransfer, keys[1], 0, 1, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Pool.Add(txs[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.Failed():
	case <-time.After(30 * time.Second):
		t.Fatal("the node did not fail on EIO")
	}
	if err := n.Failure(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Failure() = %v, want the EIO", err)
	}
	if ok, reason := n.Healthy(); ok || !strings.Contains(reason, "input/output error") {
		t.Fatalf("Healthy() = %v %q after a permanent failure", ok, reason)
	}
	if c := f.count(); c != 1 {
		t.Fatalf("the state store was tried %d times after a permanent error, want 1", c)
	}
}

// A validator of a network held at EMFILE while the others go on is
// unhealthy meanwhile, and once descriptors are back it catches up and
// signs again at the network's head.
func TestP2PValidatorRecoversFromEMFILE(t *testing.T) {
	pn := newP2PNet(t, 4)
	f := &fault{}
	pn.configure = func(c *Config) {
		if c.Validator == pn.keys[3] {
			c.faults.state = func(s bft.StateStore) bft.StateStore { return faultyState{s, f} }
		}
	}
	for i := range 4 {
		pn.startValidator(i)
	}
	waitHeight(t, pn.nodes[0], 3, 60*time.Second)

	f.set(&fs.PathError{Op: "open", Path: "consensus.state.tmp", Err: syscall.EMFILE})
	v3 := pn.nodes[3]
	waitFor(t, "validator 3 reports itself unhealthy", func() bool { ok, _ := v3.Healthy(); return !ok })
	if code, body, syncing, _ := healthOf(t, v3); code != http.StatusServiceUnavailable || string(syncing) == "false" {
		t.Errorf("validator 3 while down: /health %d %s, eth_syncing %s", code, body, syncing)
	}
	down := pn.nodes[0].Chain.Head().Number()
	waitHeight(t, pn.nodes[0], down+5, 60*time.Second) // the other three are a quorum
	waitFor(t, "validator 3 retried", func() bool { return f.count() >= 3 })

	f.set(nil)
	back := pn.nodes[0].Chain.Head().Number()
	addr3 := types.Address(pn.addrs[3].ID)
	waitFor(t, "validator 3 signs a block after it recovered", func() bool {
		for num := back + 1; num <= pn.nodes[0].Chain.Head().Number(); num++ {
			if signed(t, pn.nodes[0], pn.vals, num, addr3) {
				return true
			}
		}
		return false
	})
	waitFor(t, "validator 3 reports itself healthy", func() bool { ok, _ := v3.Healthy(); return ok })
	top := pn.nodes[0].Chain.Head().Number()
	waitHeight(t, v3, top, 30*time.Second)
	for num := uint64(1); num <= top; num++ {
		if v3.Chain.GetHash(num) != pn.nodes[0].Chain.GetHash(num) {
			t.Fatalf("validator 3 has another block at %d", num)
		}
	}
}
