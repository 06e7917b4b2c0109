package devload

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
)

// FreePorts returns count distinct ports of host that were free a moment
// ago, for a node process started next to listen on.
//
// They are taken below the kernel's ephemeral range: a port the kernel
// hands out for "listen on port 0" comes from that range, and so does the
// local port of every outgoing connection, so on a busy test machine some
// other process's dial could take such a port before the child binds it
// (TestSentryPartialMesh failed once on CI with "bind: address already in
// use"). Below the range only another program choosing a fixed port can
// collide. Each port is held open until all are found.
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
