package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net/http"
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

// prunePauses reads chaind_prune_pause_seconds from /metrics: how many
// holds each kind made and the bucket bound under which 99% fell.
func prunePauses(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return "metrics unreadable: " + err.Error()
	}
	defer resp.Body.Close()
	type hist struct {
		les    []float64
		counts []float64
		total  float64
	}
	kinds := map[string]*hist{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "chaind_prune_pause_seconds_bucket{") {
			continue
		}
		labels, val, _ := strings.Cut(line[len("chaind_prune_pause_seconds_bucket{"):], "} ")
		var kind, le string
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case "kind":
				kind = v
			case "le":
				le = v
			}
		}
		n, _ := strconv.ParseFloat(val, 64)
		h := kinds[kind]
		if h == nil {
			h = &hist{}
			kinds[kind] = h
		}
		if le == "+Inf" {
			h.total = n
			continue
		}
		bound, _ := strconv.ParseFloat(le, 64)
		h.les, h.counts = append(h.les, bound), append(h.counts, n)
	}
	var parts []string
	for kind, h := range kinds {
		if h.total == 0 {
			continue
		}
		p99 := "over the largest bucket"
		for i, c := range h.counts {
			if c >= 0.99*h.total {
				p99 = "≤ " + time.Duration(h.les[i]*float64(time.Second)).String()
				break
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %.0f holds, p99 %s", kind, h.total, p99))
	}
	if len(parts) == 0 {
		return "none observed (no pass ran during the load)"
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
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
