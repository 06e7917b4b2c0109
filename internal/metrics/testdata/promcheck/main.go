// Command promcheck parses Prometheus text exposition from stdin with the
// Prometheus project's own parser (github.com/prometheus/common/expfmt)
// and prints one line per sample: name{labels} value, sorted. chaind's
// metrics tests feed it the node's /metrics answer.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

func main() {
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse error:", err)
		os.Exit(1)
	}
	var lines []string
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			id := name + "{" + strings.Join(ls, ",") + "}"
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				lines = append(lines, fmt.Sprintf("%s %s %g", f.GetType(), id, m.GetCounter().GetValue()))
			case dto.MetricType_GAUGE:
				lines = append(lines, fmt.Sprintf("%s %s %g", f.GetType(), id, m.GetGauge().GetValue()))
			case dto.MetricType_HISTOGRAM:
				lines = append(lines, fmt.Sprintf("%s %s count=%d buckets=%d", f.GetType(), id, m.GetHistogram().GetSampleCount(), len(m.GetHistogram().GetBucket())))
			default:
				lines = append(lines, fmt.Sprintf("%s %s", f.GetType(), id))
			}
		}
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
}
