package node

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
)

// Every block a validator commits is stored with its commit certificate,
// which verifies against the validator set of its height, and the next
// block commits to it; the consensus state file lives in the datadir.
func TestCertificates(t *testing.T) {
	dir := t.TempDir()
	n := newTestNode(t, dir, 0)
	defer n.Close()
	keys := devload.Keys("node-test", 3)
	s := devload.NewSigner(8118)
	for nonce := uint64(0); nonce < 3; nonce++ {
		txs, err := s.Workload(devload.KindTransfer, keys[1], nonce, 1, types.Address{})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Pool.Add(txs[0]); err != nil {
			t.Fatal(err)
		}
		waitNonce(t, n, devload.Address(keys[1]), nonce+1)
	}
	head := n.Chain.Head().Number()
	if head < 2 {
		t.Fatalf("head %d after three transactions sealed one by one", head)
	}
	checkCertified(t, n, head)
	for num := uint64(1); num < head; num++ {
		cert, err := n.Certificate(num)
		if err != nil {
			t.Fatalf("certificate of block %d: %v", num, err)
		}
		next, err := n.Chain.BlockByNumber(num + 1)
		if err != nil {
			t.Fatal(err)
		}
		if r := next.HeaderRef().ParentBeaconRoot; r == nil || *r != pos.CertRoot(cert.Encode()) {
			t.Fatalf("block %d does not commit to the certificate of block %d", num+1, num)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, stateFileName)); err != nil {
		t.Fatalf("consensus state file: %v", err)
	}
}

// Transactions pooled before the validator starts are sealed at once,
// without waiting for another arrival.
func TestPooledBeforeStartSealed(t *testing.T) {
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0], Accounts: keys})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	txs, err := devload.NewSigner(8118).Workload(devload.KindTransfer, keys[1], 0, 5, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if err := n.Pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	waitNonce(t, n, devload.Address(keys[1]), 5)
}
