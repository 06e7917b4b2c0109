package bft

import (
	"context"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

func TestValidationCostCapsBlocks(t *testing.T) {
	var c validationCost
	if n := c.maxTxs(200 * time.Millisecond); n != 0 {
		t.Fatalf("capped at %d before any measurement", n)
	}
	c.observe(10, time.Second) // too small a block to tell
	if n := c.maxTxs(200 * time.Millisecond); n != 0 {
		t.Fatalf("a 10-transaction block set the cap to %d", n)
	}
	c.observe(1000, 100*time.Millisecond) // 100µs a transaction
	if n := c.maxTxs(200 * time.Millisecond); n != 2000 {
		t.Fatalf("cap %d, want 2000", n)
	}
	c.observe(1000, 300*time.Millisecond) // slower now: the average moves halfway
	if n := c.maxTxs(200 * time.Millisecond); n != 1000 {
		t.Fatalf("cap %d, want 1000", n)
	}
	c.observe(100, 10*time.Second) // a validator far too slow still takes a few
	if n := c.maxTxs(200 * time.Millisecond); n != minCostSample {
		t.Fatalf("cap %d, want the floor %d", n, minCostSample)
	}
}

func TestBudgets(t *testing.T) {
	for _, tc := range []struct{ block, build, validation time.Duration }{
		{0, minBuildTime, minBuildTime},
		{100 * time.Millisecond, minBuildTime, minBuildTime},
		{500 * time.Millisecond, 150 * time.Millisecond, 250 * time.Millisecond},
		{2 * time.Second, 600 * time.Millisecond, time.Second},
	} {
		if got := buildBudget(tc.block); got != tc.build {
			t.Errorf("block time %v: build budget %v, want %v", tc.block, got, tc.build)
		}
		if got := validationBudget(tc.block); got != tc.validation {
			t.Errorf("block time %v: validation budget %v, want %v", tc.block, got, tc.validation)
		}
	}
}

// The build lead follows the proposer's recent builds and never passes
// the build budget, so an idle chain (builds of a few microseconds) keeps
// its block time.
func TestBuildLead(t *testing.T) {
	var l buildLead
	budget := 150 * time.Millisecond
	if got := l.get(budget); got != 0 {
		t.Fatalf("lead %v before any build", got)
	}
	l.observe(40 * time.Millisecond)
	if got := l.get(budget); got != 40*time.Millisecond {
		t.Fatalf("lead %v after one 40ms build", got)
	}
	l.observe(120 * time.Millisecond) // moves a quarter of the way
	if got := l.get(budget); got != 60*time.Millisecond {
		t.Fatalf("lead %v, want 60ms", got)
	}
	for i := 0; i < 20; i++ {
		l.observe(time.Second)
	}
	if got := l.get(budget); got != budget {
		t.Fatalf("lead %v past the budget %v", got, budget)
	}
}

// A validator's cost per transaction of others' blocks counts the commit
// as well as the validation: both are on the critical path before the next
// height, and the flat copy of the state moved work from the one to the
// other. The chain's observer stretches the commit of block 1 on the
// validator to 200 ms; the proposer's own block and a block a validator
// only stored (without validating it) are not samples.
func TestValidationCostCountsCommit(t *testing.T) {
	r := newAppRig(t, 7, 4, 30_000_000, false)
	for _, tx := range r.transfers(0, 2*minCostSample) {
		if err := r.pools[0].Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	v, err := r.apps[0].Propose(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	txs := txCount(t, v)
	if txs < minCostSample {
		t.Fatalf("block of %d transactions, want at least %d", txs, minCostSample)
	}
	if err := r.apps[1].Validate(ctx, 1, v); err != nil {
		t.Fatal(err)
	}
	if n := r.apps[1].cost.maxTxs(time.Second); n != 0 {
		t.Fatalf("cost measured before the commit: cap %d", n)
	}
	const slow = 200 * time.Millisecond
	r.chains[1].SetObserver(chain.Observer{Committed: func(*types.Block, time.Duration) { time.Sleep(slow) }})
	r.decide(1, v)
	if per := r.apps[1].cost.perTx; per*time.Duration(txs) < slow {
		t.Fatalf("cost %v a transaction over %d transactions: the %v commit is not counted", per, txs, slow)
	}
	for _, i := range []int{0, 2} { // the proposer; a validator that stored the block unvalidated
		if per := r.apps[i].cost.perTx; per != 0 {
			t.Errorf("app %d measured %v a transaction", i, per)
		}
	}
}
