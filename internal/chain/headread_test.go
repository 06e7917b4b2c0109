package chain

import (
	"fmt"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// A balance read at the head, as eth_getBalance makes it (Head, StateAt,
// GetBalance), is one store lookup, the account's flat key, once the
// head's root node is in the node cache: no trie walk.
func TestHeadBalanceReadIsOneLookup(t *testing.T) {
	g := &Genesis{Config: AllForks(8118), GasLimit: 30_000_000, Alloc: Alloc{}}
	var bal U256
	bal.SetUint64(7)
	var addrs []types.Address
	for i := 0; i < 5000; i++ { // a trie some levels deep
		a := types.Address{0xaa, byte(i >> 8), byte(i)}
		g.Alloc[a] = Account{Balance: bal}
		addrs = append(addrs, a)
	}
	kv := &countingKV{KV: store.NewMem()}
	c, err := OpenCached(g, kv, nil, 16)
	if err != nil {
		t.Fatal(err)
	}
	read := func(a types.Address) error {
		st, err := c.StateAt(c.Head().Root())
		if err != nil {
			return err
		}
		if got := st.GetBalance(a).Uint64(); got != 7 || st.Error() != nil {
			return fmt.Errorf("balance of %s: %d, %v", a, got, st.Error())
		}
		return nil
	}
	if err := read(addrs[0]); err != nil { // the root node into the cache
		t.Fatal(err)
	}

	before := kv.gets.Load()
	for _, a := range addrs[1:101] {
		if err := read(a); err != nil {
			t.Fatal(err)
		}
	}
	if n := kv.gets.Load() - before; n != 100 {
		t.Fatalf("100 balance reads at the head made %d store lookups, want 100 (one flat key each)", n)
	}
}
