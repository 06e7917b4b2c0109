package devload

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// FreePorts returns count distinct ports of host that were free a moment
// ago, for a node process started next to listen on.
//
// They are taken below the kernel's ephemeral range: a port the kernel
// hands out for "listen on port 0" comes from that range, and so does the
// local port of every outgoing connection, so on a busy test machine some
// other process's dial could take such a port before the child binds it
// (TestSentryPartialMesh failed once on CI with "bind: address already in
// use"). Each port is held open until all are found.
//
// A port is also reserved for the life of this process (reserve): a node
// that is stopped and started again on its ports leaves them free in
// between, and another process choosing free ports meanwhile (go test
// runs packages in parallel) took one of a restarted validator's once on
// CI, so the restart found it bound by another node. Every process
// choosing ports here skips those another holds, and removes the files of
// those no process holds any more (sweepPorts).
func FreePorts(host string, count int) ([]int, error) {
	sweepPorts()
	lo := ephemeralLow()
	const floor = 10000
	ports := make([]int, 0, count)
	for tries := 0; len(ports) < count; tries++ {
		if tries > 200*count {
			return nil, fmt.Errorf("devload: no %d free ports on %s below %d", count, host, lo)
		}
		port := floor + rand.IntN(lo-floor)
		l, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
		if err != nil {
			continue // taken, or held by us already
		}
		defer l.Close()
		if !reserve(port) {
			continue // another process chose it
		}
		ports = append(ports, port)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range; 32768,
// Linux's default, where /proc does not say.
func ephemeralLow() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var a, z int
		if n, _ := fmt.Sscan(string(b), &a, &z); n == 2 && a > 10000+1000 {
			lo = a
		}
	}
	return lo
}

// reserved holds the lock files of the ports this process reserved, open
// until it exits (the kernel then lets the locks go, however it ends).
var reserved struct {
	sync.Mutex
	files []*os.File
}

// portDir is the directory of the ports' lock files, shared by every
// process of the user's machine that chooses ports here.
func portDir() string { return filepath.Join(os.TempDir(), "chaind-ports") }

// reserve takes port for this process unless another process holds it:
// an exclusive flock on a file named after it in a directory every
// process shares. Where locks cannot be taken (no such directory), it
// takes the port unreserved, as before.
func reserve(port int) bool {
	dir := portDir()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true
	}
	path := filepath.Join(dir, fmt.Sprint(port))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return true
	}
	if !lockCurrent(f, path) {
		f.Close()
		return false
	}
	reserved.Lock()
	reserved.files = append(reserved.files, f)
	reserved.Unlock()
	return true
}

// lockCurrent takes f's lock if no one holds it and f is still the file at
// path. A lock file is removed (sweepPorts) by whoever holds its lock;
// a process that opened it before the removal and locks it after holds
// the lock of a file no one else will ever open, while the next reserver
// creates a new one at path: both would think the port theirs. So a lock
// counts only on the file path names (same device and inode) once locked.
func lockCurrent(f *os.File, path string) bool {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // held by another process, or being removed
	}
	if same(f, path) {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// same reports whether path names the file f has open.
func same(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// sweepPorts removes the lock files no process holds: a reservation lasts
// as long as its process, which leaves its file behind when it exits (183
// were left after one CI run). A file is removed only by a process holding
// its lock on the file its path names (lockCurrent): then no one else holds
// it, and no one can replace it meanwhile, since a path is only ever
// removed under that lock and only ever created when absent (O_CREATE).
// One that opened it before the removal finds, once it locks, that path
// no longer names its file, and takes nothing.
func sweepPorts() {
	dir := portDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if lockCurrent(f, path) {
			os.Remove(path)
		}
		f.Close() // lets the lock go
	}
}
