package chain

import (
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/trie"
)

// A node a commit writes again while its delete is being written waits
// for the delete and lands after it: the node stays. Without the wait the
// commit's write goes ahead (the test sees it end first) and the delete
// takes the node.
func TestDeleteNodesKeepsANodeWrittenAgain(t *testing.T) {
	kv := &crashKV{KV: store.NewMem(), left: -1}
	db := NewDB(kv)
	blob := []byte("a node pruning found dead, made again by a block")
	h := [32]byte{0xde, 0xad}
	var b store.Batch
	b.Put(key(prefixNode, h[:]), blob)
	if err := kv.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !db.startTracking() {
		t.Fatal("tracking already on")
	}
	defer db.stopTracking()
	defer func(f func()) { onDeleteWait = f }(onDeleteWait)
	waiting := make(chan struct{})
	onDeleteWait = func() { close(waiting) }
	flushed := make(chan error, 1)
	kv.before = func() { // the deletes' write, held until the commit waits
		kv.before = nil
		go func() {
			set := trie.NewNodeSet()
			set.Add(h, blob)
			if err := db.Update(set); err != nil {
				flushed <- err
				return
			}
			flushed <- db.Flush()
		}()
		select {
		case err := <-flushed:
			flushed <- err
			t.Error("the node's write went ahead of its delete in flight")
		case <-waiting:
		}
	}
	n, _, err := db.deleteNodes([][32]byte{h}, nil, nil)
	if err != nil || n != 1 {
		t.Fatalf("deleteNodes: %d deleted, %v", n, err)
	}
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if got, err := db.Node(h); err != nil || string(got) != string(blob) {
		t.Fatalf("the node written again: %q, %v", got, err)
	}
	if w := db.delWaits.take(); len(w) != 1 {
		t.Fatalf("%d waits recorded, want 1", len(w))
	}
}

// A node written again before the deletes are published is not deleted
// (the pass's tracking), and one deleted is gone.
func TestDeleteNodesSkipsTracked(t *testing.T) {
	kv := store.NewMem()
	db := NewDB(kv)
	var b store.Batch
	a, c := [32]byte{1}, [32]byte{2}
	b.Put(key(prefixNode, a[:]), []byte("a"))
	b.Put(key(prefixNode, c[:]), []byte("c"))
	if err := kv.Write(&b); err != nil {
		t.Fatal(err)
	}
	db.startTracking()
	defer db.stopTracking()
	set := trie.NewNodeSet()
	set.Add(a, []byte("a"))
	if err := db.Update(set); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	n, _, err := db.deleteNodes([][32]byte{a, c, c}, nil, nil)
	if err != nil || n != 1 {
		t.Fatalf("deleteNodes: %d deleted, %v; want 1", n, err)
	}
	if _, err := db.Node(a); err != nil {
		t.Fatalf("the node written again: %v", err)
	}
	if _, err := db.Node(c); err == nil {
		t.Fatal("the dead node is still stored")
	}
	if n, _, err := db.deleteNodes([][32]byte{c}, nil, func() bool { return false }); err != ErrPruneBusy || n != 0 {
		t.Fatalf("refused deletes: %d, %v", n, err)
	}
}
