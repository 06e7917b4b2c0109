package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// errPortTaken: a node process's JSON-RPC port answered from another
// process.
var errPortTaken = errors.New("JSON-RPC port taken by another process")

// nodeProc is one node of a devnet running as its own process.
type nodeProc struct {
	node testnetNode
	cmd  *exec.Cmd
	http string // JSON-RPC address the node logged
	ws   string
	done chan struct{}
}

// freeLoopbackPort returns a port of host that was free a moment ago.
// Another program could take it before the node binds it; the node then
// fails to start and says so.
func freeLoopbackPort(host string) (int, error) {
	ps, err := freeLoopbackPorts(host, 1)
	if err != nil {
		return 0, err
	}
	return ps[0], nil
}

// freeLoopbackPorts returns count distinct free ports of host, away from
// the ports outgoing connections use (devload.FreePorts).
func freeLoopbackPorts(host string, count int) ([]int, error) {
	return devload.FreePorts(host, count)
}

// startNodeProc runs exe --config node.Config with extra args, copies its
// log to logTo (each line prefixed with the node's name) and to the
// node's chaind.log, and waits until its JSON-RPC port accepts connections.
func startNodeProc(exe string, n testnetNode, logTo io.Writer, extra ...string) (*nodeProc, error) {
	cmd := exec.Command(exe, append([]string{"--config", n.Config}, extra...)...)
	return runNodeProc(cmd, n, logTo, net.Dial)
}

// runNodeProc starts cmd as node n, reaching its JSON-RPC port with dial.
func runNodeProc(cmd *exec.Cmd, n testnetNode, logTo io.Writer, dial func(network, addr string) (net.Conn, error)) (*nodeProc, error) {
	logFile, err := os.OpenFile(n.Dir+"/chaind.log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // never outlive the devnet
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &nodeProc{node: n, cmd: cmd, done: make(chan struct{}),
		http: net.JoinHostPort(n.Host, strconv.Itoa(n.HTTP)), ws: net.JoinHostPort(n.Host, strconv.Itoa(n.WS))}
	go func() {
		defer logFile.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if logTo != nil {
				fmt.Fprintf(logTo, "[%s] %s\n", n.Name, line)
			}
		}
		cmd.Wait()
		close(p.done)
	}()
	// Ready when its JSON-RPC port accepts connections (whatever the log
	// level lets it say) and the listener is this process's: a port that
	// answers from another process (another test's node took it between
	// the choice of ports and this start) is refused at once, where a
	// check of the port alone would pass and the harness talk to the
	// wrong node.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := dial("tcp", p.http); err == nil {
			c.Close()
			ours, err := listensOn(cmd.Process.Pid, n.HTTP)
			if ours {
				return p, nil
			}
			if err != nil && p.alive() {
				p.kill()
				return nil, fmt.Errorf("%s: cannot tell whether %s is its own listener: %w", n.Name, p.http, err)
			}
			// Not its listener, or it is gone (its bind failed and it
			// exited): either way another process answers there.
			p.kill()
			return nil, fmt.Errorf("%w: %s answers from another process, not %s (pid %d); see %s/chaind.log",
				errPortTaken, p.http, n.Name, cmd.Process.Pid, n.Dir)
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited before listening (see %s/chaind.log)", n.Name, n.Dir)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return nil, fmt.Errorf("%s did not listen within 30s (see %s/chaind.log)", n.Name, n.Dir)
		}
	}
}

// alive reports whether the process has not exited (after a moment for
// its exit to be noticed: an exiting process's /proc entries go first).
func (p *nodeProc) alive() bool {
	select {
	case <-p.done:
		return false
	case <-time.After(100 * time.Millisecond):
		return true
	}
}

func (p *nodeProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop asks the node to shut down and kills it after timeout.
func (p *nodeProc) stop(timeout time.Duration) error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		p.kill()
		return errors.New(p.node.Name + " did not stop in time; killed")
	}
}

// stopAll stops every node at once.
func stopAll(procs []*nodeProc, timeout time.Duration) {
	var wg sync.WaitGroup
	for _, p := range procs {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.stop(timeout); err != nil {
				fmt.Fprintln(os.Stderr, "chaind devnet:", err)
			}
		}()
	}
	wg.Wait()
}

// processDevnet configures runProcessDevnet.
type processDevnet struct {
	validators, full int
	blockTime        time.Duration
	host             string
	chainID          uint64
	out              string
	logLevel         string
	sentry           bool // see testnetSpec.sentry
	// httpPort and explorerPort are the first node's (0 any free port,
	// -1 explorer off), as the flags of the in-process devnet; restPort
	// is its REST port (0 any free port).
	httpPort, explorerPort, restPort int
}

// runProcessDevnet writes a testnet on loopback with free ports, starts
// each node as a process of this very binary, prints every node's
// endpoints and stops them all on SIGINT or SIGTERM.
func runProcessDevnet(cfg processDevnet) int {
	dir := cfg.out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "chaind-devnet-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind devnet:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind devnet:", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signalNotify(sig)
	procs, err := launchDevnet(cfg, dir, exe, os.Stderr, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind devnet:", err)
		return 1
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "Devnet of %d validators and %d full nodes, chain ID %d, in %s:\n", cfg.validators, cfg.full, cfg.chainID, dir)
	for _, p := range procs {
		fmt.Fprintf(w, "  %-11s pid %-7d JSON-RPC http://%s  WebSocket ws://%s  p2p %s@%s  log %s/chaind.log\n",
			p.node.Name, p.cmd.Process.Pid, p.http, p.ws, p.node.ID, p.node.P2P, p.node.Dir)
	}
	if cfg.explorerPort > 0 {
		fmt.Fprintf(w, "  explorer of %s: http://%s\n", procs[0].node.Name, net.JoinHostPort(cfg.host, strconv.Itoa(cfg.explorerPort)))
	}
	w.Flush()
	devKeys, err := devAccounts()
	if err == nil {
		printDevAccounts(os.Stdout, devKeys, chain.DevBalance, hd.DevMnemonic, hd.DevPath, cfg.chainID)
	}
	exited := make(chan *nodeProc, len(procs))
	for _, p := range procs {
		go func() { <-p.done; exited <- p }()
	}
	// A node that dies or is killed leaves the others running: a
	// researcher's first fault experiment is to kill one and watch the
	// network go on, then bring it back by hand.
	for live := len(procs); live > 0; {
		select {
		case <-sig:
			stopAll(procs, 5*time.Second)
			return 0
		case p := <-exited:
			live--
			fmt.Fprintf(os.Stderr, "chaind devnet: %s exited (%v); the other nodes keep running. Restart it alone with:\n  %s --config %s --log-level %s\n",
				p.node.Name, p.cmd.ProcessState, exe, p.node.Config, cfg.logLevel)
		}
	}
	fmt.Fprintln(os.Stderr, "chaind devnet: every node exited")
	return 1
}

// launchDevnet writes the network of cfg into dir, with free ports on
// cfg.host, and starts each node as a process of exe (logging to logTo,
// see startNodeProc) with --log-level and extra(i) if not nil. On an error
// it stops the nodes it started.
func launchDevnet(cfg processDevnet, dir, exe string, logTo io.Writer, extra func(i int) []string) ([]*nodeProc, error) {
	total := cfg.validators + cfg.full
	free, err := freeLoopbackPorts(cfg.host, 3*total)
	if err != nil {
		return nil, err
	}
	ports := make([][3]int, total)
	for i := range ports {
		ports[i] = [3]int(free[3*i:])
	}
	if cfg.httpPort > 0 {
		ports[0][1] = cfg.httpPort
	}
	nodes, err := writeTestnet(dir, testnetSpec{validators: cfg.validators, full: cfg.full, chainID: cfg.chainID,
		host: cfg.host, blockTime: cfg.blockTime, sentry: cfg.sentry,
		port: func(i int) (int, int, int) { return ports[i][0], ports[i][1], ports[i][2] },
		apiPorts: func(i, _ int) (int, int, int) {
			if i == 0 {
				return cfg.explorerPort, cfg.restPort, 0
			}
			return 0, 0, 0
		}})
	if err != nil {
		return nil, err
	}
	procs := make([]*nodeProc, len(nodes))
	for i, n := range nodes {
		args := []string{"--log-level", cfg.logLevel}
		if extra != nil {
			args = append(args, extra(i)...)
		}
		p, err := startNodeProc(exe, n, logTo, args...)
		if err != nil {
			stopAll(procs, 5*time.Second)
			return nil, err
		}
		procs[i] = p
	}
	return procs, nil
}

func signalNotify(c chan os.Signal) { signal.Notify(c, syscall.SIGINT, syscall.SIGTERM) }

func devAccounts() ([]*secp256k1.PrivateKey, error) { return hd.DevAccounts(hd.DevMnemonic, 10) }
