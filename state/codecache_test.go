package state

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/internal/types"
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
	rc := NewReadCache(1024)
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

	// The bound: a generation holds at most limit bytes; older code goes.
	c := &codeCache{limit: 10}
	for i := range 6 {
		c.put(types.Hash{byte(i)}, make([]byte, 4))
	}
	held := len(c.cur)*4 + len(c.old)*4
	if held > 2*c.limit {
		t.Errorf("cache holds %d bytes of code, bound %d", held, 2*c.limit)
	}
	if _, ok := c.get(types.Hash{0}); ok {
		t.Error("the oldest code is still held after two generations filled")
	}
	if _, ok := c.get(types.Hash{5}); !ok {
		t.Error("the newest code is not held")
	}
	c.put(types.Hash{9}, make([]byte, 11))
	if _, ok := c.get(types.Hash{9}); ok {
		t.Error("code larger than a generation is held")
	}
}
