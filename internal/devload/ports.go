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
// choosing ports here skips those another holds.
func FreePorts(host string, count int) ([]int, error) {
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

// reserve takes port for this process unless another process holds it:
// an exclusive flock on a file named after it in a directory every
// process shares. Where locks cannot be taken (no such directory), it
// takes the port unreserved, as before.
func reserve(port int) bool {
	dir := filepath.Join(os.TempDir(), "chaind-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint(port)), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	reserved.Lock()
	reserved.files = append(reserved.files, f)
	reserved.Unlock()
	return true
}
