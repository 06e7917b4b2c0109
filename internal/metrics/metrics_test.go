package metrics

import (
	"strings"
	"testing"
)

func TestTextFormat(t *testing.T) {
	r := New()
	c := r.NewCounterVec("calls_total", "Calls by method.", "method", "outcome")
	c.Add(1, "eth_call", "ok")
	c.Add(2, "eth_call", "ok")
	c.Add(1, `we"ird\name`, "error")
	r.GaugeFunc("head", "Head block.", func() float64 { return 42 })
	h := r.NewHistogramVec("lat_seconds", "Latency.", []float64{0.1, 1}, "method")
	h.Observe(0.05, "a")
	h.Observe(0.1, "a") // on a bound: counted in it
	h.Observe(3, "a")
	var b strings.Builder
	r.WriteTo(&b)
	want := `# HELP calls_total Calls by method.
# TYPE calls_total counter
calls_total{method="eth_call",outcome="ok"} 3
calls_total{method="we\"ird\\name",outcome="error"} 1
# HELP head Head block.
# TYPE head gauge
head 42
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{method="a",le="0.1"} 2
lat_seconds_bucket{method="a",le="1"} 2
lat_seconds_bucket{method="a",le="+Inf"} 3
lat_seconds_sum{method="a"} 3.15
lat_seconds_count{method="a"} 3
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
