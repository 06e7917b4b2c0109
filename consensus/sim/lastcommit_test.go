package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The staking rule the absent records feed, in the shape of the chain's
// (internal/staking punish): heights fall in fixed windows of
// missedWindow, and a validator counted absent at more than maxMissed
// heights of one window is jailed. Scaled down from the default 50 of 100
// so that a simulation of a few dozen heights spans whole windows.
const (
	missedWindow = 10
	maxMissed    = 5
)

// jailed reports whether validator i is jailed by the absent records.
func jailed(absent map[uint64][]int, i int) bool {
	misses := map[uint64]int{}
	for h, list := range absent {
		for _, a := range list {
			if a == i {
				misses[h/missedWindow]++
			}
		}
	}
	for _, m := range misses {
		if m > maxMissed {
			return true
		}
	}
	return false
}

// livenessConfig draws a network whose honest messages, from GST on,
// arrive well within the block time, with some validators silent (under a
// third of the power) and faults before GST.
func livenessConfig(seed uint64) Config {
	r := rand.New(rand.NewPCG(seed, 0x11fe))
	n := 4 + r.IntN(4)
	stakes := make([]int64, n)
	for i := range stakes {
		stakes[i] = 1 + r.Int64N(2)
	}
	var silent int64
	k := 0
	for k < n-1 && 3*(silent+stakes[n-1-k]) < sum(stakes) {
		silent += stakes[n-1-k]
		k++
	}
	return Config{
		Stakes: stakes, Byzantine: r.IntN(k + 1), Behaviour: Silent, Seed: seed,
		Heights:   30,
		BlockTime: 300 * time.Millisecond,
		Drop:      []float64{0, 0.1, 0.3}[r.IntN(3)],
		MinDelay:  time.Millisecond, MaxDelay: time.Duration(10+r.IntN(100)) * time.Millisecond,
		PostGSTDelay: 50 * time.Millisecond,
		GST:          time.Duration(r.IntN(2000)) * time.Millisecond,
		Crashes:      r.IntN(2),
	}
}

func sum(xs []int64) (t int64) {
	for _, x := range xs {
		t += x
	}
	return t
}

// TestLivenessAccounting: in every run the chain counts a validator absent
// from a height only when no precommit of its for the decision reached the
// next proposer before it built (the simulator's own check, a violation
// otherwise). Honest validators, whose votes arrive within the block time
// from GST on, are never jailed; a silent validator is absent from every
// height and always jailed.
func TestLivenessAccounting(t *testing.T) {
	seeds := uint64(60)
	if testing.Short() {
		seeds = 15
	}
	for seed := range seeds {
		cfg := livenessConfig(seed)
		r := Run(cfg)
		if !r.OK() {
			t.Fatalf("seed %d (%+v): %v", seed, cfg, r.Violations)
		}
		if uint64(len(r.Absent)) < cfg.Heights/2 {
			t.Fatalf("seed %d: absent records for %d of %d heights", seed, len(r.Absent), cfg.Heights)
		}
		n := len(cfg.Stakes)
		for i := range n {
			silent := i >= n-cfg.Byzantine
			if j := jailed(r.Absent, i); j != silent {
				t.Fatalf("seed %d: validator %d (silent %v) jailed %v; absent records %v", seed, i, silent, j, r.Absent)
			}
			if !silent {
				continue
			}
			for h, list := range r.Absent {
				found := false
				for _, a := range list {
					found = found || a == i
				}
				if !found {
					t.Fatalf("seed %d: silent validator %d counted present at height %d", seed, i, h)
				}
			}
		}
	}
}
