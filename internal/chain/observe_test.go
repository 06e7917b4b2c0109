package chain

import (
	"testing"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// The observer hears of a block built here, then of its commit; a node
// that inserts the same block hears of its validation, then its commit.
func TestObserver(t *testing.T) {
	g := &Genesis{Config: AllForks(8118), GasLimit: 30_000_000, Alloc: Alloc{}}
	type event struct {
		what string
		num  uint64
	}
	record := func(c *Chain) *[]event {
		var evs []event
		c.SetObserver(Observer{
			Executed: func(b *types.Block, built bool, d time.Duration) {
				what := "validated"
				if built {
					what = "built"
				}
				if d <= 0 {
					t.Errorf("%s block %d took %v", what, b.Number(), d)
				}
				evs = append(evs, event{what, b.Number()})
			},
			Committed: func(b *types.Block, d time.Duration) { evs = append(evs, event{"committed", b.Number()}) },
		})
		return &evs
	}
	proposer, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	follower, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pe, fe := record(proposer), record(follower)
	built, err := proposer.BuildBlock(BuildParams{Coinbase: types.Address{0xc0}, Time: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := proposer.CommitBuilt(built); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.InsertBlock(built.Block); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.InsertBlock(built.Block); err == nil {
		t.Fatal("a known block inserted twice")
	}
	for _, tc := range []struct {
		name      string
		got, want []event
	}{
		{"proposer", *pe, []event{{"built", 1}, {"committed", 1}}},
		{"follower", *fe, []event{{"validated", 1}, {"committed", 1}}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
		for i := range tc.want {
			if tc.got[i] != tc.want[i] {
				t.Fatalf("%s: %v, want %v", tc.name, tc.got, tc.want)
			}
		}
	}
}
