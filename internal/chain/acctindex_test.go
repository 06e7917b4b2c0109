package chain

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// checkAccountIndex fails unless every account of the state at root is in
// c's account index, and the index reads the same whole, in chunks, and
// downwards.
func checkAccountIndex(t *testing.T, c *Chain, root types.Hash) {
	t.Helper()
	all, err := c.IndexedAccounts(nil, false, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(all, func(a, b types.Address) int { return bytes.Compare(a[:], b[:]) }) {
		t.Fatalf("index not in address order: %x", all)
	}
	hashed := map[types.Hash]bool{}
	for _, a := range all {
		hashed[types.Hash(crypto.Keccak256(a[:]))] = true
	}
	tr, err := trie.New(root, c.db)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it := tr.NewIterator(nil); it.Next(); n++ {
		if !hashed[types.Hash(it.Key())] {
			t.Fatalf("state %s holds account %x, which the index lacks", root, it.Key())
		}
	}
	if n == 0 {
		t.Fatal("an empty state: the check proves nothing")
	}
	// Read in chunks of 3, both ways, it is the same list.
	var up, down []types.Address
	for bound := []byte(nil); ; {
		chunk, err := c.IndexedAccounts(bound, false, 3)
		if err != nil {
			t.Fatal(err)
		}
		up = append(up, chunk...)
		if len(chunk) < 3 {
			break
		}
		bound = append(bytes.Clone(chunk[2][:]), 0)
	}
	for bound := []byte(nil); ; {
		chunk, err := c.IndexedAccounts(bound, true, 3)
		if err != nil {
			t.Fatal(err)
		}
		down = append(down, chunk...)
		if len(chunk) < 3 {
			break
		}
		bound = bytes.Clone(chunk[2][:])
	}
	slices.Reverse(down)
	if !slices.Equal(up, all) || !slices.Equal(down, all) {
		t.Fatalf("index read in chunks: up %d, down %d addresses, whole %d", len(up), len(down), len(all))
	}
}

// The flat-state harness (flatRun) checks the index against the state
// after each of its random blocks, reorganisations, rewinds, development
// edits and reopenings; here what it does not reach: a failed write, a
// rewind of a block that made an account, and a data directory made
// before the index.
func TestAccountIndexCrash(t *testing.T) {
	h := newCanonHarness(t, powConfig())
	checkAccountIndex(t, h.c, h.c.Head().Root())
	h.insert(h.powBlock(h.c.Head(), 13, h.tx(0, 0, &types.Address{0xa})))
	checkAccountIndex(t, h.c, h.c.Head().Root())

	// A block whose batch fails leaves no entry: the new account is not
	// indexed, before or after a reopening.
	fresh := types.Address{0x77, 0x77}
	b := h.powBlock(h.c.Head(), 13, h.tx(0, 1, &fresh))
	h.kv.fail = true
	if _, err := h.c.InsertBlock(b); !errors.Is(err, errDiskFull) {
		t.Fatalf("insert with the disk full: %v", err)
	}
	h.kv.fail = false
	c, err := Open(h.g, h.kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	if got, _ := c.IndexedAccounts(fresh[:], false, 1); len(got) == 1 && got[0] == fresh {
		t.Fatal("a block that was never written left its account in the index")
	}
	checkAccountIndex(t, c, c.Head().Root())
	h.insert(b)
	if got, _ := c.IndexedAccounts(fresh[:], false, 1); len(got) != 1 || got[0] != fresh {
		t.Fatalf("after the block is written: %x", got)
	}
	checkAccountIndex(t, c, c.Head().Root())

	// A rewind keeps the dropped block's account listed: readers keep
	// the addresses the state they read holds.
	if err := c.Rewind(c.Head().Number() - 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.IndexedAccounts(fresh[:], false, 1); len(got) != 1 || got[0] != fresh {
		t.Fatalf("after a rewind: %x", got)
	}
	checkAccountIndex(t, c, c.Head().Root())

	// A data directory made before the index: no marker, no index.
	var b2 store.Batch
	b2.Delete(keyAcctIndex)
	if err := h.kv.Write(&b2); err != nil {
		t.Fatal(err)
	}
	old, err := Open(h.g, h.kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.IndexedAccounts(nil, false, 10); !errors.Is(err, ErrNoAccountIndex) {
		t.Fatalf("no index: %v", err)
	}
	if !strings.Contains(ErrNoAccountIndex.Error(), "chaind import") {
		t.Fatal("the error does not say how to get the index")
	}
}

// A genesis streamed into a store (chaind init) indexes its accounts as
// one committed through a state does.
func TestAccountIndexStreamedGenesis(t *testing.T) {
	g := `{"config":{"chainId":8118,"homesteadBlock":0,"eip150Block":0,"eip155Block":0,"eip158Block":0,"byzantiumBlock":0,` +
		`"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,"berlinBlock":0,"londonBlock":0},` +
		`"gasLimit":"0x1c9c380","difficulty":"0x1","alloc":{` +
		`"0x00000000000000000000000000000000000000aa":{"balance":"0x1"},` +
		`"0x00000000000000000000000000000000000000bb":{"balance":"0x2","storage":{"0x01":"0x02"}},` +
		`"0xff000000000000000000000000000000000000cc":{"balance":"0x3"}}}`
	kv := store.NewMem()
	sg, err := InitGenesis(strings.NewReader(g), kv, func(*Genesis) Engine { return nil }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(sg, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.IndexedAccounts(nil, true, 10)
	if err != nil || len(got) != 3 || got[0] != (types.Address{0xff, 19: 0xcc}) || got[2] != (types.Address{19: 0xaa}) {
		t.Fatalf("%x %v", got, err)
	}
	checkAccountIndex(t, c, c.Head().Root())
}

// The index reads the same up and down, in chunks of any size and from
// any bound, whether a walk down reads a range whole or has to split it
// by the next byte (more than max(4n, 1024) addresses under one prefix).
func TestAccountIndexWalks(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, size := range []int{0, 1, 40, 3000} {
		db := NewDB(store.NewMem())
		db.acctIndex = true
		var all []types.Address
		var b store.Batch
		for range size {
			var a types.Address
			rng.Read(a[:])
			if size == 3000 && rng.Intn(2) == 0 {
				a[0] = 0x42 // a crowded first byte: the walk down splits it
			}
			all = append(all, a)
			putAcctIndex(&b, a)
		}
		if err := db.kv.Write(&b); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(all, func(x, y types.Address) int { return bytes.Compare(x[:], y[:]) })
		all = slices.Compact(all)
		for _, n := range []int{1, 7, 300, 5000} {
			var up, down []types.Address
			for bound := []byte(nil); ; {
				chunk, err := db.IndexedAccounts(bound, false, n)
				if err != nil {
					t.Fatal(err)
				}
				up = append(up, chunk...)
				if len(chunk) < n {
					break
				}
				bound = append(bytes.Clone(chunk[n-1][:]), 0)
			}
			for bound := []byte(nil); ; {
				chunk, err := db.IndexedAccounts(bound, true, n)
				if err != nil {
					t.Fatal(err)
				}
				down = append(down, chunk...)
				if len(chunk) < n {
					break
				}
				bound = bytes.Clone(chunk[n-1][:])
			}
			slices.Reverse(down)
			if !slices.Equal(up, all) || !slices.Equal(down, all) {
				t.Fatalf("%d addresses, chunks of %d: up %d, down %d", len(all), n, len(up), len(down))
			}
		}
		// From a bound that is no address: a prefix, a longer key.
		for _, bound := range [][]byte{{0x42}, {0x42, 0x80}, {}, append(bytes.Repeat([]byte{0x42}, 20), 1)} {
			var wantUp, wantDown []types.Address
			for _, a := range all {
				if bytes.Compare(a[:], bound) >= 0 {
					wantUp = append(wantUp, a)
				} else {
					wantDown = append([]types.Address{a}, wantDown...)
				}
			}
			up, err := db.IndexedAccounts(bound, false, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			down, err := db.IndexedAccounts(bound, true, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(up, wantUp) || !slices.Equal(down, wantDown) {
				t.Fatalf("%d addresses from %x: up %d (want %d), down %d (want %d)", len(all), bound, len(up), len(wantUp), len(down), len(wantDown))
			}
		}
	}
}
