package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listensOn reports whether process pid holds a listening TCP socket on
// port, in its own network namespace (/proc/PID/net/tcp{,6} name the
// listening sockets by inode, /proc/PID/fd links to the sockets the
// process holds). A node process's readiness check uses it to know that
// the port answering is that node's, not another process's that bound it
// first: CI once started a validator again while another package's test
// node held its port, and a check that only dialed the port passed.
func listensOn(pid, port int) (bool, error) {
	socks := map[string]bool{}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			if table == "tcp6" && os.IsNotExist(err) {
				continue // no IPv6 in this kernel
			}
			return false, err
		}
		lines := strings.Split(string(b), "\n")
		for _, line := range lines[1:] { // the first is the header
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(f[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
				socks["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(socks) == 0 {
		return false, nil
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && socks[l] {
			return true, nil
		}
	}
	return false, nil
}
