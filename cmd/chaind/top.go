package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"time"

	"github.com/chaind/chaind/internal/metrics"
)

func init() {
	register(command{"top", "one-screen status of a running node from its /metrics: top [--url URL] [--interval D] [--once]", runTop})
}

// topSnapshot is what one scrape of /metrics says.
type topSnapshot struct {
	at     time.Time
	values map[string]float64    // unlabelled samples
	calls  map[string][2]float64 // method -> ok, error
	lat    map[string][2]float64 // method -> sum seconds, count
}

func scrape(client *http.Client, url string) (*topSnapshot, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	samples, err := metrics.ParseText(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, err
	}
	s := &topSnapshot{at: time.Now(), values: map[string]float64{}, calls: map[string][2]float64{}, lat: map[string][2]float64{}}
	for _, m := range samples {
		switch m.Name {
		case "chaind_rpc_requests_total":
			c := s.calls[m.Labels["method"]]
			if m.Labels["outcome"] == "ok" {
				c[0] += m.Value
			} else {
				c[1] += m.Value
			}
			s.calls[m.Labels["method"]] = c
		case "chaind_rpc_request_duration_seconds_sum":
			l := s.lat[m.Labels["method"]]
			l[0] = m.Value
			s.lat[m.Labels["method"]] = l
		case "chaind_rpc_request_duration_seconds_count":
			l := s.lat[m.Labels["method"]]
			l[1] = m.Value
			s.lat[m.Labels["method"]] = l
		default:
			if len(m.Labels) == 0 {
				s.values[m.Name] = m.Value
			}
		}
	}
	return s, nil
}

// render draws one screen; prev (may be nil) gives rates.
func render(w io.Writer, url string, cur, prev *topSnapshot) {
	v := cur.values
	fmt.Fprintf(w, "chaind top — %s — %s\n\n", url, cur.at.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "head      %-12.0f block interval %s\n", v["chaind_head_number"], interval(v["chaind_block_interval_seconds"]))
	fmt.Fprintf(w, "txpool    %-6.0f pending %.0f queued\n", v["chaind_txpool_pending"], v["chaind_txpool_queued"])
	fmt.Fprintf(w, "consensus %-6.0f rounds  %.0f timeouts\n", v["chaind_consensus_rounds_total"], v["chaind_consensus_timeouts_total"])
	fmt.Fprintf(w, "peers     %-6.0f store %.1f MiB\n", v["chaind_p2p_peers"], v["chaind_store_bytes"]/(1<<20))
	fmt.Fprintf(w, "runtime   %-6.0f goroutines, heap %.1f MiB, %0.f GCs\n\n", v["go_goroutines"], v["go_memstats_heap_alloc_bytes"]/(1<<20), v["go_gc_duration_seconds_count"])
	type row struct {
		method         string
		ok, errs, rate float64
		meanMs         float64
	}
	var rows []row
	for m, c := range cur.calls {
		r := row{method: m, ok: c[0], errs: c[1]}
		if prev != nil {
			if dt := cur.at.Sub(prev.at).Seconds(); dt > 0 {
				p := prev.calls[m]
				r.rate = (c[0] + c[1] - p[0] - p[1]) / dt
			}
		}
		if l := cur.lat[m]; l[1] > 0 {
			r.meanMs = l[0] / l[1] * 1000
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].rate != rows[j].rate {
			return rows[i].rate > rows[j].rate
		}
		return rows[i].ok+rows[i].errs > rows[j].ok+rows[j].errs
	})
	fmt.Fprintf(w, "%-36s %10s %8s %8s %9s\n", "method", "calls", "errors", "per s", "mean ms")
	for i, r := range rows {
		if i == 15 {
			fmt.Fprintf(w, "… %d more methods\n", len(rows)-i)
			break
		}
		fmt.Fprintf(w, "%-36s %10.0f %8.0f %8.1f %9.2f\n", r.method, r.ok+r.errs, r.errs, r.rate, r.meanMs)
	}
}

func runTop(args []string) int {
	fs := flag.NewFlagSet("chaind top", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:6060/metrics", "the node's /metrics (start it with --metrics)")
	interval := fs.Duration("interval", 2*time.Second, "time between screens")
	once := fs.Bool("once", false, "print one screen and exit")
	if code, ok := parseFlags(fs, "chaind top [--url URL] [--interval D] [--once]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(), check{*interval <= 0, "--interval must be positive"}, noArgs(fs)); !ok {
		return code
	}
	client := &http.Client{Timeout: 10 * time.Second}
	var prev *topSnapshot
	for {
		cur, err := scrape(client, *url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind top:", err)
			return 1
		}
		if !*once {
			fmt.Print("\x1b[H\x1b[2J") // home and clear
		}
		render(os.Stdout, *url, cur, prev)
		if *once {
			return 0
		}
		prev = cur
		time.Sleep(*interval)
	}
}

// interval renders a block interval: milliseconds below ten seconds, as
// sub-second blocks have them.
func interval(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.0fms", s*1000)
	}
	return fmt.Sprintf("%.0fs", s)
}
