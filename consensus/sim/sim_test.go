package sim

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	simSteps = flag.Int("sim.steps", 100_000, "TestManySeeds runs consecutive seeds until this many events (core steps, deliveries, timers) are processed")
	simSeed  = flag.Uint64("sim.seed", 0, "first seed TestManySeeds runs")
)

// randomConfig draws a faulty-but-tolerable scenario from seed: Byzantine
// power strictly below 1/3, any mix of drops, duplicates, reordering,
// partitions and crashes before GST.
func randomConfig(seed uint64) Config {
	r := rand.New(rand.NewPCG(seed, 0xc0ffee))
	n := 4 + r.IntN(5)
	stakes := make([]int64, n)
	var total int64
	equal := r.IntN(2) == 0
	for i := range stakes {
		stakes[i] = 1
		if !equal {
			stakes[i] = 1 + r.Int64N(4)
		}
		total += stakes[i]
	}
	// The last k validators are Byzantine: the most that stays under 1/3, or fewer.
	k, byz := 0, int64(0)
	for k < n && 3*(byz+stakes[n-1-k]) < total {
		byz += stakes[n-1-k]
		k++
	}
	k = r.IntN(k + 1)
	cfg := Config{
		Stakes: stakes, Byzantine: k, Behaviour: Behaviour(r.IntN(int(Mixed) + 1)), Seed: seed,
		Heights:  uint64(4 + r.IntN(5)),
		Drop:     []float64{0, 0.05, 0.2, 0.4}[r.IntN(4)],
		Dup:      []float64{0, 0.1}[r.IntN(2)],
		MinDelay: time.Millisecond, MaxDelay: time.Duration(10+r.IntN(200)) * time.Millisecond,
		GST:        time.Duration(r.IntN(6000)) * time.Millisecond,
		Partitions: r.IntN(3) == 0,
		Crashes:    r.IntN(3),
	}
	cfg.TornCrashes = r.IntN(3)
	cfg.PostGSTDelay = 50 * time.Millisecond
	if r.IntN(4) == 0 {
		// Proposers that wait for a block time, so the liveness
		// accounting is checked under every fault too (lastcommit.go).
		cfg.BlockTime = time.Duration(20+r.IntN(400)) * time.Millisecond
	}
	return cfg
}

// runSeeds runs consecutive seeds from first, on every core, until steps
// events have been processed, and returns how many seeds it ran.
func runSeeds(first uint64, steps int, gen func(uint64) Config, check func(uint64, Result)) int {
	var wg sync.WaitGroup
	var events atomic.Int64
	next := make(chan uint64)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range next {
				r := Run(gen(seed))
				events.Add(int64(r.Events))
				check(seed, r)
			}
		}()
	}
	n := 0
	for seed := first; n == 0 || events.Load() < int64(steps); seed++ {
		next <- seed
		n++
	}
	close(next)
	wg.Wait()
	return n
}

// TestManySeeds: with faults under 1/3 of the power, no seed may break
// agreement or validity or make an honest validator double-sign, and every
// honest validator decides every height after GST. A short run by default;
// `make sim` runs it with a large -sim.steps. A failure prints the seed
// and the command that replays it.
func TestManySeeds(t *testing.T) {
	var mu sync.Mutex
	var failed, events int
	var rounds float64
	n := runSeeds(*simSeed, *simSteps, randomConfig, func(seed uint64, r Result) {
		mu.Lock()
		defer mu.Unlock()
		events += r.Events
		rounds += r.RoundsMean
		if !r.OK() {
			failed++
			if failed <= 5 {
				t.Errorf("seed %d (%+v): %v\nreplay: go test ./consensus/sim -run TestManySeeds -sim.seed %d -sim.steps 1 -v", seed, randomConfig(seed), r.Violations, seed)
			}
		}
	})
	t.Logf("%d simulations (seeds %d..%d), %d failed, %d events, mean rounds per height %.3f", n, *simSeed, *simSeed+uint64(n)-1, failed, events, rounds/float64(n))
}

// Byzantine power at or above 1/3 must be able to break agreement: the
// checker has to be able to fail. 3 of 7 equal validators equivocate.
func TestOneThirdByzantineBreaksAgreement(t *testing.T) {
	for _, c := range []struct {
		stakes []int64
		byz    int
	}{
		{[]int64{1, 1, 1, 1, 1, 1, 1}, 3},
		{[]int64{1, 1, 1, 1}, 2},
		{[]int64{2, 2, 2, 2, 3, 3}, 2}, // 6 of 14
	} {
		found := -1
		for seed := range uint64(50) {
			r := Run(Config{Stakes: c.stakes, Byzantine: c.byz, Behaviour: Equivocate, Seed: seed, Heights: 20})
			for _, v := range r.Violations {
				if len(v) > 0 && contains(v, "agreement") {
					found = int(seed)
				}
			}
			if found >= 0 {
				break
			}
		}
		if found < 0 {
			t.Errorf("stakes %v with %d equivocators: no agreement violation found in 50 seeds", c.stakes, c.byz)
		} else {
			t.Logf("stakes %v with %d equivocators: agreement violated at seed %d", c.stakes, c.byz, found)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// The same seed replays the same run event for event; another seed does not.
func TestReplay(t *testing.T) {
	cfg := randomConfig(7)
	cfg.Drop, cfg.Dup, cfg.Partitions, cfg.Crashes, cfg.GST = 0.2, 0.1, true, 2, 3*time.Second
	a, b := Run(cfg), Run(cfg)
	if a.TraceHash != b.TraceHash || a.Events != b.Events {
		t.Fatalf("same seed, different traces: %x (%d events) vs %x (%d events)", a.TraceHash, a.Events, b.TraceHash, b.Events)
	}
	cfg.Seed++
	if c := Run(cfg); c.TraceHash == a.TraceHash {
		t.Fatal("different seeds gave the same trace")
	}
}

// Rounds per height is a protocol property: with no faults every height
// decides in round 0 (mean ≤ 1.05); with 20% of messages dropped
// throughout, the mean stays ≤ 2.0.
func TestRoundsPerHeight(t *testing.T) {
	for _, c := range []struct {
		drop float64
		max  float64
	}{{0, 1.05}, {0.2, 2.0}} {
		var sum float64
		const runs = 6
		for seed := range uint64(runs) {
			cfg := Config{Stakes: []int64{1, 1, 1, 1, 1, 1, 1}, Seed: seed, Heights: 30, Drop: c.drop, GST: 1 << 62}
			r := Run(cfg)
			if !r.OK() {
				t.Fatalf("drop %.1f seed %d: %v", c.drop, seed, r.Violations)
			}
			sum += r.RoundsMean
		}
		mean := sum / runs
		t.Logf("drop %.0f%%: mean rounds per height %.3f", 100*c.drop, mean)
		if mean > c.max {
			t.Errorf("drop %.0f%%: mean rounds per height %.3f > %.2f", 100*c.drop, mean, c.max)
		}
	}
}

func benchSim(b *testing.B, n int) {
	stakes := make([]int64, n)
	for i := range stakes {
		stakes[i] = int64(1 + i%3)
	}
	const heights = 20
	b.ResetTimer()
	for i := range b.N {
		r := Run(Config{Stakes: stakes, Seed: uint64(i), Heights: heights})
		if !r.OK() {
			b.Fatal(r.Violations)
		}
	}
	b.ReportMetric(float64(heights*b.N)/b.Elapsed().Seconds(), "heights/s")
}

func BenchmarkSim4(b *testing.B)   { benchSim(b, 4) }
func BenchmarkSim16(b *testing.B)  { benchSim(b, 16) }
func BenchmarkSim100(b *testing.B) { benchSim(b, 100) }

func ExampleRun() {
	r := Run(Config{Stakes: []int64{1, 1, 1, 1}, Seed: 42, Heights: 10})
	fmt.Println(r.OK(), r.Decided, r.RoundsMax)
	// Output: true [10 10 10 10] 1
}

// The liveness check can fail too: with 2 of 4 validators silent nothing
// can be decided, and the simulator says so.
func TestSilentThirdHaltsAndIsReported(t *testing.T) {
	r := Run(Config{Stakes: []int64{1, 1, 1, 1}, Byzantine: 2, Behaviour: Silent, Seed: 1, Heights: 3, MaxTime: 30 * time.Second})
	if r.OK() || !contains(r.Violations[0], "liveness") {
		t.Fatalf("expected a liveness violation, got %v", r.Violations)
	}
	for _, v := range r.Violations {
		if contains(v, "agreement") {
			t.Fatalf("silence must not break agreement: %v", v)
		}
	}
}

// Seeds that once failed, kept as a quick sample. 38909, 51303, 51913,
// 52068 and 56314 (from a 100k run) stalled because a validator that had
// moved on thanks to a Byzantine precommit only it held crashed and forgot
// it; snapshots now carry the received messages. Since the simulator signs
// with real keys (which reorders the validators and so the proposers) and
// draws more adversaries, these seeds no longer replay those exact runs.
func TestRegressionSeeds(t *testing.T) {
	for _, seed := range []uint64{728, 1017, 1426, 5818, 6590, 38909, 51303, 51913, 52068, 56314} {
		if r := Run(randomConfig(seed)); !r.OK() {
			t.Errorf("seed %d: %v", seed, r.Violations)
		}
	}
}
