package bft

import (
	"testing"
	"time"
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

func TestBuildBudget(t *testing.T) {
	for _, tc := range []struct{ block, want time.Duration }{
		{0, minBuildTime},
		{100 * time.Millisecond, minBuildTime},
		{500 * time.Millisecond, 200 * time.Millisecond},
		{2 * time.Second, 800 * time.Millisecond},
	} {
		if got := buildBudget(tc.block); got != tc.want {
			t.Errorf("block time %v: budget %v, want %v", tc.block, got, tc.want)
		}
	}
}
