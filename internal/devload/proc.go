package devload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is a node child process: chaind, or a peer client's node.
type Proc struct {
	Cmd *exec.Cmd
	URL string // JSON-RPC over HTTP

	mu   sync.Mutex
	log  bytes.Buffer // everything the child wrote to stderr
	done chan struct{}
}

// Start runs bin with args (which should include --http.port 0) and waits
// until the node logs its HTTP listener, for up to 30 s.
func Start(bin string, args ...string) (*Proc, error) {
	return StartWithin(30*time.Second, bin, args...)
}

// StartWithin is Start waiting up to wait: a node on a large state takes
// longer.
func StartWithin(wait time.Duration, bin string, args ...string) (*Proc, error) {
	addr := make(chan string, 1)
	p, err := spawn(addr, bin, args...)
	if err != nil {
		return nil, err
	}
	select {
	case a := <-addr:
		p.URL = "http://" + a
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("chaind exited before listening: %s", p.Log())
	case <-time.After(wait):
		p.Kill()
		return nil, fmt.Errorf("chaind did not listen within %s: %s", wait, p.Log())
	}
}

// StartPeer runs another client's node (go-ethereum...), which does not
// log chaind's listener line, with its JSON-RPC at url, and returns at
// once: the caller waits for its first answer.
func StartPeer(url, bin string, args ...string) (*Proc, error) {
	p, err := spawn(nil, bin, args...)
	if err != nil {
		return nil, err
	}
	p.URL = url
	return p, nil
}

// spawn starts bin, keeps what it writes to stderr and, if addr is not
// nil, sends it the address of chaind's HTTP listener once it is logged.
func spawn(addr chan<- string, bin string, args ...string) (*Proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line)
			p.log.WriteByte('\n')
			p.mu.Unlock()
			if addr != nil && strings.Contains(line, "listening") && strings.Contains(line, "kind=http") {
				if i := strings.Index(line, "addr="); i >= 0 {
					select {
					case addr <- strings.Fields(line[i+5:])[0]:
					default:
					}
				}
			}
		}
		cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Log returns what the child has written to stderr so far.
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Addr waits up to wait for the node to log its listener of the given
// kind ("explorer", "ws", ...) and returns its address; "" if it did not.
func (p *Proc) Addr(kind string, wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		for _, line := range strings.Split(p.Log(), "\n") {
			if strings.Contains(line, "listening") && strings.Contains(line, "kind="+kind+" ") {
				if i := strings.Index(line, "addr="); i >= 0 {
					return strings.Fields(line[i+5:])[0]
				}
			}
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Kill sends SIGKILL and waits for the process to go.
func (p *Proc) Kill() {
	p.Cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop asks the node to shut down (SIGTERM) and waits up to timeout.
func (p *Proc) Stop(timeout time.Duration) error {
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if st := p.Cmd.ProcessState; st != nil && !st.Success() {
			return fmt.Errorf("chaind exited with %v", st)
		}
		return nil
	case <-time.After(timeout):
		p.Kill()
		return errors.New("chaind did not stop in time; killed")
	}
}

// Exited is closed when the process has ended.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// RSS returns the resident set size of the process in bytes, from
// /proc/PID/status (Linux only).
func (p *Proc) RSS() (uint64, error) { return RSS(p.Cmd.Process.Pid) }

// RSS reads VmRSS of a process.
func RSS(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmRSS line")
}

// CPUTime returns the user plus system CPU time the process has used, from
// /proc/PID/stat (Linux only).
func (p *Proc) CPUTime() (time.Duration, error) { return CPUTime(p.Cmd.Process.Pid) }

// CPUTime reads the user and system CPU time process pid has used from
// /proc/PID/stat (Linux only).
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the whole line, in clock ticks (100 Hz).
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("malformed /proc stat")
	}
	var ut, st uint64
	if _, err := fmt.Sscan(f[11], &ut); err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(f[12], &st); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}
