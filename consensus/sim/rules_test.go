package sim

import (
	"testing"
	"time"

	"github.com/chaind/chaind/consensus/internal/rules"
)

// Two of seven equal validators (2/7 < 1/3) equivocate, on a lossy network.
func knobConfig(seed uint64, r rules.Set, drop float64, maxDelay time.Duration, partitions bool) Config {
	return Config{Stakes: []int64{1, 1, 1, 1, 1, 1, 1}, Byzantine: 2, Behaviour: Equivocate, Seed: seed, Heights: 15,
		Drop: drop, MaxDelay: maxDelay, GST: 8 * time.Second, Partitions: partitions, rules: r}
}

// Each safety rule is needed: with it switched off, the simulator finds
// an agreement violation with Byzantine power under 1/3; with it on, the
// same seed is clean. (The crafted scenarios in package consensus show the
// same for each rule, step by step.)
func TestRulesNeeded(t *testing.T) {
	for _, c := range []struct {
		name       string
		rules      rules.Set
		drop       float64
		maxDelay   time.Duration
		partitions bool
		budget     uint64
	}{
		{"quorum size", rules.Set{MajorityQuorum: true}, 0.3, 150 * time.Millisecond, true, 50},
		{"locking", rules.Set{NoLocking: true}, 0.3, 150 * time.Millisecond, true, 400},
		{"PoLC check of L28", rules.Set{NoPOLCheck: true}, 0.5, 300 * time.Millisecond, false, 400},
	} {
		found := false
		for seed := range c.budget {
			r := Run(knobConfig(seed, c.rules, c.drop, c.maxDelay, c.partitions))
			for _, v := range r.Violations {
				if contains(v, "agreement") {
					found = true
				}
			}
			if found {
				if safe := Run(knobConfig(seed, rules.Set{}, c.drop, c.maxDelay, c.partitions)); !safe.OK() {
					t.Errorf("%s: seed %d fails even with every rule on: %v", c.name, seed, safe.Violations)
				}
				t.Logf("%s off: agreement violated at seed %d; with it on, seed %d is clean", c.name, seed, seed)
				break
			}
		}
		if !found {
			t.Errorf("%s off: no agreement violation in %d seeds", c.name, c.budget)
		}
	}
}
