package metrics

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The Go and process families come out under the Prometheus client's
// names and types, with values that fit this process.
func TestGoAndProcessFamilies(t *testing.T) {
	r := New()
	RegisterGo(r)
	procErr := RegisterProcess(r)
	if runtime.GOOS == "linux" && procErr != nil {
		t.Fatalf("RegisterProcess on Linux: %v", procErr)
	}
	runtime.GC() // at least one cycle for the pause summary
	var b strings.Builder
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	samples, err := ParseText(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	val := map[string]float64{}
	for _, s := range samples {
		if s.Labels["quantile"] == "" {
			val[s.Name] = s.Value
		}
	}
	pos := func(v float64) bool { return v > 0 }
	type check struct {
		name, typ string
		ok        func(float64) bool
	}
	checks := []check{
		{"go_goroutines", "gauge", pos},
		{"go_threads", "gauge", pos},
		{"go_info", "gauge", func(v float64) bool { return v == 1 }},
		{"go_sched_gomaxprocs_threads", "gauge", func(v float64) bool { return v == float64(runtime.GOMAXPROCS(0)) }},
		{"go_memstats_alloc_bytes", "gauge", pos},
		{"go_memstats_alloc_bytes_total", "counter", func(v float64) bool { return v >= val["go_memstats_alloc_bytes"] }},
		{"go_memstats_sys_bytes", "gauge", func(v float64) bool { return v >= val["go_memstats_heap_sys_bytes"] }},
		{"go_memstats_heap_inuse_bytes", "gauge", func(v float64) bool { return v >= val["go_memstats_heap_alloc_bytes"] }},
		{"go_memstats_heap_objects", "gauge", pos},
		{"go_memstats_mallocs_total", "counter", func(v float64) bool { return v >= val["go_memstats_frees_total"] }},
		{"go_memstats_next_gc_bytes", "gauge", pos},
		{"go_memstats_last_gc_time_seconds", "gauge", func(v float64) bool { return v > float64(time.Now().Add(-time.Hour).Unix()) }},
		{"go_gc_duration_seconds", "summary", nil},
		{"go_gc_duration_seconds_count", "", pos},
	}
	if procErr == nil {
		checks = append(checks,
			check{"process_cpu_seconds_total", "counter", func(v float64) bool { return v >= 0 }},
			check{"process_resident_memory_bytes", "gauge", func(v float64) bool { return v > 1<<20 }},
			check{"process_virtual_memory_bytes", "gauge", func(v float64) bool { return v >= val["process_resident_memory_bytes"] }},
			check{"process_open_fds", "gauge", func(v float64) bool { return v >= 3 && v <= val["process_max_fds"] }},
			check{"process_start_time_seconds", "gauge", func(v float64) bool {
				now := float64(time.Now().Unix())
				return v <= now+1 && v > now-24*3600
			}},
		)
	}
	for _, c := range checks {
		if c.typ != "" && !strings.Contains(text, "# TYPE "+c.name+" "+c.typ+"\n") {
			t.Errorf("%s: no TYPE %s line", c.name, c.typ)
		}
		if c.ok == nil {
			continue
		}
		v, ok := val[c.name]
		if !ok || !c.ok(v) {
			t.Errorf("%s = %v (present %v): implausible", c.name, v, ok)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want procStat
		err  bool
	}{
		{in: "821 (cat) R 613 613 25128 0 -1 4194304 102 0 0 0 7 3 0 0 20 0 1 0 2119184 3133440 394 18446744073709551615 0",
			want: procStat{utime: 7, stime: 3, startTicks: 2119184, vsize: 3133440, rssPages: 394}},
		// A command name with spaces and a ')' of its own.
		{in: "9 (a) b (c)) S 1 1 1 0 -1 0 0 0 0 0 12 34 0 0 20 0 1 0 55 4096 2 0",
			want: procStat{utime: 12, stime: 34, startTicks: 55, vsize: 4096, rssPages: 2}},
		{in: "9 (x) S 1 2 3", err: true},
		{in: "no parenthesis", err: true},
		{in: "9 (x) S 1 1 1 0 -1 0 0 0 0 0 x 34 0 0 20 0 1 0 55 4096 2 0", err: true},
	} {
		got, err := parseProcStat([]byte(tc.in))
		if tc.err {
			if !errors.Is(err, errProcStat) {
				t.Errorf("%q: err %v, want errProcStat", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// The fd count is this process's: opening a file adds one.
func TestOpenFDs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIPPED: /proc is Linux's")
	}
	before, err := openFDs()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if after, _ := openFDs(); after != before+1 {
		t.Fatalf("open fds %d then %d after opening one", before, after)
	}
}
