package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"sort"
	"testing"
	"time"
)

func TestSeparator(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"abc", "abe", "abd"},             // the first differing byte, one up
		{"abc", "abd", "abc"},             // no room between: a itself
		{"ab", "abc", "ab"},               // a prefix of b
		{"a\xff", "b", "a\xff"},           // 0xff cannot go up
		{"Fa\x10xyz", "Fa\x40", "Fa\x11"}, // hashed keys: prefix and one byte
		{"", "x", ""},
	} {
		got := separator(nil, []byte(tc.a), []byte(tc.b))
		if string(got) != tc.want {
			t.Errorf("separator(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
		if bytes.Compare(got, []byte(tc.a)) < 0 || bytes.Compare(got, []byte(tc.b)) >= 0 {
			t.Errorf("separator(%q, %q) = %q is not in [a, b)", tc.a, tc.b, got)
		}
	}
}

// Tables of hashed keys (the flat state's and the trie's) index their
// blocks under short separators: the index is a fraction of what the
// blocks' last keys took, and every key, present or absent, and every
// scan from any point still reads right.
func TestShortIndexOfHashedKeys(t *testing.T) {
	o := Options{MemtableBytes: 256 << 10, TableBytes: 128 << 10, L1Bytes: 1 << 20, NoSync: true, fs: newMemFS(4), QuietStart: time.Hour}
	o.FlushOnClose = true
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) []byte {
		h := sha256.Sum256(binary.BigEndian.AppendUint64(nil, uint64(i)))
		return append([]byte("Fa"), h[:]...)
	}
	var keys [][]byte
	for i := 0; i < 20000; i += 2 { // odd i: absent keys between them
		var b Batch
		b.Put(key(i), bytes.Repeat([]byte{byte(i)}, 70))
		keys = append(keys, key(i))
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	// Closed and opened again: every key is in a table.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = OpenWith("/db", o); err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	v, _, _ := db.acquire()
	var blocks, indexBytes int64
	for _, lv := range v.levels {
		for _, tb := range lv {
			idx, err := tb.indexBlock(false)
			if err != nil {
				t.Fatal(err)
			}
			blocks += int64(idx.n)
			indexBytes += tb.index.n
		}
	}
	v.unref()
	if blocks < 50 {
		t.Fatalf("%d blocks: the test needs more", blocks)
	}
	if per := indexBytes / blocks; per > 24 {
		t.Errorf("%d index bytes a block: the separators are not short (a last key alone is 34)", per)
	}
	for i := 0; i < 20000; i++ {
		got, err := db.Get(key(i))
		if i%2 == 1 {
			if err != ErrNotFound {
				t.Fatalf("absent key %d: %x, %v", i, got, err)
			}
			continue
		}
		if err != nil || len(got) != 70 || got[0] != byte(i) {
			t.Fatalf("key %d: %x, %v", i, got, err)
		}
	}
	for i := 1; i < 20000; i += 997 { // scans from absent keys
		from := key(i)
		at := sort.Search(len(keys), func(j int) bool { return bytes.Compare(keys[j], from) >= 0 })
		v, seq, err := db.acquire()
		if err != nil {
			t.Fatal(err)
		}
		it := v.iter(seq, true)
		it.seek(from)
		for n := 0; n < 50 && at+n < len(keys); n++ {
			if !it.valid() {
				t.Fatalf("scan from %x: ended at entry %d (%v)", from[:4], n, it.err())
			}
			if !bytes.Equal(it.key(), keys[at+n]) {
				t.Fatalf("scan from %x: entry %d is %x, want %x", from[:4], n, it.key()[:4], keys[at+n][:4])
			}
			it.next()
		}
		v.unref()
	}
}
