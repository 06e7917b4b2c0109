package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// chaindNet is 4 chaind validators written by `chaind testnet` and run as
// processes.
type chaindNet struct {
	bin, work string
	runs      int
	dir       string
	procs     []*exec.Cmd
	clients   []*devload.Client
	work0     [][]*types.Transaction // pre-signed load
	metrics   int                    // first /metrics port of a load run (0: none)
	gossip    []string               // gossip counters of the last load run, per node
	// label names this build when several are compared (-chaind A=BIN,B=BIN).
	label string
	// profile is the directory for CPU profiles of load runs ("": none);
	// pprof is the first validator's pprof port in a profiled run, loadFor
	// how long the load of the run lasts.
	profile string
	pprof   int
	loadFor time.Duration
	// optional are the node flags this binary knows of those an older
	// chaind lacks (read from its help once).
	optional map[string]bool
}

func newChaind(bin, work string) *chaindNet { return &chaindNet{bin: bin, work: work} }

func (c *chaindNet) Name() string {
	if c.label != "" {
		return "chaind " + c.label
	}
	return "chaind (signed transfers)"
}

// knows reports whether the binary has the node flag name: netbench
// compares builds of other commits too, and an older one lacks some of
// the listeners a newer one turns off.
func (c *chaindNet) knows(name string) bool {
	if c.optional == nil {
		c.optional = map[string]bool{}
		help, _ := exec.Command(c.bin, "help").CombinedOutput()
		for _, f := range []string{"cometrpc.port"} {
			c.optional[f] = strings.Contains(string(help), "-"+f+" ")
		}
	}
	return c.optional[name]
}

// freeBase finds count ports base, base+stride, ... that are all free,
// below the kernel's range of ephemeral ports (crowded on a busy machine).
func freeBase(count, stride int) (int, error) {
	for try := 0; try < 200; try++ {
		base := 20000 + rand.IntN(12000-count*stride)
		ok := true
		for i := 0; i < count*stride && ok; i++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, fmt.Errorf("no free port range")
}

func (c *chaindNet) Start(blockTime time.Duration, debug bool) error {
	c.runs++
	c.dir = filepath.Join(c.work, fmt.Sprintf("chaind-%d", c.runs))
	if c.label != "" {
		c.dir = filepath.Join(c.work, fmt.Sprintf("chaind-%s-%d", c.label, c.runs))
	}
	p2pBase, err := freeBase(4, 1)
	if err != nil {
		return err
	}
	httpBase, err := freeBase(4, 10)
	if err != nil {
		return err
	}
	out, err := exec.Command(c.bin, "testnet", "--validators", "4", "--out", c.dir, "--block-time", blockTime.String(),
		"--p2p.base", strconv.Itoa(p2pBase), "--http.base", strconv.Itoa(httpBase)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("testnet: %v: %s", err, out)
	}
	level := "warn"
	c.metrics = 0
	if debug {
		level = "debug"
		if c.metrics, err = freeBase(4, 1); err != nil {
			return err
		}
	}
	c.pprof = 0
	if debug && c.profile != "" {
		if c.pprof, err = freeBase(4, 1); err != nil {
			return err
		}
	}
	c.procs, c.clients = nil, nil
	for i := range 4 {
		dir := filepath.Join(c.dir, fmt.Sprintf("validator%d", i))
		log, err := os.Create(filepath.Join(dir, "node.log"))
		if err != nil {
			return err
		}
		args := []string{"--config", filepath.Join(dir, "config.json"), "--log-level", level,
			"--explorer.port", "-1", "--rest.port", "-1", "--grpc.port", "-1"}
		if c.knows("cometrpc.port") {
			args = append(args, "--cometrpc.port", "-1")
		}
		if c.metrics != 0 {
			args = append(args, "--metrics", "--metrics.port", strconv.Itoa(c.metrics+i))
		}
		if c.pprof != 0 {
			args = append(args, "--pprof", fmt.Sprintf("127.0.0.1:%d", c.pprof+i))
		}
		cmd := exec.Command(c.bin, args...)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			log.Close()
			c.Stop()
			return err
		}
		go func() { cmd.Wait(); log.Close() }()
		c.procs = append(c.procs, cmd)
		c.clients = append(c.clients, devload.NewClient(fmt.Sprintf("http://127.0.0.1:%d", httpBase+10*i)))
	}
	if err := waitUp(len(c.clients), func(i int) error {
		_, err := c.clients[i].BlockNumber()
		return err
	}); err != nil {
		c.Stop()
		return fmt.Errorf("JSON-RPC %w (logs in %s)", err, c.dir)
	}
	return nil
}

func (c *chaindNet) Stop() {
	if c.metrics != 0 && c.procs != nil {
		c.gossip = c.gossip[:0]
		for i := range c.procs {
			c.gossip = append(c.gossip, gossipCounters(c.metrics+i))
		}
	}
	stopAll(c.procs)
	c.procs = nil
}

func (c *chaindNet) Height() (uint64, error) { return c.clients[0].BlockNumber() }

func (c *chaindNet) TxCount(h uint64) (int, error) {
	b, err := c.clients[0].Block(h)
	if err != nil {
		return 0, err
	}
	return len(b.Transactions), nil
}

const senders = 16

// Prepare funds the senders and pre-signs rate×d transfers, outside the
// measured window.
func (c *chaindNet) Prepare(rate int, d time.Duration) error {
	cl := c.clients[0]
	var chainID devload.Quantity
	if err := cl.Call(&chainID, "eth_chainId"); err != nil {
		return err
	}
	dev, err := hd.DevAccounts(hd.DevMnemonic, 1)
	if err != nil {
		return err
	}
	s := devload.NewSigner(uint64(chainID))
	keys := devload.Keys(fmt.Sprintf("netbench-%d", time.Now().UnixNano()), senders)
	if _, err := devload.Prepare(cl, s, devload.KindTransfer, dev[0], keys); err != nil {
		return err
	}
	c.loadFor = d
	per := int(float64(rate)*d.Seconds())/senders + 1
	c.work0, err = devload.SignAll(s, devload.KindTransfer, keys, make([]uint64, senders), per, types.Address{})
	return err
}

// Load sends the pre-signed transactions at rate, as the CometBFT load
// does, each sender's in nonce order to one of the 4 nodes, until stop.
// A send refused for a full pool or a nonce too far ahead is retried.
func (c *chaindNet) Load(rate int, stop <-chan struct{}) (int, error) {
	var accepted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	every := time.Duration(float64(time.Second) * float64(len(c.work0)) / float64(rate))
	if c.pprof != 0 {
		c.profileLoad(&wg, start)
	}
	for s, txs := range c.work0 {
		cl := c.clients[s%len(c.clients)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, tx := range txs {
				if !waitTurn(start, every, i, stop) {
					return
				}
				for {
					err := cl.SendRaw(tx)
					if err == nil {
						accepted.Add(1)
						break
					}
					if !devload.Retryable(err) || !waitTurn(time.Now(), 10*time.Millisecond, 1, stop) {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	return int(accepted.Load()), nil
}

// profileLoad takes a CPU profile of each validator over the measured
// window of the load that started at start (runLoad's: after a fifth of
// it, to its end), into the profile directory.
func (c *chaindNet) profileLoad(wg *sync.WaitGroup, start time.Time) {
	secs := max(int((c.loadFor * 4 / 5).Seconds()), 1)
	for i := range c.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(start.Add(c.loadFor / 5)))
			url := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", c.pprof+i, secs)
			path := filepath.Join(c.profile, fmt.Sprintf("%s-v%d.cpu.pprof", filepath.Base(c.dir), i))
			if err := fetchTo(url, path); err != nil {
				fmt.Fprintf(os.Stderr, "netbench: profile of validator %d: %v\n", i, err)
			}
		}()
	}
}

func fetchTo(url, path string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var chaindVoteLine = regexp.MustCompile(`^time=(\S+) level=DEBUG msg="vote (sent|received)" height=(\d+) round=(\d+) type=(\S+) validator=(\S+)`)

// VoteLatencies matches each node's "vote received" log lines with the
// signer's "vote sent" line of the same vote.
func (c *chaindNet) VoteLatencies() ([]time.Duration, error) {
	sent := map[string]time.Time{}
	type recv struct {
		key string
		at  time.Time
	}
	var got []recv
	for i := range 4 {
		f, err := os.Open(filepath.Join(c.dir, fmt.Sprintf("validator%d", i), "node.log"))
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		own := ""
		var mine []recv
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m := chaindVoteLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, m[1])
			if err != nil {
				continue
			}
			key := strings.Join(m[3:], "/")
			if m[2] == "sent" {
				own = m[6]
				if _, ok := sent[key]; !ok {
					sent[key] = at
				}
			} else if !seen[key] {
				seen[key] = true
				mine = append(mine, recv{key, at})
			}
		}
		f.Close()
		for _, r := range mine {
			if own == "" || !strings.HasSuffix(r.key, "/"+own) { // not our own votes sent back to us
				got = append(got, r)
			}
		}
	}
	var out []time.Duration
	for _, r := range got {
		if s, ok := sent[r.key]; ok {
			out = append(out, r.at.Sub(s))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no vote found in the logs of %s", c.dir)
	}
	return out, nil
}

// gossipCounters reads a node's gossip counters from its /metrics.
func gossipCounters(port int) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	v := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if ok && strings.HasPrefix(name, "chaind_p2p_gossip_") {
			v[strings.TrimSuffix(strings.TrimPrefix(name, "chaind_p2p_gossip_"), "_total")] = val
		}
	}
	return fmt.Sprintf("pushed %s, announced %s, wanted %s, served %s, duplicates %s",
		v["pushed"], v["announced"], v["wanted"], v["served"], v["duplicates"])
}

// Gossip reports each node's gossip counters at the end of the last load
// run.
func (c *chaindNet) Gossip() []string { return c.gossip }
