// Command netbench runs chaind and CometBFT (kvstore) side by side as
// networks of 4 validator processes on loopback and prints one table:
// block intervals idle at each block-time setting (the fastest stable one
// marked), committed transactions per second under load with the block
// interval they came at, and vote gossip latency (p50/p99) taken from the
// nodes' logs. Every measurement alternates between the two networks, so a
// busy machine disturbs both alike.
//
// chaind's load is signed transfers (each one recovered, executed and
// stored by every validator); CometBFT's is the kvstore's "key=value"
// transactions, which carry no signature and no execution.
//
//	go run ./netbench -chaind BIN -cometbft BIN [flags]
//
// -chaind takes several binaries as NAME=BIN,NAME=BIN (two commits side by
// side, alternating in one run); -cometbft none leaves CometBFT out;
// -idle 0 skips the idle settings; -work DIR keeps the nodes' logs;
// -profile DIR writes a CPU profile of each chaind validator over each
// load run's measured window.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

// network is one of the two systems under test, started fresh for each
// measurement.
type network interface {
	Name() string
	// Start runs 4 validators with the given block-time setting; debug
	// turns on the logs the vote latency is read from.
	Start(blockTime time.Duration, debug bool) error
	Stop()
	// Height is the head of validator 0.
	Height() (uint64, error)
	// TxCount is the number of transactions of block h.
	TxCount(h uint64) (int, error)
	// Prepare readies load of rate transactions a second for d (funded
	// senders, pre-signed transactions), before the measured window.
	Prepare(rate int, d time.Duration) error
	// Load submits transactions at about rate per second until stop is
	// closed and returns how many were accepted.
	Load(rate int, stop <-chan struct{}) (int, error)
	// VoteLatencies reads, from the logs of the last run, how long each
	// vote took from its signer to each other validator.
	VoteLatencies() ([]time.Duration, error)
}

func main() {
	chaindBin := flag.String("chaind", "", "chaind binary, or NAME=BIN,NAME=BIN to compare builds (required)")
	cometBin := flag.String("cometbft", "", "cometbft v0.38 binary (required; none: leave CometBFT out)")
	idle := flag.Duration("idle", 10*time.Second, "how long block intervals are sampled at each setting (0: no idle runs)")
	profile := flag.String("profile", "", "directory for CPU profiles of each chaind validator over each load run's measured window")
	duration := flag.Duration("duration", 20*time.Second, "how long load is submitted")
	rate := flag.Int("rate", 3500, "transactions per second offered under load")
	loadBlock := flag.Duration("load-block-time", 500*time.Millisecond, "block-time setting of the load runs")
	settings := flag.String("block-times", "1s,500ms,200ms,100ms", "block-time settings for the idle intervals (chaind --block-time, CometBFT timeout_commit); the first is the default of both")
	rounds := flag.Int("rounds", 1, "alternating rounds; medians are reported")
	work := flag.String("work", "", "directory for the networks (default: a temporary one, removed)")
	flag.Parse()
	if *chaindBin == "" || *cometBin == "" {
		fmt.Fprintln(os.Stderr, "netbench: -chaind and -cometbft are required")
		os.Exit(2)
	}
	var bts []time.Duration
	for _, s := range strings.Split(*settings, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			fmt.Fprintln(os.Stderr, "netbench: -block-times:", err)
			os.Exit(2)
		}
		bts = append(bts, d)
	}
	dir := *work
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "netbench-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
	}
	var nets []network
	for _, spec := range strings.Split(*chaindBin, ",") {
		name, bin, named := strings.Cut(spec, "=")
		if !named {
			name, bin = "", spec
		}
		c := newChaind(bin, dir)
		c.label, c.profile = name, *profile
		nets = append(nets, c)
	}
	if *cometBin != "none" {
		nets = append(nets, newComet(*cometBin, dir))
	}
	if *idle <= 0 {
		bts = nil
	}
	if *profile != "" {
		if err := os.MkdirAll(*profile, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	res := map[string]*results{}
	for _, n := range nets {
		res[n.Name()] = &results{idle: map[time.Duration][]intervals{}}
	}
	fail := func(n network, what string, err error) {
		fmt.Fprintf(os.Stderr, "netbench: %s %s: %v\n", n.Name(), what, err)
		n.Stop()
		os.Exit(1)
	}
	for r := 0; r < *rounds; r++ {
		for _, bt := range bts {
			for _, n := range nets {
				fmt.Fprintf(os.Stderr, "round %d: %s idle at %v ...\n", r+1, n.Name(), bt)
				if err := n.Start(bt, false); err != nil {
					fail(n, "start", err)
				}
				iv, err := sampleIdle(n, *idle)
				n.Stop()
				if err != nil {
					fail(n, "idle", err)
				}
				res[n.Name()].idle[bt] = append(res[n.Name()].idle[bt], iv)
			}
		}
		for _, n := range nets {
			fmt.Fprintf(os.Stderr, "round %d: %s under load at %v ...\n", r+1, n.Name(), *loadBlock)
			if err := n.Start(*loadBlock, true); err != nil {
				fail(n, "start", err)
			}
			l, err := runLoad(n, *rate, *duration)
			n.Stop()
			if err != nil {
				fail(n, "load", err)
			}
			lat, err := n.VoteLatencies()
			if err != nil {
				fail(n, "vote latencies", err)
			}
			l.votes = lat
			res[n.Name()].load = append(res[n.Name()].load, l)
			fmt.Fprintf(os.Stderr, "round %d: %s: committed %.0f tx/s, block interval p50 / p90 / max %v / %v / %v, accepted %d / %d\n",
				r+1, n.Name(), float64(l.committed)/l.window.Seconds(), ms(l.blocks.p50), ms(l.blocks.p90), ms(l.blocks.max), l.accepted, l.offered)
		}
	}
	printTable(nets, res, bts, *loadBlock, *rate)
	for _, n := range nets {
		if g, ok := n.(interface{ Gossip() []string }); ok && len(g.Gossip()) > 0 {
			fmt.Printf("\n%s gossip counters at the end of the last load run:\n", n.Name())
			for i, line := range g.Gossip() {
				fmt.Printf("  node %d: %s\n", i, line)
			}
		}
	}
}

type results struct {
	idle map[time.Duration][]intervals
	load []loadResult
}

// intervals summarises the time between consecutive blocks.
type intervals struct {
	n        int
	p50, p90 time.Duration
	max      time.Duration
}

func summarise(d []time.Duration) intervals {
	if len(d) == 0 {
		return intervals{}
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return intervals{n: len(s), p50: pct(s, 50), p90: pct(s, 90), max: s[len(s)-1]}
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// stable: no interval beyond twice the median, the 90th percentile within
// half a median of it.
func (iv intervals) stable() bool {
	return iv.n >= 5 && iv.max <= 2*iv.p50 && 2*iv.p90 <= 3*iv.p50
}

// watchBlocks polls the head every 5 ms and reports each new block's
// arrival time, until stop is closed.
func watchBlocks(n network, stop <-chan struct{}, arrived func(h uint64, at time.Time)) error {
	last, err := n.Height()
	if err != nil {
		return err
	}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-t.C:
		}
		h, err := n.Height()
		if err != nil {
			continue // a busy node; try again
		}
		now := time.Now()
		for ; last < h; last++ {
			arrived(last+1, now)
		}
	}
}

// waitBlocks waits until the network has made a few blocks.
func waitBlocks(n network, count uint64, within time.Duration) error {
	deadline := time.Now().Add(within)
	start, _ := n.Height()
	for {
		if h, err := n.Height(); err == nil && h >= start+count && h >= count {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("fewer than %d blocks within %v", count, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sampleIdle(n network, d time.Duration) (intervals, error) {
	if err := waitBlocks(n, 3, 60*time.Second); err != nil {
		return intervals{}, err
	}
	var times []time.Time
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	if err := watchBlocks(n, stop, func(_ uint64, at time.Time) { times = append(times, at) }); err != nil {
		return intervals{}, err
	}
	return summarise(gaps(times)), nil
}

func gaps(times []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(times); i++ {
		out = append(out, times[i].Sub(times[i-1]))
	}
	return out
}

type loadResult struct {
	offered, accepted int
	committed         int
	window            time.Duration
	blocks            intervals
	votes             []time.Duration
}

// runLoad offers rate transactions a second for d and counts what blocks
// commit in the steady part: from the first block after a warm-up of a
// fifth of d to the last block that arrives by the end of d.
func runLoad(n network, rate int, d time.Duration) (loadResult, error) {
	if err := waitBlocks(n, 3, 60*time.Second); err != nil {
		return loadResult{}, err
	}
	if err := n.Prepare(rate, d); err != nil {
		return loadResult{}, err
	}
	type arrival struct {
		h  uint64
		at time.Time
	}
	var blocks []arrival
	watchStop := make(chan struct{})
	watchDone := make(chan error, 1)
	go func() {
		watchDone <- watchBlocks(n, watchStop, func(h uint64, at time.Time) { blocks = append(blocks, arrival{h, at}) })
	}()
	stop := make(chan struct{})
	start := time.Now()
	time.AfterFunc(d, func() { close(stop) })
	accepted, err := n.Load(rate, stop)
	end := start.Add(d)
	close(watchStop)
	if werr := <-watchDone; err == nil {
		err = werr
	}
	if err != nil {
		return loadResult{}, err
	}
	warm := start.Add(d / 5)
	var in []arrival
	for _, b := range blocks {
		if !b.at.Before(warm) && !b.at.After(end) {
			in = append(in, b)
		}
	}
	if len(in) < 3 {
		return loadResult{}, fmt.Errorf("only %d blocks in the measured window", len(in))
	}
	res := loadResult{offered: int(float64(rate) * d.Seconds()), accepted: accepted}
	var times []time.Time
	for i, b := range in {
		times = append(times, b.at)
		if i == 0 {
			continue // its transactions were gathered before the window
		}
		c, err := n.TxCount(b.h)
		if err != nil {
			return loadResult{}, err
		}
		res.committed += c
	}
	res.window = in[len(in)-1].at.Sub(in[0].at)
	res.blocks = summarise(gaps(times))
	return res, nil
}

func printTable(nets []network, res map[string]*results, bts []time.Duration, loadBT time.Duration, rate int) {
	fmt.Printf("\n4 validators, one process each, on loopback; %s\n", "numbers from a shared, loaded machine are provisional")
	if len(bts) > 0 {
		printIdle(nets, res, bts)
	}
	fmt.Printf("\n%s\n%-34s", fmt.Sprintf("under load, setting %v, %d tx/s offered", loadBT, rate), "")
	for _, n := range nets {
		fmt.Printf(" %-30s", n.Name())
	}
	fmt.Println()
	printLoad(nets, res)
}

// printIdle prints the idle intervals of each block-time setting.
func printIdle(nets []network, res map[string]*results, bts []time.Duration) {
	fmt.Printf("\n%-34s", "idle block interval p50 / p90 / max")
	for _, n := range nets {
		fmt.Printf(" %-30s", n.Name())
	}
	fmt.Println()
	for i, bt := range bts {
		label := fmt.Sprintf("setting %v", bt)
		if i == 0 {
			label += " (default)"
		}
		fmt.Printf("%-34s", label)
		for _, n := range nets {
			iv := medianIntervals(res[n.Name()].idle[bt])
			mark := ""
			if iv.stable() {
				mark = " stable"
			}
			fmt.Printf(" %-30s", fmt.Sprintf("%v / %v / %v%s", ms(iv.p50), ms(iv.p90), ms(iv.max), mark))
		}
		fmt.Println()
	}
	fmt.Printf("%-34s", "fastest stable setting")
	for _, n := range nets {
		best, fastest := "none", time.Duration(-1)
		for _, bt := range bts {
			if iv := medianIntervals(res[n.Name()].idle[bt]); iv.stable() && (fastest < 0 || bt < fastest) {
				best, fastest = fmt.Sprintf("%v (p50 %v)", bt, ms(iv.p50)), bt
			}
		}
		fmt.Printf(" %-30s", best)
	}
	fmt.Println()
}

// printLoad prints the medians of the load runs: the run of median
// committed throughput, per network.
func printLoad(nets []network, res map[string]*results) {
	rows := []struct {
		name string
		f    func(l loadResult) string
	}{
		{"committed tx/s", func(l loadResult) string { return fmt.Sprintf("%.0f", float64(l.committed)/l.window.Seconds()) }},
		{"block interval p50 / p90 / max", func(l loadResult) string {
			return fmt.Sprintf("%v / %v / %v", ms(l.blocks.p50), ms(l.blocks.p90), ms(l.blocks.max))
		}},
		{"accepted / offered", func(l loadResult) string { return fmt.Sprintf("%d / %d", l.accepted, l.offered) }},
		{"vote gossip latency p50 / p99", func(l loadResult) string {
			s := append([]time.Duration(nil), l.votes...)
			sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
			return fmt.Sprintf("%v / %v (%d votes)", ms(pct(s, 50)), ms(pct(s, 99)), len(s))
		}},
	}
	for _, row := range rows {
		fmt.Printf("%-34s", row.name)
		for _, n := range nets {
			ls := res[n.Name()].load
			sort.Slice(ls, func(i, j int) bool {
				return float64(ls[i].committed)/ls[i].window.Seconds() < float64(ls[j].committed)/ls[j].window.Seconds()
			})
			fmt.Printf(" %-30s", row.f(ls[len(ls)/2]))
		}
		fmt.Println()
	}
}

// medianIntervals picks the round with the median p50.
func medianIntervals(ivs []intervals) intervals {
	if len(ivs) == 0 {
		return intervals{}
	}
	s := append([]intervals(nil), ivs...)
	sort.Slice(s, func(i, j int) bool { return s[i].p50 < s[j].p50 })
	return s[len(s)/2]
}

func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// waitUp polls up for each of n nodes until it answers, for at most 60 s.
func waitUp(n int, up func(i int) error) error {
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < n; i++ {
		for up(i) != nil {
			if time.Now().After(deadline) {
				return fmt.Errorf("not up after 60s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// stopAll stops a network's processes: SIGTERM to all, then each is
// given 10 s before it is killed.
func stopAll(procs []*exec.Cmd) {
	for _, p := range procs {
		p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range procs {
		done := make(chan struct{})
		go func() { p.Process.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
		}
	}
}

// waitTurn waits until the i-th send of a sender that sends every interval
// from start is due; false when stop comes first.
func waitTurn(start time.Time, every time.Duration, i int, stop <-chan struct{}) bool {
	if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-stop:
			return false
		case <-t.C:
		}
	}
	select {
	case <-stop:
		return false
	default:
		return true
	}
}
