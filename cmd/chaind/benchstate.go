package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// benchState measures the node at a given state size: a --dev genesis
// plus N generated funded accounts and an ERC-20 token with M holders in
// its storage is written by `chaind init`, and a node on it (the dev
// validator's key, so it seals blocks) is measured: data directory bytes,
// start to first answer, RSS idle and after a transfer load, eth_getBalance
// and eth_call (balanceOf) latency over random existing keys, committed
// tx/s and Mgas/s, the pruning pauses the node observed, and a restart.
func benchState(args []string) int {
	fs := flag.NewFlagSet("chaind bench state", flag.ContinueOnError)
	accounts := fs.Int("accounts", 100_000, "generated funded accounts beside the dev ones")
	holders := fs.Int("holders", -1, "ERC-20 holders in the token's storage (default: accounts/10)")
	duration := fs.Duration("duration", 20*time.Second, "how long the transfer load runs (chaind bench dev)")
	senders := fs.Int("senders", 16, "concurrent senders of the load")
	reads := fs.Int("reads", 2000, "eth_getBalance and eth_call requests timed, each")
	dir := fs.String("dir", "", "work directory (default: a temporary one, removed afterwards)")
	bin := fs.String("bin", "", "chaind binary to start (default: this one)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if *holders < 0 {
		*holders = *accounts / 10
	}
	if code, ok := checkArgs(fs.Name(),
		check{*accounts < 1, "--accounts must be at least 1"},
		check{*holders < 1, "--holders must be at least 1"},
		check{*duration <= 0, "--duration must be positive"},
		check{*senders < 1, "--senders must be at least 1"},
		check{*reads < 1, "--reads must be at least 1"},
		noArgs(fs),
	); !ok {
		return code
	}
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "chaind bench state:", err); return 1 }
	exe, err := selfBinary(*bin)
	if err != nil {
		return fail(err)
	}
	work := *dir
	if work == "" {
		if work, err = os.MkdirTemp("", "chaind-scale-"); err != nil {
			return fail(err)
		}
		defer os.RemoveAll(work)
	}
	datadir := filepath.Join(work, "data")

	dev, err := buildDev(devFlags{accounts: 10, balance: "10000", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		return fail(err)
	}
	g := dev.Genesis
	t0 := time.Now()
	gpath := filepath.Join(work, "genesis.json")
	addrs, err := writeScaleGenesis(gpath, g, *accounts, *holders)
	if err != nil {
		return fail(err)
	}
	fmt.Printf("genesis: %d generated accounts, %d token holders, written in %s\n", *accounts, *holders, time.Since(t0).Round(time.Millisecond))

	initCmd := exec.Command(exe, "init", "--genesis", gpath, "--datadir", datadir)
	t0 = time.Now()
	if out, err := initCmd.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("chaind init: %v\n%s", err, out))
	}
	initTook := time.Since(t0)
	initRSS := initCmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	initBytes := dirBytes(datadir)
	fmt.Printf("chaind init: %s, peak RSS %s, data directory %s\n", initTook.Round(time.Millisecond), mib(uint64(initRSS)), mib(initBytes))

	nodeArgs := []string{"--datadir", datadir, "--validator-key", hex.EncodeToString(dev.Validator.Serialize()),
		"--block-time", "1s", "--http.port", "0", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1",
		"--explorer.port", "-1", "--metrics", "--metrics.port", "0", "--log-level", "info",
		// Pruning passes every 16 blocks, so a short load sees some.
		"--state.history", "16"}
	start := func() (*devload.Proc, time.Duration, error) {
		t := time.Now()
		p, err := devload.StartWithin(10*time.Minute, exe, nodeArgs...)
		if err != nil {
			return nil, 0, err
		}
		c := devload.NewClient(p.URL)
		for {
			if _, err := c.BlockNumber(); err == nil {
				return p, time.Since(t), nil
			}
			if time.Since(t) > 5*time.Minute {
				p.Kill()
				return nil, 0, fmt.Errorf("no answer within 5 minutes")
			}
			time.Sleep(time.Millisecond)
		}
	}
	p, startTook, err := start()
	if err != nil {
		return fail(err)
	}
	fmt.Printf("start to first eth_blockNumber: %s\n", startTook.Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	idle, _ := p.RSS()
	fmt.Printf("RSS idle: %s\n", mib(idle))

	c := devload.NewClient(p.URL)
	rng := rand.New(rand.NewSource(1))
	bal, err := timeCalls(*reads, func() error {
		var out string
		return c.Call(&out, "eth_getBalance", addrs[rng.Intn(len(addrs))].Hex(), "latest")
	})
	if err != nil {
		p.Stop(10 * time.Second)
		return fail(fmt.Errorf("eth_getBalance: %w", err))
	}
	call, err := timeCalls(*reads, func() error {
		var out string
		data := "0x" + hex.EncodeToString(devload.BalanceOfData(addrs[rng.Intn(*holders)]))
		return c.Call(&out, "eth_call", map[string]string{"to": devload.TokenAddress.Hex(), "data": data}, "latest")
	})
	if err != nil {
		p.Stop(10 * time.Second)
		return fail(fmt.Errorf("eth_call: %w", err))
	}
	fmt.Printf("eth_getBalance: p50 %s p99 %s; eth_call balanceOf: p50 %s p99 %s (%d random existing keys each)\n",
		bal.pct(50), bal.pct(99), call.pct(50), call.pct(99), *reads)

	from, _ := c.BlockNumber()
	t0 = time.Now()
	if code := benchDev([]string{"--url", p.URL, "--duration", duration.String(), "--senders", strconv.Itoa(*senders), "--block-time", "1s"}); code != 0 {
		p.Stop(10 * time.Second)
		return code
	}
	to, _ := c.BlockNumber()
	txs, gas, span := loadSpan(c, from+1, to, *senders)
	fmt.Printf("load: blocks %d..%d, %d transactions, %.0f tx/s and %.1f Mgas/s committed (over the %.0fs of blocks the load filled)\n",
		from+1, to, txs, float64(txs)/span, float64(gas)/span/1e6, span)
	loaded, _ := p.RSS()
	fmt.Printf("RSS after the load: %s\n", mib(loaded))
	pauses := "none observed"
	if addr := p.Addr("metrics", 2*time.Second); addr != "" {
		pauses = prunePauses("http://" + addr + "/metrics")
	}
	fmt.Printf("pruning pauses: %s\n", pauses)
	for _, line := range strings.Split(p.Log(), "\n") {
		if strings.Contains(line, "prun") && strings.Contains(line, "level=ERROR") {
			fmt.Println("node:", line)
		}
	}
	p.Stop(30 * time.Second)

	p, restartTook, err := start()
	if err != nil {
		return fail(err)
	}
	p.Stop(30 * time.Second)
	fmt.Printf("restart after the load: %s; data directory %s\n", restartTook.Round(time.Millisecond), mib(dirBytes(datadir)))
	fmt.Printf("summary accounts=%d holders=%d init=%s datadir=%s start=%s rss_idle=%s rss_load=%s getBalance_p50=%s p99=%s call_p50=%s p99=%s tx/s=%.0f Mgas/s=%.1f restart=%s prune=%s (took %s)\n",
		*accounts, *holders, initTook.Round(time.Millisecond), mib(initBytes), startTook.Round(time.Millisecond), mib(idle), mib(loaded),
		bal.pct(50), bal.pct(99), call.pct(50), call.pct(99), float64(txs)/span, float64(gas)/span/1e6, restartTook.Round(time.Millisecond), pauses, time.Since(t0).Round(time.Second))
	return 0
}

// loadSpan sums the transactions and gas of blocks from..to that carry
// the load (more transactions than the senders' funding), over the time
// from the block before the first of them to the last.
func loadSpan(c *devload.Client, from, to uint64, senders int) (txs, gas uint64, span float64) {
	var first, last uint64
	for n := from; n <= to; n++ {
		b, err := c.Block(n)
		if err != nil || len(b.Transactions) <= senders {
			continue
		}
		if first == 0 {
			first = uint64(b.Timestamp)
			if prev, err := c.Block(n - 1); err == nil {
				first = uint64(prev.Timestamp)
			}
		}
		last = uint64(b.Timestamp)
		gas += uint64(b.GasUsed)
		txs += uint64(len(b.Transactions))
	}
	return txs, gas, float64(max(last-first, 1))
}

// scaleAddress is generated account i.
func scaleAddress(i int) types.Address {
	var seed [8]byte
	for k := range seed {
		seed[k] = byte(uint64(i) >> (8 * k))
	}
	h := crypto.Keccak256(append([]byte("chaind-scale"), seed[:]...))
	return types.Address(h[12:])
}

// writeScaleGenesis writes g to path with n generated funded accounts
// added to its allocation, and the load's ERC-20 token whose first holders
// of them hold tokens; it returns the accounts. The file is written as it
// is generated: 10M accounts never sit in memory as a genesis.
func writeScaleGenesis(path string, g *chain.Genesis, n, holders int) ([]types.Address, error) {
	raw, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	// The generated entries go first in the allocation object.
	at := bytes.Index(raw, []byte(`"alloc":{`))
	if at < 0 {
		return nil, fmt.Errorf("genesis JSON without an allocation")
	}
	at += len(`"alloc":{`)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(raw[:at])
	addrs := make([]types.Address, n)
	for i := range addrs {
		addrs[i] = scaleAddress(i)
		fmt.Fprintf(w, `"%s":{"balance":"0x38d7ea4c68000"},`, addrs[i].Hex()) // 1e15 wei
	}
	fmt.Fprintf(w, `"%s":{"code":"0x%x","storage":{`, devload.TokenAddress.Hex(), devload.TokenRuntime())
	amount := types.Hash(uint256.NewInt(1000).Bytes32())
	for i := 0; i < holders; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `"%s":"%s"`, devload.TokenSlot(addrs[i%n]).Hex(), amount.Hex())
	}
	w.WriteString("}}")
	if raw[at] != '}' { // the genesis's own allocations follow
		w.WriteByte(',')
	}
	w.Write(raw[at:])
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return nil, err
	}
	return addrs, nil
}

// latencies are measured request times.
type latencies []time.Duration

func (l latencies) pct(p int) time.Duration {
	if len(l) == 0 {
		return 0
	}
	return l[min(len(l)*p/100, len(l)-1)].Round(time.Microsecond)
}

// timeCalls runs fn n times, one after another, and returns the sorted
// times.
func timeCalls(n int, fn func() error) (latencies, error) {
	out := make(latencies, 0, n)
	for i := 0; i < n; i++ {
		t := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// prunePauses reads chaind_prune_pause_seconds from /metrics: how many
// holds each kind made and the bucket bound under which 99% fell.
func prunePauses(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return "metrics unreadable: " + err.Error()
	}
	defer resp.Body.Close()
	type hist struct {
		les    []float64
		counts []float64
		total  float64
	}
	kinds := map[string]*hist{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "chaind_prune_pause_seconds_bucket{") {
			continue
		}
		labels, val, _ := strings.Cut(line[len("chaind_prune_pause_seconds_bucket{"):], "} ")
		var kind, le string
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v = strings.Trim(v, `"`)
			switch k {
			case "kind":
				kind = v
			case "le":
				le = v
			}
		}
		n, _ := strconv.ParseFloat(val, 64)
		h := kinds[kind]
		if h == nil {
			h = &hist{}
			kinds[kind] = h
		}
		if le == "+Inf" {
			h.total = n
			continue
		}
		bound, _ := strconv.ParseFloat(le, 64)
		h.les, h.counts = append(h.les, bound), append(h.counts, n)
	}
	var parts []string
	for kind, h := range kinds {
		if h.total == 0 {
			continue
		}
		p99 := "over the largest bucket"
		for i, c := range h.counts {
			if c >= 0.99*h.total {
				p99 = "≤ " + time.Duration(h.les[i]*float64(time.Second)).String()
				break
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %.0f holds, p99 %s", kind, h.total, p99))
	}
	if len(parts) == 0 {
		return "none observed (no pass ran during the load)"
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) uint64 {
	var n uint64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += uint64(info.Size())
			}
		}
		return nil
	})
	return n
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
