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
	r.GaugeVecFunc("peers", "Peers by direction.", []string{"dir"}, func(e Emit) { e(2, "out"); e(1, "in") })
	r.SummaryFunc("pause_seconds", "Pauses.", func() Quantiles { return Quantiles{Q: []float64{0, 1}, V: []float64{0.5, 2}, Sum: 3, Count: 2} })
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
# HELP pause_seconds Pauses.
# TYPE pause_seconds summary
pause_seconds{quantile="0"} 0.5
pause_seconds{quantile="1"} 2
pause_seconds_sum 3
pause_seconds_count 2
# HELP peers Peers by direction.
# TYPE peers gauge
peers{dir="in"} 1
peers{dir="out"} 2
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// What the registry writes, ParseText reads back.
func TestParseRoundTrip(t *testing.T) {
	r := New()
	c := r.NewCounterVec("calls_total", "Calls.", "method")
	c.Add(3, "a\"b\\c\nd")
	r.GaugeFunc("head", "Head.", func() float64 { return 7 })
	h := r.NewHistogramVec("lat", "Latency.", []float64{1}, "method")
	h.Observe(0.5, "m")
	var b strings.Builder
	r.WriteTo(&b)
	samples, err := ParseText(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range samples {
		got[s.Name+"|"+s.Labels["method"]+"|"+s.Labels["le"]] = s.Value
	}
	want := map[string]float64{"calls_total|a\"b\\c\nd|": 3, "head||": 7, "lat_bucket|m|1": 1, "lat_bucket|m|+Inf": 1, "lat_sum|m|": 0.5, "lat_count|m|": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	for _, bad := range []string{"novalue", `x{a="1} 2`, `x{a=1} 2`, "x abc", "x 1 2 3"} {
		if _, err := ParseText(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzParseText: no input panics, and every sample read back has a name.
func FuzzParseText(f *testing.F) {
	f.Add("# HELP x y\nx{a=\"b\\\"\"} 1\ny 2 123\n")
	f.Add("x{} NaN")
	f.Fuzz(func(t *testing.T, s string) {
		samples, err := ParseText(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, sm := range samples {
			if sm.Name == "" {
				t.Fatalf("nameless sample from %q", s)
			}
		}
	})
}
