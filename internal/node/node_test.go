package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

func newTestNode(t *testing.T, dir string, blockTime time.Duration) *Node {
	t.Helper()
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, DataDir: dir, HTTPPort: -1, WSPort: -1, Validator: keys[0], BlockTime: blockTime, Accounts: keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitNonce waits until the chain has committed addr's transactions up to
// nonce want.
// poolNonce is the pending nonce of addr, failing t if the pool cannot
// read the head state.
func poolNonce(t testing.TB, n *Node, addr types.Address) uint64 {
	t.Helper()
	nonce, err := n.Pool.Nonce(addr)
	if err != nil {
		t.Fatal(err)
	}
	return nonce
}

func waitNonce(t testing.TB, n *Node, addr types.Address, want uint64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := n.Chain.StateAt(n.Chain.Head().Root())
		if err != nil {
			t.Fatal(err)
		}
		if st.GetNonce(addr) >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nonce of %s stuck at %d, want %d (pool %d)", addr, st.GetNonce(addr), want, n.Pool.Len())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Transactions submitted to a producing node end up in blocks with
// receipts, lookups and an empty pool, for both workloads.
func TestProduceAndReceipt(t *testing.T) {
	n := newTestNode(t, "", 0)
	defer n.Close()
	keys := devload.Keys("node-test", 3)
	s := devload.NewSigner(8118)
	var all []*types.Transaction
	for _, kind := range []devload.Kind{devload.KindTransfer, devload.KindERC20} {
		for i, k := range keys[1:] {
			from := devload.Address(k)
			start := poolNonce(t, n, from)
			txs, err := s.Workload(kind, k, start, 30, devload.TokenAddress)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range txs {
				if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
					t.Fatalf("sender %d nonce %d: %v", i, tx.Nonce(), err)
				}
			}
			all = append(all, txs...)
		}
		for _, k := range keys[1:] {
			waitNonce(t, n, devload.Address(k), poolNonce(t, n, devload.Address(k)))
		}
	}
	for _, tx := range all {
		bh, idx, ok := n.backend.TxLookup(tx.Hash())
		if !ok {
			t.Fatalf("no lookup for %s", tx.Hash())
		}
		blk, err := n.backend.BlockByHash(bh)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := n.backend.Receipts(blk)
		if err != nil {
			t.Fatal(err)
		}
		if rs[idx].Status != types.ReceiptStatusSuccessful || rs[idx].TxHash != tx.Hash() {
			t.Fatalf("receipt of %s: status %d, hash %s", tx.Hash(), rs[idx].Status, rs[idx].TxHash)
		}
	}
	if n.Pool.Len() != 0 {
		t.Fatalf("%d transactions left in the pool", n.Pool.Len())
	}
}

// A node on a data directory resumes at the head it had, with its state.
func TestRestartResumes(t *testing.T) {
	dir := t.TempDir()
	n := newTestNode(t, dir, 0)
	keys := devload.Keys("node-test", 3)
	s := devload.NewSigner(8118)
	txs, err := s.Workload(devload.KindTransfer, keys[1], 0, 10, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if err := n.Pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	waitNonce(t, n, devload.Address(keys[1]), 10)
	head := n.Chain.Head()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n = newTestNode(t, dir, time.Hour)
	defer n.Close()
	if got := n.Chain.Head(); got.Hash() != head.Hash() {
		t.Fatalf("restarted at %d %s, want %d %s", got.Number(), got.Hash(), head.Number(), head.Hash())
	}
	if got := poolNonce(t, n, devload.Address(keys[1])); got != 10 {
		t.Fatalf("pending nonce after restart %d, want 10", got)
	}
}

// A producing node on disk prunes states older than StateHistory blocks in
// the background and still serves (and restarts on) the recent ones.
func TestPruneLive(t *testing.T) {
	dir := t.TempDir()
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, DataDir: dir, HTTPPort: -1, WSPort: -1, Validator: keys[0], BlockTime: 0, StateHistory: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	s := devload.NewSigner(8118)
	from := devload.Address(keys[1])
	for i := uint64(0); i < 14; i++ {
		tx, err := s.Sign(keys[1], i, &from, nil, devload.TransferGas, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Pool.Add(tx); err != nil {
			t.Fatal(err)
		}
		waitNonce(t, n, from, i+1)
	}
	old, err := n.Chain.BlockByNumber(1)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := n.Chain.DB().Node([32]byte(old.Root())); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state of block 1 still stored at head %d", n.Chain.Head().Number())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The backend refuses the pruned state by name rather than reading
	// zeros or failing on a missing node, before and after a restart.
	pruned := func(n *Node) {
		t.Helper()
		ctx := context.Background()
		_, err := n.backend.Call(ctx, &backend.CallRequest{Block: old, Args: backend.CallArgs{From: &from, To: &from}})
		if !errors.Is(err, chain.ErrStatePruned) {
			t.Errorf("eth_call at a pruned block: %v, want chain.ErrStatePruned", err)
		}
		if _, err := n.backend.EstimateGas(ctx, &backend.CallRequest{Block: old, Args: backend.CallArgs{From: &from, To: &from}}); !errors.Is(err, chain.ErrStatePruned) {
			t.Errorf("eth_estimateGas at a pruned block: %v, want chain.ErrStatePruned", err)
		}
		if _, err := n.backend.CreateAccessList(ctx, &backend.CallRequest{Block: old, Args: backend.CallArgs{From: &from, To: &from}}); !errors.Is(err, chain.ErrStatePruned) {
			t.Errorf("eth_createAccessList at a pruned block: %v, want chain.ErrStatePruned", err)
		}
		if _, err := n.backend.Proof(old.HeaderRef(), from, nil); !errors.Is(err, chain.ErrStatePruned) {
			t.Errorf("eth_getProof at a pruned block: %v, want chain.ErrStatePruned", err)
		}
		if _, err := n.backend.StateAt(old.HeaderRef()); !errors.Is(err, chain.ErrStatePruned) {
			t.Errorf("state of a pruned block: %v, want chain.ErrStatePruned", err)
		}
	}
	pruned(n)
	head := n.Chain.Head()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, err = New(Config{Genesis: g, DataDir: dir, HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Chain.Head().Hash() != head.Hash() {
		t.Fatal("restart after pruning moved the head")
	}
	pruned(n)
	for k := head.Number() - 3; k <= head.Number(); k++ {
		b, err := n.Chain.BlockByNumber(k)
		if err != nil {
			t.Fatal(err)
		}
		st, err := n.Chain.StateAt(b.Root())
		if err != nil {
			t.Fatalf("state of kept block %d: %v", k, err)
		}
		// Each block took one transfer (sent one at a time).
		if got := st.GetNonce(from); got != k {
			t.Fatalf("nonce at kept block %d: %d", k, got)
		}
	}
}
