// Command peerbench runs the same workloads on chaind and on go-ethereum in
// one process and prints the ratio of their times (ours / geth). It lives in
// its own module so that go-ethereum never enters chaind's go.mod.
//
// Each area registers its cases from its own file with register(). Rounds
// alternate between the two implementations so that a noisy, shared machine
// disturbs both alike; the table reports the median of the rounds.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"testing"
	"time"
)

// Case is one workload implemented twice.
type Case struct {
	Area, Name string
	Ours, Geth func(b *testing.B)
}

var cases []Case

func register(cs ...Case) { cases = append(cases, cs...) }

type measure struct {
	failed bool
	ns     float64
	allocs int64
	bytes  int64
}

func main() {
	runFlag := flag.String("run", "", "only cases whose area/name matches this regexp")
	rounds := flag.Int("rounds", 5, "alternating rounds per case; the median is reported")
	benchtime := flag.Duration("benchtime", 300*time.Millisecond, "target time per round and side")
	list := flag.Bool("list", false, "list the cases and exit")
	flag.Parse()
	testing.Init()
	if err := flag.Set("test.benchtime", benchtime.String()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	re, err := regexp.Compile(*runFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "peerbench: bad -run:", err)
		os.Exit(2)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].Area < cases[j].Area })
	if *list {
		for _, c := range cases {
			fmt.Printf("%s/%s\n", c.Area, c.Name)
		}
		return
	}
	fmt.Printf("%-12s %-40s %14s %14s %8s %10s %10s\n", "area", "case", "ours ns/op", "geth ns/op", "ratio", "ours alloc", "geth alloc")
	failed := 0
	for _, c := range cases {
		if !re.MatchString(c.Area + "/" + c.Name) {
			continue
		}
		var ours, geth []measure
		for r := 0; r < *rounds; r++ {
			ours = append(ours, run(c.Ours))
			geth = append(geth, run(c.Geth))
		}
		o, g := median(ours), median(geth)
		if o.failed || g.failed {
			// A side that failed has no time; a ratio against zero would
			// read as a result (+Inf or 0), so the row says which side failed.
			failed++
			fmt.Printf("%-12s %-40s %14s %14s %8s\n", c.Area, c.Name, status(o), status(g), "FAILED")
			continue
		}
		fmt.Printf("%-12s %-40s %14.0f %14.0f %8.2f %10d %10d\n", c.Area, c.Name, o.ns, g.ns, o.ns/g.ns, o.allocs, g.allocs)
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "peerbench: %d case(s) failed (a side's benchmark called b.Fatal; run that case alone to see it)\n", failed)
		os.Exit(1)
	}
}

func status(m measure) string {
	if m.failed {
		return "failed"
	}
	return fmt.Sprintf("%.0f", m.ns)
}

func run(f func(b *testing.B)) measure {
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		f(b)
	})
	if r.N == 0 { // testing.Benchmark's answer when the benchmark failed
		return measure{failed: true}
	}
	return measure{ns: float64(r.T.Nanoseconds()) / float64(r.N), allocs: r.AllocsPerOp(), bytes: r.AllocedBytesPerOp()}
}

// median is the middle round; any failed round fails the case.
func median(ms []measure) measure {
	for _, m := range ms {
		if m.failed {
			return m
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ns < ms[j].ns })
	return ms[len(ms)/2]
}
