// Command peerbench measures chaind's store against Pebble and bbolt on
// the same workloads in one run: random writes, random reads, range scans
// and batch commits with fsync. Engines alternate within every round (the
// first one rotates), and the table gives the median of the rounds and
// the ratios to Pebble and bbolt side by side. It lives in its own module
// so the main module depends on neither.
package main

import (
	"crypto/rand"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

type opener func(dir string, cacheMiB int) (engine, error)

var engines = []struct {
	name string
	open opener
}{{"chaind", openChaind}, {"pebble", openPebble}, {"bbolt", openBolt}}

func main() {
	testing.Init()
	nkeys := flag.Int("keys", 200_000, "keys loaded before the reads and scans")
	rounds := flag.Int("rounds", 6, "rounds; engines alternate within each, in a different order each round (6 rounds run every order of the 3 once)")
	cache := flag.Int("cache", 64, "block cache MiB of chaind and Pebble (bbolt reads through the page cache)")
	benchtime := flag.Duration("benchtime", time.Second, "time per measurement")
	only := flag.String("workloads", "", "run only the workloads whose names contain one of these comma-separated words (e.g. commits,scans); all when empty")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measurements to this file")
	onlyEngines := flag.String("engines", "", "run only these comma-separated engines (e.g. chaind,pebble, to strace or profile one alone); all when empty")
	flag.Parse()
	if *onlyEngines != "" {
		engines = slices.DeleteFunc(engines, func(e struct {
			name string
			open opener
		}) bool {
			return !slices.Contains(strings.Split(*onlyEngines, ","), e.name)
		})
	}
	flag.Set("test.benchtime", benchtime.String())

	dir, err := os.MkdirTemp("", "storebench")
	check(err)
	defer os.RemoveAll(dir)
	keys := make([][]byte, *nkeys)
	for i := range keys {
		keys[i] = make([]byte, 32) // hashes, as most of the chain's keys are
		rand.Read(keys[i])
		// Loaded keys start with 0..254; the write workloads' keys with
		// 255, so the scans and reads meet the same keys in every engine
		// however many each one wrote.
		keys[i][0] %= 255
	}
	val := make([]byte, 100)
	rand.Read(val)

	dbs := make([]engine, len(engines))
	for i, e := range engines {
		db, err := e.open(filepath.Join(dir, e.name), *cache)
		check(err)
		start := time.Now()
		for j := 0; j < len(keys); j += 1000 {
			ks := keys[j:min(j+1000, len(keys))]
			check(db.write(ks, repeat(val, len(ks)), false))
		}
		fmt.Fprintf(os.Stderr, "%s: loaded %d keys in %v\n", e.name, len(keys), time.Since(start).Round(time.Millisecond))
		dbs[i] = db
	}

	workloads := []workload{
		{"random writes (100-key batches, no fsync)", "ns/key", func(db engine, b *testing.B) {
			ks := make([][]byte, 100)
			for i := range ks {
				ks[i] = make([]byte, 32)
			}
			vs := repeat(val, 100)
			for done := 0; done < b.N; done += 100 {
				for _, k := range ks {
					rand.Read(k)
					k[0] = 255
				}
				check(db.write(ks, vs, false))
			}
		}},
		{"random reads (existing keys)", "ns/read", func(db engine, b *testing.B) {
			for range b.N {
				_, err := db.get(keys[mrand.IntN(len(keys))])
				check(err)
			}
		}},
		{"prefix scans (a random 1-byte prefix: keys/255)", "ns/scan", func(db engine, b *testing.B) {
			for range b.N {
				_, err := db.scan([]byte{byte(mrand.IntN(255))})
				check(err)
			}
		}},
		{"batch commits with fsync (10 keys)", "ns/commit", func(db engine, b *testing.B) {
			ks := make([][]byte, 10)
			for i := range ks {
				ks[i] = make([]byte, 32)
			}
			vs := repeat(val, 10)
			for range b.N {
				for _, k := range ks {
					rand.Read(k)
					k[0] = 255
				}
				check(db.write(ks, vs, true))
			}
		}},
	}
	if *only != "" {
		workloads = slices.DeleteFunc(workloads, func(w workload) bool {
			for _, word := range strings.Split(*only, ",") {
				if word != "" && strings.Contains(w.name, word) {
					return false
				}
			}
			return true
		})
	}
	results := make([][][]float64, len(workloads)) // workload, engine, round
	for w := range workloads {
		results[w] = make([][]float64, len(engines))
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	orders := permutations(len(engines))
	for r := range *rounds {
		for w, wl := range workloads {
			for _, i := range orders[r%len(orders)] {
				// What the previous engine left dirty in the page cache
				// is written back now, not in the next one's time.
				syncAll()
				res := testing.Benchmark(func(b *testing.B) { wl.run(dbs[i], b) })
				ns := float64(res.T.Nanoseconds()) / float64(res.N)
				results[w][i] = append(results[w][i], ns)
				fmt.Fprintf(os.Stderr, "round %d %-45s %-7s %10.0f %s\n", r+1, wl.name, engines[i].name, ns, wl.unit)
			}
		}
	}
	for _, db := range dbs {
		check(db.close())
	}

	fmt.Printf("store micro-benchmarks: %d keys loaded, 32-byte keys, 100-byte values, cache %d MiB, median of %d alternating rounds\n", len(keys), *cache, *rounds)
	fmt.Printf("(a shared, loaded machine: compare the ratios, measured side by side, more than the absolute figures)\n\n")
	fmt.Printf("%-45s", "workload")
	for _, e := range engines {
		fmt.Printf(" %12s", e.name)
	}
	// Ratios are chaind's to each other engine, when chaind ran.
	for _, e := range engines[min(1, len(engines)):] {
		if engines[0].name == "chaind" {
			fmt.Printf(" %14s", "chaind/"+e.name)
		}
	}
	fmt.Println()
	for w, wl := range workloads {
		m := make([]float64, len(engines))
		fmt.Printf("%-45s", wl.name)
		for i := range engines {
			m[i] = median(results[w][i])
			fmt.Printf(" %12s", fmtNs(m[i], wl.unit))
		}
		for i := 1; i < len(engines) && engines[0].name == "chaind"; i++ {
			fmt.Printf(" %13.2fx", m[0]/m[i])
		}
		fmt.Println()
	}
	fmt.Printf("\nratios are time per operation: below 1 chaind is faster\n")
}

type workload struct {
	name, unit string
	run        func(db engine, b *testing.B)
}

// permutations lists every order of n engines. Round r runs them in
// order r: over len(orders) rounds each engine runs first, and after each
// other engine, equally often (a fixed rotation would always put the same
// engine after the same one, and any background work an engine leaves,
// compactions or writeback, would always fall on the same successor).
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for pos := 0; pos <= len(p); pos++ {
			q := append(append(slices.Clone(p[:pos]), n-1), p[pos:]...)
			out = append(out, q)
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

func fmtNs(ns float64, unit string) string { return fmt.Sprintf("%.0f %s", ns, unit[3:]) }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func repeat(v []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "storebench:", err)
		os.Exit(1)
	}
}
