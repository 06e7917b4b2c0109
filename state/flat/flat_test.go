package flat

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

func sampleRecord() *record {
	d := &state.Diff{
		Accounts: map[types.Hash][]byte{{1}: {0xc1, 0x80}, {2}: nil},
		Wiped:    map[types.Hash]struct{}{{2}: {}},
		Storage:  map[types.Hash]map[types.Hash][]byte{{1}: {{9}: {0x05}, {8}: nil}},
	}
	rev := newLayer()
	rev.accounts[types.Hash{1}] = nil
	rev.slots[[64]byte{1, 32: 9}] = []byte{0x07}
	return &record{from: types.Hash{0xf}, to: types.Hash{0xe}, num: 7, hash: types.Hash{0xb}, fwd: d, rev: rev}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []*record{sampleRecord(), {fwd: &state.Diff{}}} {
		enc := r.encode()
		got, err := decodeRecord(enc)
		if err != nil {
			t.Fatal(err)
		}
		if got.from != r.from || got.to != r.to || got.num != r.num || got.hash != r.hash ||
			len(got.fwd.Accounts) != len(r.fwd.Accounts) || len(got.fwd.Wiped) != len(r.fwd.Wiped) {
			t.Fatalf("decoded %+v, want %+v", got, r)
		}
		if r.rev != nil && (len(got.rev.slots) != 1 || !bytes.Equal(got.rev.slots[[64]byte{1, 32: 9}], []byte{0x07})) {
			t.Fatalf("reverse diff lost: %+v", got.rev)
		}
		if v, ok := got.fwd.Accounts[types.Hash{2}]; len(r.fwd.Accounts) > 0 && (!ok || v != nil) {
			t.Fatal("a deletion did not decode as nil")
		}
	}
	// Every truncation is an error, never a shorter record.
	enc := sampleRecord().encode()
	for i := 0; i < len(enc); i++ {
		if _, err := decodeRecord(enc[:i]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: %v", i, err)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(sampleRecord().encode())
	f.Add((&record{fwd: &state.Diff{}}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			return
		}
		if _, err := decodeRecord(r.encode()); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
	})
}

// TestJournalReadsAndRewind moves a copy through three states and reads
// each back through the journal, undoes two moves, and checks that a
// state beyond the journal is not covered.
func TestJournalReadsAndRewind(t *testing.T) {
	kv := store.NewMem()
	l, err := Open(kv, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	ah := types.Hash{0xa}
	roots := []types.Hash{state.EmptyRoot, {1}, {2}, {3}}
	for i := 1; i < len(roots); i++ {
		var b store.Batch
		tx := l.Begin(&b, trie.NewMemoryDB())
		d := &state.Diff{Accounts: map[types.Hash][]byte{ah: {byte(0x80 + i)}}, Wiped: map[types.Hash]struct{}{}, Storage: map[types.Hash]map[types.Hash][]byte{}}
		if err := tx.Apply(roots[i-1], roots[i], uint64(i), types.Hash{byte(i)}, d); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range [][]byte{nil, {0x81}, {0x82}, {0x83}} {
		v, ok, err := l.Account(roots[i], ah)
		if i == 0 {
			if ok {
				t.Fatal("a state beyond the journal of 2 is covered")
			}
			continue
		}
		if err != nil || !ok || !bytes.Equal(v, want) {
			t.Fatalf("state %d: %x %v %v, want %x", i, v, ok, err, want)
		}
	}
	// Reopened, the journal is read back.
	if l, err = Open(kv, 2, false); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := l.Account(roots[1], ah); !ok || !bytes.Equal(v, []byte{0x81}) {
		t.Fatalf("after reopening: %x %v", v, ok)
	}
	// Back to state 1: two moves undone, each kept as a side record.
	var b store.Batch
	tx := l.Begin(&b, trie.NewMemoryDB())
	if ok, err := tx.rewindTo(roots[1]); !ok || err != nil {
		t.Fatalf("rewind: %v %v", ok, err)
	}
	if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
		t.Fatal(err)
	}
	if r, _ := l.Root(); r != roots[1] {
		t.Fatalf("copy at %s after the rewind", r)
	}
	if v, _ := kv.Get(accountKey(ah)); !bytes.Equal(v, []byte{0x81}) {
		t.Fatalf("persisted account %x after the rewind", v)
	}
	if l.Covers(roots[3]) {
		t.Fatal("an undone state is still covered")
	}
	if len(l.sides) != 2 {
		t.Fatalf("%d side records, want 2", len(l.sides))
	}
}

// TestReadsDuringCommit: while a move's batch is being written (its
// fsync, here a write held open), reads of the state before and after the
// move proceed and give the same answers as once the batch has landed; a
// failed write leaves the copy where it was.
func TestReadsDuringCommit(t *testing.T) {
	kv := store.NewMem()
	l, err := Open(kv, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	ah, sh := types.Hash{0xa}, types.Hash{0x5}
	move := func(from, to types.Hash, acct, slot byte) (*Tx, *store.Batch) {
		var b store.Batch
		tx := l.Begin(&b, trie.NewMemoryDB())
		d := &state.Diff{
			Accounts: map[types.Hash][]byte{ah: {acct}},
			Wiped:    map[types.Hash]struct{}{},
			Storage:  map[types.Hash]map[types.Hash][]byte{ah: {sh: {slot}}},
		}
		if err := tx.Apply(from, to, 1, types.Hash{to[0]}, d); err != nil {
			t.Fatal(err)
		}
		return tx, &b
	}
	r1, r2, r3 := types.Hash{1}, types.Hash{2}, types.Hash{3}
	tx, b := move(state.EmptyRoot, r1, 0x81, 0x01)
	if err := tx.Commit(func() error { return kv.Write(b) }); err != nil {
		t.Fatal(err)
	}
	check := func(when string, root types.Hash, acct, slot byte) {
		t.Helper()
		v, ok, err := l.Account(root, ah)
		if err != nil || !ok || !bytes.Equal(v, []byte{acct}) {
			t.Fatalf("%s: account at %x: %x %v %v, want %x", when, root[0], v, ok, err, acct)
		}
		v, ok, err = l.Storage(root, ah, sh)
		if err != nil || !ok || !bytes.Equal(v, []byte{slot}) {
			t.Fatalf("%s: slot at %x: %x %v %v, want %x", when, root[0], v, ok, err, slot)
		}
	}
	// A commit whose write is held open until the reads are done.
	tx, b = move(r1, r2, 0x82, 0x02)
	writing, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- tx.Commit(func() error {
			close(writing)
			<-release
			return kv.Write(b)
		})
	}()
	<-writing
	reads := make(chan struct{})
	go func() {
		check("during the write", r1, 0x81, 0x01)
		check("during the write", r2, 0x82, 0x02)
		close(reads)
	}()
	select {
	case <-reads:
	case <-time.After(30 * time.Second):
		t.Fatal("reads wait for the commit's write")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	check("after the write", r1, 0x81, 0x01)
	check("after the write", r2, 0x82, 0x02)

	// A failed write: the copy stays at r2, the move's values gone.
	tx, _ = move(r2, r3, 0x83, 0x03)
	errDisk := errors.New("disk full")
	if err := tx.Commit(func() error { return errDisk }); !errors.Is(err, errDisk) {
		t.Fatalf("commit: %v", err)
	}
	if root, ok := l.Root(); !ok || root != r2 {
		t.Fatalf("after a failed write the copy is at %x", root[0])
	}
	if l.Covers(r3) {
		t.Fatal("a state whose write failed is covered")
	}
	check("after a failed write", r2, 0x82, 0x02)
	check("after a failed write", r1, 0x81, 0x01)
}

// A start reads only the heads of the journal's records; a record whose
// diff is damaged is found when a read of an older state needs it, and
// refused (never served), while reads of the newest state go on.
func TestJournalDecodedOnUse(t *testing.T) {
	kv := store.NewMem()
	l, err := Open(kv, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	ah := types.Hash{0xa}
	roots := []types.Hash{state.EmptyRoot, {1}, {2}}
	for i := 1; i < len(roots); i++ {
		var b store.Batch
		tx := l.Begin(&b, trie.NewMemoryDB())
		d := &state.Diff{Accounts: map[types.Hash][]byte{ah: {byte(0x80 + i)}}, Wiped: map[types.Hash]struct{}{}, Storage: map[types.Hash]map[types.Hash][]byte{}}
		if err := tx.Apply(roots[i-1], roots[i], uint64(i), types.Hash{byte(i)}, d); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
			t.Fatal(err)
		}
	}
	// Damage the diff of the newest record (seq 1: the genesis move is
	// not journalled), after its head.
	enc, err := kv.Get(journalKey(1))
	if err != nil {
		t.Fatal(err)
	}
	var b store.Batch
	b.Put(journalKey(1), append(enc[:len(enc)-1:len(enc)-1], 0xff, 0xff))
	if err := kv.Write(&b); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(kv, 4, false); err != nil {
		t.Fatalf("open with a damaged diff: %v", err)
	}
	if v, ok, err := l.Account(roots[2], ah); err != nil || !ok || !bytes.Equal(v, []byte{0x82}) {
		t.Fatalf("newest state: %x %v %v", v, ok, err)
	}
	if _, _, err := l.Account(roots[1], ah); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("older state through the damaged record: %v, want ErrCorrupt", err)
	}
}

// A journal written before record heads existed (no Fh keys) is read
// whole, and its older states stay readable.
func TestJournalWithoutHeads(t *testing.T) {
	kv := store.NewMem()
	l, err := Open(kv, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	ah := types.Hash{0xa}
	roots := []types.Hash{state.EmptyRoot, {1}, {2}, {3}}
	for i := 1; i < len(roots); i++ {
		var b store.Batch
		tx := l.Begin(&b, trie.NewMemoryDB())
		d := &state.Diff{Accounts: map[types.Hash][]byte{ah: {byte(0x80 + i)}}, Wiped: map[types.Hash]struct{}{}, Storage: map[types.Hash]map[types.Hash][]byte{}}
		if err := tx.Apply(roots[i-1], roots[i], uint64(i), types.Hash{byte(i)}, d); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(func() error { return kv.Write(&b) }); err != nil {
			t.Fatal(err)
		}
	}
	for _, drop := range []uint64{1, 2} { // the older heads, then all of them
		var b store.Batch
		b.Delete(headKey(drop))
		if err := kv.Write(&b); err != nil {
			t.Fatal(err)
		}
		if l, err = Open(kv, 4, false); err != nil {
			t.Fatal(err)
		}
		if len(l.layers) != 2 {
			t.Fatalf("heads up to %d dropped: %d layers, want 2", drop, len(l.layers))
		}
		for i, want := range [][]byte{{0x81}, {0x82}, {0x83}} {
			if v, ok, err := l.Account(roots[i+1], ah); err != nil || !ok || !bytes.Equal(v, want) {
				t.Fatalf("heads up to %d dropped: state %d reads %x %v %v", drop, i+1, v, ok, err)
			}
		}
	}
}
