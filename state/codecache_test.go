package state

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/trie"
)

// countingDB counts the node (and code) reads that reach the database.
type countingDB struct {
	trie.Database
	reads int
}

func (d *countingDB) Node(h [32]byte) ([]byte, error) {
	d.reads++
	return d.Database.Node(h)
}

// StateDBs sharing a ReadCache read a contract's code from the database
// once, not once each, and the cache keeps no more code than its bound.
func TestReadCacheCode(t *testing.T) {
	s, mem := newEmpty(t)
	a := addr(1)
	code := bytes.Repeat([]byte{0x5b}, 3000)
	s.SetCode(a, code)
	root, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	db := &countingDB{Database: mem}
	rc := NewReadCache(256 << 10)
	reads := func() int {
		st, err := New(root, db)
		if err != nil {
			t.Fatal(err)
		}
		st.SetReadCache(rc)
		before := db.reads
		if got := st.GetCode(a); !bytes.Equal(got, code) {
			t.Fatalf("code of %d bytes, want %d", len(got), len(code))
		}
		return db.reads - before
	}
	first := reads()
	if second := reads(); second >= first {
		t.Errorf("second StateDB made %d database reads for the account and its code, the first %d: the code was read again", second, first)
	}
}
