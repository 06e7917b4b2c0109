package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// userHZ is the unit of CPU times and the start time in /proc/PID/stat:
// USER_HZ, which Linux fixes at 100 for every architecture it exports to
// user space (sysconf(_SC_CLK_TCK) answers it; reading it needs cgo).
const userHZ = 100

// RegisterProcess adds the process families under the names the
// Prometheus client gives them: CPU time, resident and virtual memory,
// open and maximum file descriptors and the start time, read from
// /proc/self at each scrape. It returns an error, registering nothing,
// when /proc cannot be read (a sandbox without it).
func RegisterProcess(r *Registry) error {
	st, err := readProcStat()
	if err != nil {
		return err
	}
	boot, err := bootTime()
	if err != nil {
		return err
	}
	start := float64(boot) + float64(st.startTicks)/userHZ
	ps := &procSnapshot{}
	r.CounterFunc("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", func() float64 {
		s := ps.read()
		return float64(s.utime+s.stime) / userHZ
	})
	r.GaugeFunc("process_resident_memory_bytes", "Resident memory size in bytes.", func() float64 { return float64(ps.read().rssPages) * float64(os.Getpagesize()) })
	r.GaugeFunc("process_virtual_memory_bytes", "Virtual memory size in bytes.", func() float64 { return float64(ps.read().vsize) })
	r.GaugeFunc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", func() float64 { return start })
	r.GaugeFunc("process_open_fds", "Number of open file descriptors.", func() float64 {
		n, _ := openFDs()
		return float64(n)
	})
	r.GaugeFunc("process_max_fds", "Maximum number of open file descriptors.", func() float64 {
		var lim syscall.Rlimit
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
			return 0
		}
		return float64(lim.Cur)
	})
	return nil
}

// procStat is what RegisterProcess reads of /proc/self/stat.
type procStat struct {
	utime, stime, startTicks, vsize, rssPages uint64
}

var errProcStat = errors.New("metrics: unreadable /proc/self/stat")

func readProcStat() (procStat, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(b)
}

// parseProcStat reads the fields after the command name, which is in
// parentheses and may itself hold spaces and parentheses: the fields
// start after the last ')'. Field 3 (state) is rest[0].
func parseProcStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errProcStat
	}
	rest := strings.Fields(string(b[i+1:]))
	if len(rest) < 22 {
		return procStat{}, fmt.Errorf("%w: %d fields", errProcStat, len(rest)+2)
	}
	var st procStat
	for _, f := range []struct {
		field int
		dst   *uint64
	}{{14, &st.utime}, {15, &st.stime}, {22, &st.startTicks}, {23, &st.vsize}, {24, &st.rssPages}} {
		v, err := strconv.ParseUint(rest[f.field-3], 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("%w: field %d: %v", errProcStat, f.field, err)
		}
		*f.dst = v
	}
	return st, nil
}

// bootTime is the btime line of /proc/stat: when the system booted, in
// Unix seconds, which a process's start ticks count from.
func bootTime() (uint64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("metrics: no btime in /proc/stat")
}

func openFDs() (int, error) {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	return max(len(names)-1, 0), err // less the descriptor reading it
}

// procSnapshot is a recent /proc/self/stat, shared by the families of one
// scrape (see snapshotAge).
type procSnapshot struct {
	mu sync.Mutex
	at time.Time
	st procStat
}

func (p *procSnapshot) read() procStat {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.at) > snapshotAge {
		if st, err := readProcStat(); err == nil {
			p.st, p.at = st, time.Now()
		}
	}
	return p.st
}
