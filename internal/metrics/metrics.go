// Package metrics is a small Prometheus registry: counters and histograms
// with labels, gauges read when scraped, written in the Prometheus text
// exposition format (version 0.0.4). It depends on the standard library
// only; what to measure is decided by the node.
package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Registry holds metric families and writes them in name order.
type Registry struct {
	mu   sync.Mutex
	fams map[string]family
}

type family interface {
	write(w *bufio.Writer, name string)
}

// New returns an empty registry.
func New() *Registry { return &Registry{fams: map[string]family{}} }

func (r *Registry) add(name, help, typ string, f family) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.fams[name]; dup {
		panic("metrics: " + name + " registered twice")
	}
	r.fams[name] = &described{help: help, typ: typ, f: f}
}

type described struct {
	help, typ string
	f         family
}

func (d *described) write(w *bufio.Writer, name string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(d.help), name, d.typ)
	d.f.write(w, name)
}

// WriteTo writes every family in the text format.
func (r *Registry) WriteTo(out io.Writer) (int64, error) {
	r.mu.Lock()
	names := make([]string, 0, len(r.fams))
	for n := range r.fams {
		names = append(names, n)
	}
	fams := make([]family, len(names))
	sort.Strings(names)
	for i, n := range names {
		fams[i] = r.fams[n]
	}
	r.mu.Unlock()
	cw := &countWriter{w: out}
	w := bufio.NewWriter(cw)
	for i, f := range fams {
		f.write(w, names[i])
	}
	err := w.Flush()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Handler serves the registry on GET.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		r.WriteTo(w)
	})
}

// labelKey joins label values into a map key; values cannot hold NUL.
func labelKey(vals []string) string { return strings.Join(vals, "\x00") }

func writeLabels(w *bufio.Writer, names, vals []string, extra ...string) {
	if len(names) == 0 && len(extra) == 0 {
		return
	}
	w.WriteByte('{')
	first := true
	put := func(n, v string) {
		if !first {
			w.WriteByte(',')
		}
		first = false
		w.WriteString(n)
		w.WriteString(`="`)
		w.WriteString(escapeLabel(v))
		w.WriteByte('"')
	}
	for i, n := range names {
		put(n, vals[i])
	}
	for i := 0; i+1 < len(extra); i += 2 {
		put(extra[i], extra[i+1])
	}
	w.WriteByte('}')
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s)
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// CounterVec is a family of counters told apart by label values.
type CounterVec struct {
	labels []string
	mu     sync.Mutex
	vals   map[string]*counter
}

type counter struct {
	labels []string
	v      float64
}

// NewCounterVec registers a counter family.
func (r *Registry) NewCounterVec(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{labels: labels, vals: map[string]*counter{}}
	r.add(name, help, "counter", c)
	return c
}

// Add adds v (≥ 0) to the counter with the given label values.
func (c *CounterVec) Add(v float64, labelValues ...string) {
	k := labelKey(labelValues)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.vals[k]
	if e == nil {
		e = &counter{labels: append([]string(nil), labelValues...)}
		c.vals[k] = e
	}
	e.v += v
}

// Value is the counter with the given label values (0 before any Add).
func (c *CounterVec) Value(labelValues ...string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.vals[labelKey(labelValues)]; e != nil {
		return e.v
	}
	return 0
}

func (c *CounterVec) write(w *bufio.Writer, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.vals))
	for k := range c.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := c.vals[k]
		w.WriteString(name)
		writeLabels(w, c.labels, e.labels)
		w.WriteByte(' ')
		w.WriteString(formatFloat(e.v))
		w.WriteByte('\n')
	}
}

// GaugeFunc registers a gauge read by calling fn at each scrape.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	r.add(name, help, "gauge", funcFamily(fn))
}

// CounterFunc registers a counter read by calling fn at each scrape (for
// totals kept elsewhere, such as the runtime's GC count).
func (r *Registry) CounterFunc(name, help string, fn func() float64) {
	r.add(name, help, "counter", funcFamily(fn))
}

type funcFamily func() float64

// Emit hands one sample of a labelled family read at scrape time to the
// registry: its value and its label values, in the family's label order.
type Emit func(v float64, labelValues ...string)

// GaugeVecFunc registers a labelled gauge family read by calling fn at
// each scrape; fn emits one sample per label set. The caller keeps the
// label sets few (a fixed list, never a client's input).
func (r *Registry) GaugeVecFunc(name, help string, labels []string, fn func(Emit)) {
	r.add(name, help, "gauge", &vecFunc{labels: labels, fn: fn})
}

// CounterVecFunc is GaugeVecFunc for totals kept elsewhere.
func (r *Registry) CounterVecFunc(name, help string, labels []string, fn func(Emit)) {
	r.add(name, help, "counter", &vecFunc{labels: labels, fn: fn})
}

type vecFunc struct {
	labels []string
	fn     func(Emit)
}

func (f *vecFunc) write(w *bufio.Writer, name string) {
	type sample struct {
		key  string
		vals []string
		v    float64
	}
	var ss []sample
	f.fn(func(v float64, vals ...string) {
		if len(vals) != len(f.labels) {
			panic("metrics: " + name + ": wrong number of label values")
		}
		ss = append(ss, sample{labelKey(vals), vals, v})
	})
	sort.Slice(ss, func(i, j int) bool { return ss[i].key < ss[j].key })
	for _, s := range ss {
		w.WriteString(name)
		writeLabels(w, f.labels, s.vals)
		w.WriteByte(' ')
		w.WriteString(formatFloat(s.v))
		w.WriteByte('\n')
	}
}

// Quantiles is a summary read at scrape time: values at quantiles
// (0 to 1, ascending), the sum of all observations and their count.
type Quantiles struct {
	Q, V  []float64 // quantile and its value, pairwise
	Sum   float64
	Count uint64
}

// SummaryFunc registers a summary read by calling fn at each scrape, for
// distributions another component keeps (the runtime's GC pauses).
func (r *Registry) SummaryFunc(name, help string, fn func() Quantiles) {
	r.add(name, help, "summary", summaryFunc(fn))
}

type summaryFunc func() Quantiles

func (f summaryFunc) write(w *bufio.Writer, name string) {
	q := f()
	for i := range q.Q {
		w.WriteString(name)
		writeLabels(w, nil, nil, "quantile", formatFloat(q.Q[i]))
		w.WriteByte(' ')
		w.WriteString(formatFloat(q.V[i]))
		w.WriteByte('\n')
	}
	w.WriteString(name + "_sum " + formatFloat(q.Sum) + "\n")
	w.WriteString(name + "_count " + strconv.FormatUint(q.Count, 10) + "\n")
}

func (f funcFamily) write(w *bufio.Writer, name string) {
	w.WriteString(name)
	w.WriteByte(' ')
	w.WriteString(formatFloat(f()))
	w.WriteByte('\n')
}

// HistogramVec is a family of histograms with fixed bucket bounds.
type HistogramVec struct {
	labels  []string
	buckets []float64 // upper bounds, ascending, without +Inf
	mu      sync.Mutex
	vals    map[string]*histogram
}

type histogram struct {
	labels []string
	counts []uint64 // per bucket, not cumulative; last is +Inf
	sum    float64
	n      uint64
}

// DefaultBuckets suit request latencies in seconds.
var DefaultBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// NewHistogramVec registers a histogram family.
func (r *Registry) NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	b := append([]float64(nil), buckets...)
	sort.Float64s(b)
	h := &HistogramVec{labels: labels, buckets: b, vals: map[string]*histogram{}}
	r.add(name, help, "histogram", h)
	return h
}

// Observe records v under the given label values.
func (h *HistogramVec) Observe(v float64, labelValues ...string) {
	i := sort.SearchFloat64s(h.buckets, v) // first bound ≥ v
	k := labelKey(labelValues)
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.vals[k]
	if e == nil {
		e = &histogram{labels: append([]string(nil), labelValues...), counts: make([]uint64, len(h.buckets)+1)}
		h.vals[k] = e
	}
	e.counts[i]++
	e.sum += v
	e.n++
}

func (h *HistogramVec) write(w *bufio.Writer, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	keys := make([]string, 0, len(h.vals))
	for k := range h.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := h.vals[k]
		var cum uint64
		for i := 0; i <= len(h.buckets); i++ {
			cum += e.counts[i]
			le := "+Inf"
			if i < len(h.buckets) {
				le = formatFloat(h.buckets[i])
			}
			w.WriteString(name)
			w.WriteString("_bucket")
			writeLabels(w, h.labels, e.labels, "le", le)
			w.WriteByte(' ')
			w.WriteString(strconv.FormatUint(cum, 10))
			w.WriteByte('\n')
		}
		w.WriteString(name)
		w.WriteString("_sum")
		writeLabels(w, h.labels, e.labels)
		w.WriteByte(' ')
		w.WriteString(formatFloat(e.sum))
		w.WriteByte('\n')
		w.WriteString(name)
		w.WriteString("_count")
		writeLabels(w, h.labels, e.labels)
		w.WriteByte(' ')
		w.WriteString(strconv.FormatUint(e.n, 10))
		w.WriteByte('\n')
	}
}
