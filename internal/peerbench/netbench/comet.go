package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
)

// cometNet is 4 CometBFT validators with the built-in kvstore app, written
// by `cometbft testnet` and run as processes. Node i listens on 127.0.0.i+1
// (all of 127/8 is loopback), so every node keeps the default ports'
// layout.
type cometNet struct {
	bin, work string
	runs      int
	dir       string
	procs     []*exec.Cmd
	rpc       []string
	client    *http.Client
}

func newComet(bin, work string) *cometNet {
	return &cometNet{bin: bin, work: work, client: &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

func (c *cometNet) Name() string { return "CometBFT 0.38 (kvstore)" }

func (c *cometNet) Start(blockTime time.Duration, debug bool) error {
	c.runs++
	c.dir = filepath.Join(c.work, fmt.Sprintf("comet-%d", c.runs))
	p2pPort, err := freeBase(2, 1)
	if err != nil {
		return err
	}
	rpcPort := p2pPort + 1
	out, err := exec.Command(c.bin, "testnet", "--v", "4", "--o", c.dir, "--starting-ip-address", "127.0.0.1",
		"--p2p-port", strconv.Itoa(p2pPort)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("testnet: %v: %s", err, out)
	}
	level := "*:error"
	if debug {
		level = "consensus:debug,*:error"
	}
	c.procs, c.rpc = nil, nil
	for i := range 4 {
		home := filepath.Join(c.dir, fmt.Sprintf("node%d", i))
		ip := fmt.Sprintf("127.0.0.%d", i+1)
		cfgPath := filepath.Join(home, "config", "config.toml")
		b, err := os.ReadFile(cfgPath)
		if err != nil {
			return err
		}
		cfg := string(b)
		for _, r := range [][2]string{
			{`proxy_app = "tcp://127.0.0.1:26658"`, `proxy_app = "kvstore"`},
			{`laddr = "tcp://127.0.0.1:26657"`, fmt.Sprintf(`laddr = "tcp://%s:%d"`, ip, rpcPort)},
			{`laddr = "tcp://0.0.0.0:26656"`, fmt.Sprintf(`laddr = "tcp://%s:%d"`, ip, p2pPort)},
			{`log_level = "info"`, fmt.Sprintf(`log_level = %q`, level)},
			{`timeout_commit = "1s"`, fmt.Sprintf(`timeout_commit = %q`, blockTime.String())},
		} {
			if !strings.Contains(cfg, r[0]) {
				return fmt.Errorf("%s: no line %s to set", cfgPath, r[0])
			}
			cfg = strings.Replace(cfg, r[0], r[1], 1)
		}
		if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
			return err
		}
		log, err := os.Create(filepath.Join(home, "node.log"))
		if err != nil {
			return err
		}
		cmd := exec.Command(c.bin, "start", "--home", home)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			log.Close()
			c.Stop()
			return err
		}
		go func() { cmd.Wait(); log.Close() }()
		c.procs = append(c.procs, cmd)
		c.rpc = append(c.rpc, fmt.Sprintf("http://%s:%d", ip, rpcPort))
	}
	if err := waitUp(len(c.rpc), func(i int) error {
		var st struct{}
		return c.get(i, "/status", &st)
	}); err != nil {
		c.Stop()
		return fmt.Errorf("RPC %w (logs in %s)", err, c.dir)
	}
	return nil
}

func (c *cometNet) Stop() {
	stopAll(c.procs)
	c.procs = nil
}

func (c *cometNet) get(node int, path string, out any) error {
	resp, err := c.client.Get(c.rpc[node] + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	if len(env.Error) > 0 && string(env.Error) != "null" {
		return fmt.Errorf("%s: %s", path, env.Error)
	}
	return json.Unmarshal(env.Result, out)
}

func (c *cometNet) Height() (uint64, error) {
	var st struct {
		SyncInfo struct {
			Height string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	if err := c.get(0, "/status", &st); err != nil {
		return 0, err
	}
	return strconv.ParseUint(st.SyncInfo.Height, 10, 64)
}

func (c *cometNet) TxCount(h uint64) (int, error) {
	var b struct {
		Block struct {
			Data struct {
				Txs []string `json:"txs"`
			} `json:"data"`
		} `json:"block"`
	}
	if err := c.get(0, "/block?height="+strconv.FormatUint(h, 10), &b); err != nil {
		return 0, err
	}
	return len(b.Block.Data.Txs), nil
}

// Prepare has nothing to do: kvstore transactions need no accounts.
func (c *cometNet) Prepare(int, time.Duration) error { return nil }

// Load sends unique key=value transactions with broadcast_tx_async, spread
// over the 4 nodes by 16 senders, paced to rate per second in all.
func (c *cometNet) Load(rate int, stop <-chan struct{}) (int, error) {
	var accepted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	every := time.Duration(float64(time.Second) * senders / float64(rate))
	run := c.runs
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			node := s % len(c.rpc)
			for i := 0; ; i++ {
				if !waitTurn(start, every, i, stop) {
					return
				}
				tx := url.QueryEscape(fmt.Sprintf(`"nb%d-%d-%d=%d"`, run, s, i, i))
				var res struct {
					Code int `json:"code"`
				}
				if err := c.get(node, "/broadcast_tx_async?tx="+tx, &res); err == nil && res.Code == 0 {
					accepted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(accepted.Load()), nil
}

// A received vote in CometBFT's consensus debug log: the log time, then
// the vote's validator index, height/round/type and signing time.
var cometVoteLine = regexp.MustCompile(`^D\[(\S+)\] Receive .*msg="\[Vote Vote\{(\d+):\S+ (\d+)/(\d+)/(\S+)\(\S+\) .* @ (\S+)\}\]"`)

// VoteLatencies takes, for each vote a node received, the time from the
// vote's own signing timestamp to the first log line of its receipt (the
// log has millisecond resolution).
func (c *cometNet) VoteLatencies() ([]time.Duration, error) {
	var out []time.Duration
	for i := range 4 {
		f, err := os.Open(filepath.Join(c.dir, fmt.Sprintf("node%d", i), "node.log"))
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m := cometVoteLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			key := strings.Join(m[2:6], "/")
			if seen[key] {
				continue
			}
			seen[key] = true
			at, err1 := time.ParseInLocation("2006-01-02|15:04:05.000", m[1], time.Local)
			signed, err2 := time.Parse(time.RFC3339Nano, m[6])
			if err1 != nil || err2 != nil {
				continue
			}
			out = append(out, at.Sub(signed))
		}
		f.Close()
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no vote found in the logs of %s", c.dir)
	}
	return out, nil
}
