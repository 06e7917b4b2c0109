package flat

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// countingStore counts the reads of each key.
type countingStore struct {
	*store.MemDB
	gets map[string]int
}

func (c *countingStore) Get(k []byte) ([]byte, error) {
	c.gets[string(k)]++
	return c.MemDB.Get(k)
}

// TestMoveJournalsReverseDiffOnly: a move takes what a changed key held
// from the diff when the diff knows it (no read of the key, also for a new
// account, which is wiped) and reads the others; its journal record holds only the reverse diff; undone, the
// move's forward diff is rebuilt from the copy into its side record, and
// pushing that record again gives the same copy.
func TestMoveJournalsReverseDiffOnly(t *testing.T) {
	kv := &countingStore{MemDB: store.NewMem(), gets: map[string]int{}}
	l, err := Open(kv, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	known, read, gone, fresh := types.Hash{0xa}, types.Hash{0xb}, types.Hash{0xc}, types.Hash{0xd}
	slot := types.Hash{0x5}
	apply := func(from, to types.Hash, num uint64, d *state.Diff) {
		t.Helper()
		var b store.Batch
		tx := l.Begin(&b, trie.NewMemoryDB())
		if err := tx.Apply(from, to, num, types.Hash{byte(num)}, d); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
			t.Fatal(err)
		}
	}
	r1, r2 := types.Hash{1}, types.Hash{2}
	apply(state.EmptyRoot, r1, 1, &state.Diff{
		Accounts: map[types.Hash][]byte{known: {0x81}, read: {0x82}, gone: {0x83}},
		Storage:  map[types.Hash]map[types.Hash][]byte{known: {slot: {0x07}}},
	})
	clear(kv.gets)
	apply(r1, r2, 2, &state.Diff{
		Accounts:     map[types.Hash][]byte{known: {0x91}, read: {0x92}, gone: nil, fresh: {0x94}},
		Wiped:        map[types.Hash]struct{}{fresh: {}},
		Storage:      map[types.Hash]map[types.Hash][]byte{known: {slot: {0x08}}},
		PrevAccounts: map[types.Hash][]byte{known: {0x81}, gone: {0x83}, fresh: nil},
		PrevStorage:  map[types.Hash]map[types.Hash][]byte{known: {slot: {0x07}}},
	})
	for _, k := range [][]byte{accountKey(known), accountKey(gone), accountKey(fresh), storageKey(known, slot)} {
		if n := kv.gets[string(k)]; n != 0 {
			t.Fatalf("key %x with a known previous value read %d times", k, n)
		}
	}
	if n := kv.gets[string(accountKey(read))]; n != 1 {
		t.Fatalf("key without a known previous value read %d times, want 1", n)
	}
	enc, err := kv.Get(journalKey(l.top))
	if err != nil {
		t.Fatal(err)
	}
	r, err := decodeRecord(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !r.fwd.Empty() {
		t.Fatalf("journal record carries a forward diff of %d accounts", len(r.fwd.Accounts))
	}
	for ah, want := range map[types.Hash][]byte{known: {0x81}, read: {0x82}, gone: {0x83}, fresh: nil} {
		if got, ok := r.rev.accounts[ah]; !ok || !bytes.Equal(got, want) {
			t.Fatalf("reverse diff of %x: %x, want %x", ah, got, want)
		}
	}
	if got := r.rev.slots[[64]byte{0xa, 32: 0x5}]; !bytes.Equal(got, []byte{0x07}) {
		t.Fatalf("reverse diff of the slot: %x", got)
	}

	// Undo the move: its side record is the forward diff, read from the copy.
	var b store.Batch
	tx := l.Begin(&b, trie.NewMemoryDB())
	if ok, err := tx.rewindTo(r1); !ok || err != nil {
		t.Fatalf("rewind: %v %v", ok, err)
	}
	if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
		t.Fatal(err)
	}
	side, err := kv.Get(sideKey(2, types.Hash{2}))
	if err != nil {
		t.Fatal(err)
	}
	sr, err := decodeRecord(side)
	if err != nil {
		t.Fatal(err)
	}
	if sr.from != r1 || sr.to != r2 || sr.num != 2 || len(sr.fwd.Accounts) != 4 || sr.fwd.Accounts[gone] != nil ||
		!bytes.Equal(sr.fwd.Accounts[known], []byte{0x91}) || !bytes.Equal(sr.fwd.Storage[known][slot], []byte{0x08}) {
		t.Fatalf("side record %+v, fwd %+v", sr, sr.fwd)
	}
	// Pushed again, the side record gives the state the move made.
	b.Reset()
	tx = l.Begin(&b, trie.NewMemoryDB())
	if ok, err := tx.PushSide(2, types.Hash{2}); !ok || err != nil {
		t.Fatalf("push side: %v %v", ok, err)
	}
	if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
		t.Fatal(err)
	}
	for ah, want := range map[types.Hash][]byte{known: {0x91}, read: {0x92}, gone: nil, fresh: {0x94}} {
		if v, ok, err := l.Account(r2, ah); err != nil || !ok || !bytes.Equal(v, want) {
			t.Fatalf("account %x after the side push: %x %v %v, want %x", ah, v, ok, err, want)
		}
	}
	if v, ok, _ := l.Storage(r1, known, slot); !ok || !bytes.Equal(v, []byte{0x07}) {
		t.Fatalf("slot in the state before: %x %v", v, ok)
	}
}
