package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"sort"
	"sync"
	"time"
)

// The closed-loop load of `chaind bench rpc` and `chaind bench graphql`:
// --conns workers each own one keep-alive connection and send the next
// request as soon as the last answer is read, so req/s is what the node
// sustains at that concurrency and the latencies are per request. The
// commands differ only in the request and in how an answer is checked.

// loadFlags are the flags of a closed-loop load.
type loadFlags struct {
	url              string
	conns, runs      int
	duration, warmup time.Duration
}

// define adds the flags to fs; url is the endpoint's default.
func (lf *loadFlags) define(fs *flag.FlagSet, url, urlHelp string) {
	fs.StringVar(&lf.url, "url", url, urlHelp)
	fs.IntVar(&lf.conns, "conns", 32, "concurrent connections (one worker each)")
	fs.DurationVar(&lf.duration, "duration", 10*time.Second, "measured time per run")
	fs.DurationVar(&lf.warmup, "warmup", time.Second, "unmeasured load before each run")
	fs.IntVar(&lf.runs, "runs", 1, "runs; with more than one the medians are printed last")
}

// checks are the rules on the flags' values.
func (lf *loadFlags) checks() []check {
	return []check{
		{lf.conns < 1 || lf.duration <= 0 || lf.runs < 1, "--conns, --duration and --runs must be positive"},
		{lf.warmup < 0, "--warmup must not be negative"},
	}
}

// loadRequest is what every worker sends, and the protocol's cheap check
// that an answer is a result, not an error (the full decode is done once,
// on the checked first request, before the runs).
type loadRequest struct {
	body  []byte
	check func([]byte) error
}

// answerCheck is the cheap check of an answer during a run: the body holds
// the protocol's mark of a good answer and not that of an error. A
// refused one is quoted, in part.
func answerCheck(bad, good string) func([]byte) error {
	b, g := []byte(bad), []byte(good)
	return func(body []byte) error {
		if bytes.Contains(body, b) || !bytes.Contains(body, g) {
			return fmt.Errorf("answer %.200s", body)
		}
		return nil
	}
}

// run loads the endpoint with req for the flags' runs, each after its
// warmup, and prints a line a run and then the medians. The exit code is
// 1 when any answer failed its check.
func (lf *loadFlags) run(req loadRequest) int {
	var all []benchResult
	for i := 0; i < lf.runs; i++ {
		if lf.warmup > 0 {
			load(lf.url, req, lf.conns, lf.warmup)
		}
		r := load(lf.url, req, lf.conns, lf.duration)
		all = append(all, r)
		fmt.Printf("run %d: %s\n", i+1, r)
	}
	if lf.runs > 1 {
		fmt.Printf("median of %d: %s\n", lf.runs, medianResult(all))
	}
	for _, r := range all {
		if r.errors > 0 {
			return 1
		}
	}
	return 0
}

type benchResult struct {
	requests, errors int
	elapsed          time.Duration
	p50, p90, p99    time.Duration
	p999, max        time.Duration
	firstErr         error
}

func (r benchResult) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r benchResult) String() string {
	s := fmt.Sprintf("%d requests in %.1fs: %.0f req/s  p50 %s  p99 %s  max %s  errors %d  (p90 %s  p99.9 %s)",
		r.requests, r.elapsed.Seconds(), r.rate(), fmtLatency(r.p50), fmtLatency(r.p99), fmtLatency(r.max), r.errors,
		fmtLatency(r.p90), fmtLatency(r.p999))
	if r.firstErr != nil {
		s += " (first: " + r.firstErr.Error() + ")"
	}
	return s
}

func fmtLatency(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// load runs conns closed-loop workers sending req to url for d and
// collects every latency.
func load(url string, req loadRequest, conns int, d time.Duration) benchResult {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type worker struct {
		lat      []time.Duration
		errors   int
		firstErr error
	}
	ws := make([]worker, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range ws {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.lat = make([]time.Duration, 0, 1<<14)
			buf := make([]byte, 0, 4096)
			rc, err := newRawConn(url, req.body)
			if err != nil {
				w.errors, w.firstErr = 1, err
				return
			}
			defer rc.close()
			for ctx.Err() == nil {
				t0 := time.Now()
				buf, err = rc.roundTrip(buf)
				if err == nil {
					err = req.check(buf)
				}
				w.lat = append(w.lat, time.Since(t0))
				if err != nil {
					w.errors++
					if w.firstErr == nil {
						w.firstErr = err
					}
				}
			}
		}(&ws[i])
	}
	wg.Wait()
	r := benchResult{elapsed: time.Since(start)}
	var lat []time.Duration
	for _, w := range ws {
		lat = append(lat, w.lat...)
		r.errors += w.errors
		if r.firstErr == nil {
			r.firstErr = w.firstErr
		}
	}
	r.requests = len(lat)
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		r.p50 = lat[len(lat)/2]
		r.p90 = lat[min(len(lat)-1, len(lat)*90/100)]
		r.p99 = lat[min(len(lat)-1, len(lat)*99/100)]
		r.p999 = lat[min(len(lat)-1, len(lat)*999/1000)]
		r.max = lat[len(lat)-1]
	}
	return r
}

// medianResult is the run with the median request rate, with each latency
// figure replaced by the median of that figure over the runs.
func medianResult(rs []benchResult) benchResult {
	med := func(f func(benchResult) time.Duration) time.Duration {
		v := make([]time.Duration, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	sorted := append([]benchResult(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].rate() < sorted[j].rate() })
	m := sorted[len(sorted)/2]
	m.p50 = med(func(r benchResult) time.Duration { return r.p50 })
	m.p90 = med(func(r benchResult) time.Duration { return r.p90 })
	m.p99 = med(func(r benchResult) time.Duration { return r.p99 })
	m.p999 = med(func(r benchResult) time.Duration { return r.p999 })
	m.max = med(func(r benchResult) time.Duration { return r.max })
	m.errors = 0
	for _, r := range rs {
		m.errors += r.errors
	}
	m.firstErr = nil
	return m
}
