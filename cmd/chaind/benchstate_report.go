package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// scaleMetric is one row of the side-by-side table: a figure of a round.
type scaleMetric struct {
	name string
	of   func(r *scaleRound) float64
}

var scaleMetrics = []scaleMetric{
	{"start to first answer (ms)", func(r *scaleRound) float64 { return ms(r.start) }},
	{"RSS idle (MiB)", func(r *scaleRound) float64 { return float64(r.idle) / (1 << 20) }},
	{"eth_getBalance p50 (ms)", func(r *scaleRound) float64 { return ms(r.bal.pct(50)) }},
	{"eth_getBalance p99 (ms)", func(r *scaleRound) float64 { return ms(r.bal.pct(99)) }},
	{"eth_call balanceOf p50 (ms)", func(r *scaleRound) float64 { return ms(r.call.pct(50)) }},
	{"eth_call balanceOf p99 (ms)", func(r *scaleRound) float64 { return ms(r.call.pct(99)) }},
	{"committed transfers/s", func(r *scaleRound) float64 { return r.txs }},
	{"committed Mgas/s", func(r *scaleRound) float64 { return r.mgas }},
	{"RSS after the load (MiB)", func(r *scaleRound) float64 { return float64(r.loaded) / (1 << 20) }},
	{"restart after the load (ms)", func(r *scaleRound) float64 { return ms(r.restart) }},
	{"data directory after (MiB)", func(r *scaleRound) float64 { return float64(r.bytes) / (1 << 20) }},
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printScaleTable writes per metric the median of each side over the
// rounds and, for every side after the first (chaind), the median of the
// per-round ratios chaind/side (below 1: chaind's figure is the smaller).
// The init rows are single runs (0 where a kept directory was reused).
func printScaleTable(w io.Writer, cfg *scaleConfig, sides []*scaleSide, rounds int) {
	fmt.Fprintf(w, "state of %d accounts + %d token holders; medians of %d round(s); ratio = median of the per-round ratios chaind/peer; load average now %s\n",
		cfg.accounts, cfg.holders, rounds, loadAvg())
	fmt.Fprintf(w, "%-30s", "")
	for i, s := range sides {
		fmt.Fprintf(w, " %14s", s.name)
		if i > 0 {
			fmt.Fprintf(w, " %7s", "ratio")
		}
	}
	fmt.Fprintln(w)
	row := func(name string, of func(s *scaleSide, k int) float64, n int) {
		fmt.Fprintf(w, "%-30s", name)
		for i, s := range sides {
			var per, rat []float64
			for k := 0; k < n && (n == 1 || k < len(s.rounds)); k++ {
				x := of(s, k)
				per = append(per, x)
				if i > 0 && x > 0 {
					rat = append(rat, of(sides[0], k)/x)
				}
			}
			fmt.Fprintf(w, " %14s", fmtFigure(median(per)))
			if i > 0 {
				fmt.Fprintf(w, " %7s", fmtRatio(median(rat)))
			}
		}
		fmt.Fprintln(w)
	}
	row("init (ms)", func(s *scaleSide, _ int) float64 { return ms(s.initTook) }, 1)
	row("init peak RSS (MiB)", func(s *scaleSide, _ int) float64 { return float64(s.initRSS) / (1 << 20) }, 1)
	row("data directory at init (MiB)", func(s *scaleSide, _ int) float64 { return float64(s.initBytes) / (1 << 20) }, 1)
	for _, m := range scaleMetrics {
		row(m.name, func(s *scaleSide, k int) float64 { return m.of(&s.rounds[k]) }, rounds)
	}
	if p := sides[0].rounds; len(p) > 0 {
		fmt.Fprintf(w, "pruning pauses (chaind, last round): %s\n", p[len(p)-1].pauses)
	}
}

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// fmtFigure prints a figure with the precision it deserves.
func fmtFigure(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func fmtRatio(r float64) string {
	if r == 0 {
		return "-"
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// sideNames lists the nodes of a run.
func sideNames(sides []*scaleSide) string {
	names := make([]string, len(sides))
	for i, s := range sides {
		names[i] = s.name
	}
	return strings.Join(names, " vs ")
}

// latencies are measured request times.
type latencies []time.Duration

func (l latencies) pct(p int) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[min(len(l)*p/100, len(l)-1)].Round(time.Microsecond)
}

// timeCalls runs fn n times, one after another, and returns the sorted
// times.
func timeCalls(n int, fn func() error) (latencies, error) {
	out := make(latencies, 0, n)
	for i := 0; i < n; i++ {
		t := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// cpuProfile writes a CPU profile of d, starting once start returns,
// from the pprof listener at addr to path, in the background; wait
// returns once it is written (or failed, which it reports).
func cpuProfile(addr, path string, start func(), d time.Duration) (wait func()) {
	return fetchProfile(addr, "profile", path, start, d)
}

// fetchProfile is cpuProfile for any of the listener's delta profiles
// ("profile", "block", "mutex", "trace"), each taken over d.
func fetchProfile(addr, kind, path string, start func(), d time.Duration) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		start()
		err := func() error {
			if addr == "" {
				return errors.New("the node has no pprof listener")
			}
			resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", addr, kind, max(int(d/time.Second), 1)))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("pprof answered %s", resp.Status)
			}
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, resp.Body)
			return errors.Join(err, f.Close())
		}()
		if err != nil {
			fmt.Printf("profile %s: %v\n", path, err)
		}
	}()
	return func() { <-done }
}

// prunePauses reads chaind_prune_pause_seconds from /metrics: how many
// holds each kind made and the bucket bounds under which 99% and all of
// them fell.
func prunePauses(url string) string {
	kinds, err := readHistograms(url, "chaind_prune_pause_seconds", "kind")
	if err != nil {
		return "metrics unreadable: " + err.Error()
	}
	var parts []string
	for kind, h := range kinds {
		if h.total == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %.0f holds, p99 %s, max %s", kind, h.total, h.bound(0.99), h.bound(1)))
	}
	if len(parts) == 0 {
		return "none observed (no pass ran during the load)"
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// blockTimes reads the block execution and commit histograms from
// /metrics: the bucket bounds of their medians and maxima, where a
// state's size shows in the work on each block.
func blockTimes(url string) string {
	exec, err := readHistograms(url, "chaind_block_execution_seconds", "source")
	if err != nil {
		return "metrics unreadable: " + err.Error()
	}
	commit, err := readHistograms(url, "chaind_block_commit_seconds", "")
	if err != nil {
		return "metrics unreadable: " + err.Error()
	}
	out := "exec"
	if h := exec["built"]; h != nil && h.total > 0 {
		out += fmt.Sprintf(" p50 %s max %s", h.bound(0.5), h.bound(1))
	} else {
		out += " -"
	}
	out += ", commit"
	if h := commit[""]; h != nil && h.total > 0 {
		out += fmt.Sprintf(" p50 %s max %s", h.bound(0.5), h.bound(1))
	} else {
		out += " -"
	}
	return out
}

// histogram is one label value's buckets of a histogram family.
type histogram struct {
	les    []float64
	counts []float64
	total  float64
}

// bound is "≤ " the bucket bound under which the fraction q of the
// observations fell.
func (h *histogram) bound(q float64) string {
	for i, c := range h.counts {
		if c >= q*h.total {
			return "≤ " + time.Duration(h.les[i]*float64(time.Second)).String()
		}
	}
	return "over the largest bucket"
}

// readHistograms reads the buckets of the histogram family name from a
// Prometheus text page, by the value of label ("" for all).
func readHistograms(url, name, label string) (map[string]*histogram, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]*histogram{}
	prefix := name + "_bucket{"
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		labels, val, _ := strings.Cut(line[len(prefix):], "} ")
		var key, le string
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case label:
				key = v
			case "le":
				le = v
			}
		}
		n, _ := strconv.ParseFloat(val, 64)
		h := out[key]
		if h == nil {
			h = &histogram{}
			out[key] = h
		}
		if le == "+Inf" {
			h.total = n
			continue
		}
		bound, _ := strconv.ParseFloat(le, 64)
		h.les, h.counts = append(h.les, bound), append(h.counts, n)
	}
	return out, sc.Err()
}

// cacheCounts are a node's cache lookups so far, by cache: hits, misses
// and bytes held (chaind_cache_hits_total, chaind_cache_misses_total,
// chaind_cache_bytes), and the store's pinned bytes and tables under
// "pinned".
type cacheCounts map[string][3]float64

// readCacheCounts reads cacheCounts from a /metrics page (nil when it
// cannot be read).
func readCacheCounts(url string) cacheCounts {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	out := cacheCounts{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseFloat(val, 64)
		if err != nil {
			continue
		}
		family, labels, _ := strings.Cut(strings.TrimSuffix(name, "}"), "{")
		cache := strings.Trim(strings.TrimPrefix(labels, "cache="), `"`)
		c := out[cache]
		switch family {
		case "chaind_cache_hits_total":
			c[0] = n
		case "chaind_cache_misses_total":
			c[1] = n
		case "chaind_cache_bytes":
			c[2] = n
		case "chaind_store_pinned_bytes":
			cache, c = "pinned", [3]float64{n, out["pinned"][1]}
		case "chaind_store_pinned_tables":
			cache, c = "pinned", [3]float64{out["pinned"][0], n}
		default:
			continue
		}
		out[cache] = c
	}
	return out
}

// since is the hit rate of each cache over the lookups between was and c
// and what it holds then, and the store's pinned blocks as c finds them.
func (c cacheCounts) since(was cacheCounts) string {
	if c == nil {
		return "metrics unreadable"
	}
	var parts []string
	for _, name := range []string{"trie_nodes", "state_reads", "code", "store_blocks"} {
		hits, misses := c[name][0]-was[name][0], c[name][1]-was[name][1]
		if hits+misses == 0 {
			parts = append(parts, name+" -")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%% of %.0f (%s)", name, 100*hits/(hits+misses), hits+misses, mib(uint64(c[name][2]))))
	}
	if p, ok := c["pinned"]; ok {
		parts = append(parts, fmt.Sprintf("pinned %s in %.0f tables", mib(uint64(p[0])), p[1]))
	}
	return strings.Join(parts, ", ")
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) uint64 {
	var n uint64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += uint64(info.Size())
			}
		}
		return nil
	})
	return n
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
