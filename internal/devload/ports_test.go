package devload

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// The ports are distinct, below the ephemeral range (where no outgoing
// connection can take them) and bindable once returned.
func TestFreePorts(t *testing.T) {
	ps, err := FreePorts("127.0.0.1", 30)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	lo := ephemeralLow()
	for _, p := range ps {
		if seen[p] {
			t.Fatalf("port %d returned twice", p)
		}
		seen[p] = true
		if p < 10000 || p >= lo {
			t.Fatalf("port %d outside [10000, %d)", p, lo)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d not free after return: %v", p, err)
		}
		l.Close()
	}
}

// A port another process reserved is not handed out, even while nothing
// listens on it (a node of that process stopped to be started again): the
// lock on its file, taken here through a file of its own as another
// process would, turns reserve down; a port reserved here stays ours.
func TestReservedPortsSkipped(t *testing.T) {
	ps, err := FreePorts("127.0.0.1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if reserve(ps[0]) {
		t.Fatalf("port %d, reserved by this process, reserved again", ps[0])
	}
	other := 10000 + (ps[0]-10000+1)%(ephemeralLow()-10000)
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "chaind-ports", strconv.Itoa(other)), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Skipf("port %d's lock is held elsewhere: %v", other, err)
	}
	if reserve(other) {
		t.Fatalf("port %d, locked by another holder, reserved", other)
	}
}

// openPort opens port's lock file as a reserver does, before it locks it.
func openPort(t *testing.T, port int) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(portDir(), strconv.Itoa(port)), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A sweep removes the lock files no one holds and keeps those held, by
// this process (reserve) or another (a lock through a file of its own).
func TestSweepPorts(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // a directory of this test's own
	if err := os.MkdirAll(portDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	const stale, other, ours = 20001, 20002, 20003
	openPort(t, stale).Close() // left by a process that exited
	held := openPort(t, other)
	defer held.Close()
	if !lockCurrent(held, filepath.Join(portDir(), strconv.Itoa(other))) {
		t.Fatal("cannot lock a fresh file")
	}
	if !reserve(ours) {
		t.Fatal("reserve refused a fresh port")
	}
	sweepPorts()
	for _, tc := range []struct {
		port int
		kept bool
	}{{stale, false}, {other, true}, {ours, true}} {
		_, err := os.Stat(filepath.Join(portDir(), strconv.Itoa(tc.port)))
		if kept := err == nil; kept != tc.kept {
			t.Errorf("port %d: file kept %v, want %v", tc.port, kept, tc.kept)
		}
	}
	if reserve(ours) || reserve(other) {
		t.Fatal("a held port reserved again after the sweep")
	}
}

// A reserver that opened a port's file before a sweep removed it must not
// count the lock it then takes: that file is gone from the directory, and
// the next reserver creates and locks a new one for the same port.
func TestSweepRemovesUnderOpenReserver(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	if err := os.MkdirAll(portDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	const port = 20011
	path := filepath.Join(portDir(), strconv.Itoa(port))
	early := openPort(t, port) // opened, not yet locked
	defer early.Close()
	sweepPorts() // finds it unlocked and removes it
	if lockCurrent(early, path) {
		t.Fatal("a lock on a removed file counted as the port's reservation")
	}
	if !reserve(port) {
		t.Fatal("the port is free, yet refused")
	}
	if late := openPort(t, port); lockCurrent(late, path) {
		late.Close()
		t.Fatal("the port reserved twice")
	}
}

// Many reservers and sweepers at once (goroutines, each through files of
// its own, as processes): a port is never held by two at a time.
func TestReserveSweepConcurrent(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	if err := os.MkdirAll(portDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	const ports, workers, rounds = 3, 8, 300
	var holders [ports]atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if (w+r)%4 == 0 {
					sweepPorts()
					continue
				}
				i := (w + r) % ports
				path := filepath.Join(portDir(), strconv.Itoa(20100+i))
				f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
				if err != nil {
					continue // removed between a sweep's listing and here
				}
				if lockCurrent(f, path) {
					if n := holders[i].Add(1); n != 1 {
						select {
						case errs <- fmt.Sprintf("port %d held by %d at once", 20100+i, n):
						default:
						}
					}
					runtime.Gosched()
					holders[i].Add(-1)
				}
				f.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
