package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// benchState measures the node at a given state size: a --dev genesis
// plus N generated funded accounts and an ERC-20 token with M holders in
// its storage is written by `chaind init`, and a node on it (the dev
// validator's key, so it seals blocks) is measured: data directory bytes,
// start to first answer, RSS idle and after a transfer load, eth_getBalance
// and eth_call (balanceOf) latency over random existing keys, committed
// tx/s and Mgas/s, the pruning pauses the node observed, and a restart.
//
// With --geth, go-ethereum nodes (`geth --dev` on a datadir initialised
// with the same allocation) are measured the same way beside it. Every
// round starts each node on a fresh copy of its initialised data
// directory, in alternating order, so all see the same machine load; the
// table gives the medians and the median of the per-round ratios.
func benchState(args []string) int {
	fs := flag.NewFlagSet("chaind bench state", flag.ContinueOnError)
	var cfg scaleConfig
	fs.IntVar(&cfg.accounts, "accounts", 100_000, "generated funded accounts beside the dev ones")
	fs.IntVar(&cfg.holders, "holders", -1, "ERC-20 holders in the token's storage (default: accounts/10)")
	fs.DurationVar(&cfg.duration, "duration", 60*time.Second, "how long the transfer load runs (chaind bench dev)")
	fs.IntVar(&cfg.senders, "senders", 16, "concurrent senders of the load")
	fs.IntVar(&cfg.reads, "reads", 2000, "eth_getBalance and eth_call requests timed, each")
	rounds := fs.Int("rounds", 1, "rounds; each starts every node on a fresh copy of its initialised data directory")
	dir := fs.String("dir", "", "work directory; the initialised data directories are kept there and reused by a later run with the same --accounts and --holders (default: a temporary one, removed afterwards)")
	bin := fs.String("bin", "", "chaind binary to start (default: this one)")
	cache := fs.Int("cache", 0, "--cache (MiB) of the chaind node (default: its own)")
	geths := fs.String("geth", "", "go-ethereum binaries (comma-separated) measured beside chaind: geth --dev on the same allocation")
	gethCache := fs.Int("geth.cache", 0, "--cache (MiB) of the geth nodes (default: geth's own)")
	fs.StringVar(&cfg.profile, "profile", "", "write CPU profiles of the chaind node (its --pprof listener) to this directory: of the timed reads and of the middle of the load, each round")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if cfg.holders < 0 {
		cfg.holders = cfg.accounts / 10
	}
	if code, ok := checkArgs(fs.Name(),
		check{cfg.accounts < 1, "--accounts must be at least 1"},
		check{cfg.holders < 1, "--holders must be at least 1"},
		check{cfg.duration <= 0, "--duration must be positive"},
		check{cfg.senders < 1, "--senders must be at least 1"},
		check{cfg.reads < 1, "--reads must be at least 1"},
		check{*rounds < 1, "--rounds must be at least 1"},
		check{*cache < 0 || *gethCache < 0, "--cache and --geth.cache must not be negative"},
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
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return fail(err)
	}
	dev, err := buildDev(devFlags{accounts: 10, balance: "10000", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		return fail(err)
	}
	cfg.genesis = dev.Genesis
	cfg.work = work
	if cfg.profile != "" {
		if err := os.MkdirAll(cfg.profile, 0o755); err != nil {
			return fail(err)
		}
	}

	sides := []*scaleSide{chaindSide(exe, dev.Validator.Serialize(), *cache)}
	for _, g := range strings.Split(*geths, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		side, err := gethSide(g, *gethCache)
		if err != nil {
			return fail(err)
		}
		sides = append(sides, side)
	}
	fmt.Printf("bench state: %d accounts, %d token holders, %d round(s) of %s load from %d senders; %s; load average %s\n",
		cfg.accounts, cfg.holders, *rounds, cfg.duration, cfg.senders, sideNames(sides), loadAvg())
	for _, s := range sides {
		if err := s.prepare(&cfg); err != nil {
			return fail(fmt.Errorf("%s: %w", s.name, err))
		}
	}
	addrs := scaleAddrs(cfg.accounts)
	for r := 1; r <= *rounds; r++ {
		order := append([]*scaleSide(nil), sides...)
		if r%2 == 0 { // even rounds run the peers first
			for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
				order[i], order[j] = order[j], order[i]
			}
		}
		for _, s := range order {
			fmt.Printf("== round %d: %s (load average %s)\n", r, s.name, loadAvg())
			res, err := s.round(&cfg, addrs)
			if err != nil {
				return fail(fmt.Errorf("round %d, %s: %w", r, s.name, err))
			}
			s.rounds = append(s.rounds, res)
			fmt.Printf("summary %s accounts=%d holders=%d start=%s rss_idle=%s rss_load=%s getBalance_p50=%s p99=%s call_p50=%s p99=%s tx/s=%.0f Mgas/s=%.1f cpu/tx=%s restart=%s datadir=%s prune=%s\n",
				s.name, cfg.accounts, cfg.holders, res.start.Round(time.Millisecond), mib(res.idle), mib(res.loaded), res.bal.pct(50), res.bal.pct(99),
				res.call.pct(50), res.call.pct(99), res.txs, res.mgas, res.cpuPerTx.Round(time.Microsecond/10), res.restart.Round(time.Millisecond), mib(res.bytes), res.pauses)
			if res.caches != "" {
				fmt.Printf("caches %s: %s\n", s.name, res.caches)
			}
		}
	}
	fmt.Println()
	printScaleTable(os.Stdout, &cfg, sides, *rounds)
	return 0
}

// scaleConfig is what every side of a run shares.
type scaleConfig struct {
	accounts, holders, senders, reads int
	duration                          time.Duration
	genesis                           *chain.Genesis
	work                              string
	profile                           string // directory for CPU profiles ("" none)
}

// scaleRound is one round's figures of one node.
type scaleRound struct {
	start, restart time.Duration
	idle, loaded   uint64 // RSS
	bal, call      latencies
	txs, mgas      float64       // committed per second
	cpuPerTx       time.Duration // the node's CPU time over the load per committed transaction
	bytes          uint64        // data directory after the load and the restart
	pauses         string        // pruning pauses the node reports (chaind)
	// caches are the read caches' hit rates during the timed reads and
	// during the load ("" for a node that reports none).
	caches string
}

// scaleSide is one node under test: how its data directory is
// initialised and how it is started on a copy.
type scaleSide struct {
	name string
	// initialise writes the genesis file(s) it needs into cfg.work and
	// initialises dir; it returns the command it ran (for its peak RSS).
	initialise func(cfg *scaleConfig, dir string) (*exec.Cmd, error)
	// spawn starts the node on datadir; the caller waits for its answer.
	spawn func(cfg *scaleConfig, datadir string) (*devload.Proc, error)
	// pauses reads the pruning pauses from a running node ("" if it has
	// no such figure).
	pauses func(p *devload.Proc) string
	// caches reads a running node's cache lookups (nil: it reports none).
	caches func(p *devload.Proc) cacheCounts
	// pprof is the address of a running node's profile listener ("":
	// none; the node has one when cfg.profile is set).
	pprof func(p *devload.Proc) string

	initDir            string
	initTook           time.Duration
	initRSS, initBytes uint64
	rounds             []scaleRound
}

// prepare initialises the side's data directory, or reuses one a run
// with the same state size left in the work directory.
func (s *scaleSide) prepare(cfg *scaleConfig) error {
	s.initDir = filepath.Join(cfg.work, s.name+"-init")
	marker := filepath.Join(s.initDir, ".scale-state")
	want := fmt.Sprintf("accounts=%d holders=%d\n", cfg.accounts, cfg.holders)
	if got, err := os.ReadFile(marker); err == nil && string(got) == want {
		s.initBytes = dirBytes(s.initDir)
		fmt.Printf("%s: reusing %s (%s)\n", s.name, s.initDir, mib(s.initBytes))
		return nil
	}
	if err := os.RemoveAll(s.initDir); err != nil {
		return err
	}
	t0 := time.Now()
	cmd, err := s.initialise(cfg, s.initDir)
	if err != nil {
		return err
	}
	s.initTook = time.Since(t0)
	s.initRSS = maxRSS(cmd)
	s.initBytes = dirBytes(s.initDir)
	fmt.Printf("%s init: %s, peak RSS %s, data directory %s\n", s.name, s.initTook.Round(time.Millisecond), mib(s.initRSS), mib(s.initBytes))
	return os.WriteFile(marker, []byte(want), 0o644)
}

// boot starts the node on datadir and waits for its first answer; the
// time is from the process start.
func (s *scaleSide) boot(cfg *scaleConfig, datadir string) (*devload.Proc, time.Duration, error) {
	t := time.Now()
	p, err := s.spawn(cfg, datadir)
	if err != nil {
		return nil, 0, err
	}
	c := devload.NewClient(p.URL)
	for {
		if _, err := c.BlockNumber(); err == nil {
			return p, time.Since(t), nil
		}
		select {
		case <-p.Exited():
			return nil, 0, fmt.Errorf("exited before answering: %s", tail(p.Log(), 2000))
		default:
		}
		if time.Since(t) > 10*time.Minute {
			p.Kill()
			return nil, 0, errors.New("no answer within 10 minutes")
		}
		time.Sleep(time.Millisecond)
	}
}

// round measures the node on a fresh copy of its initialised directory.
func (s *scaleSide) round(cfg *scaleConfig, addrs []types.Address) (res scaleRound, err error) {
	datadir := filepath.Join(cfg.work, s.name+"-run")
	if err := os.RemoveAll(datadir); err != nil {
		return res, err
	}
	defer os.RemoveAll(datadir)
	if out, err := exec.Command("cp", "-a", s.initDir, datadir).CombinedOutput(); err != nil {
		return res, fmt.Errorf("copying the data directory: %v: %s", err, out)
	}
	// The copy leaves its pages dirty (3.4 GB at 10M accounts); written
	// back while the node opens, they would queue its first fsyncs behind
	// them and charge the copy to the node's start (0.1 to 1.4 s from one
	// round to the next). A node starts on a directory at rest, as after
	// init or a stop: write the copy out first, for every side alike.
	syscall.Sync()
	p, took, err := s.boot(cfg, datadir)
	if err != nil {
		return res, err
	}
	defer func() {
		if p != nil {
			p.Stop(time.Minute)
		}
	}()
	res.start = took
	fmt.Printf("start to first eth_blockNumber: %s\n", took.Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	res.idle, _ = p.RSS()

	c := devload.NewClient(p.URL)
	profile := func(what string, start func(), d time.Duration) (wait func()) {
		if cfg.profile == "" || s.pprof == nil {
			return func() {}
		}
		name := fmt.Sprintf("%s-%d-r%d-%s.pprof", s.name, cfg.accounts, len(s.rounds)+1, what)
		return cpuProfile(s.pprof(p), filepath.Join(cfg.profile, name), start, d)
	}
	rng := rand.New(rand.NewSource(1))
	caches := func() cacheCounts {
		if s.caches == nil {
			return nil
		}
		return s.caches(p)
	}
	atStart := caches()
	readsProfiled := profile("reads", func() {}, 3*time.Second)
	if res.bal, err = timeCalls(cfg.reads, func() error {
		var out string
		return c.Call(&out, "eth_getBalance", addrs[rng.Intn(len(addrs))].Hex(), "latest")
	}); err != nil {
		return res, fmt.Errorf("eth_getBalance: %w", err)
	}
	if res.call, err = timeCalls(cfg.reads, func() error {
		var out string
		data := "0x" + hex.EncodeToString(devload.BalanceOfData(addrs[rng.Intn(cfg.holders)]))
		return c.Call(&out, "eth_call", map[string]string{"to": devload.TokenAddress.Hex(), "data": data}, "latest")
	}); err != nil {
		return res, fmt.Errorf("eth_call: %w", err)
	}

	readsProfiled()
	afterReads := caches()
	from, err := c.BlockNumber()
	if err != nil {
		return res, err
	}
	// The load's profile starts once its transactions reach blocks (the
	// senders sign everything first).
	cpuFrom, _ := p.CPUTime()
	loaded := make(chan struct{})
	go func() { waitLoaded(c, from, cfg.senders, cfg.duration); close(loaded) }()
	afterLoaded := func() { <-loaded }
	loadProfiled := profile("load", afterLoaded, cfg.duration/2)
	defer loadProfiled()
	if cfg.profile != "" && s.pprof != nil {
		// Where the node waits during the same half of the load (block
		// and mutex), and a few seconds of its execution trace: whether
		// the block pipeline's stages overlap or take turns.
		for _, kind := range []string{"block", "mutex"} {
			name := fmt.Sprintf("%s-%d-r%d-load-%s.pprof", s.name, cfg.accounts, len(s.rounds)+1, kind)
			defer fetchProfile(s.pprof(p), kind, filepath.Join(cfg.profile, name), afterLoaded, cfg.duration/2)()
		}
		name := fmt.Sprintf("%s-%d-r%d-load.trace", s.name, cfg.accounts, len(s.rounds)+1)
		defer fetchProfile(s.pprof(p), "trace", filepath.Join(cfg.profile, name), func() { afterLoaded(); time.Sleep(cfg.duration / 4) }, 5*time.Second)()
	}
	if code := benchDev([]string{"--url", p.URL, "--duration", cfg.duration.String(), "--senders", strconv.Itoa(cfg.senders), "--block-time", "1s"}); code != 0 {
		return res, fmt.Errorf("the transfer load failed (chaind bench dev exit %d): %s", code, tail(p.Log(), 2000))
	}
	to, err := c.BlockNumber()
	if err != nil {
		return res, err
	}
	txs, gas, span := loadSpan(c, from+1, to, cfg.senders)
	res.txs, res.mgas = float64(txs)/span, float64(gas)/span/1e6
	if cpuTo, err := p.CPUTime(); err == nil && txs > 0 {
		// The node's CPU for each transfer it committed: on a shared
		// machine a steadier figure than the rate, which waits for the CPU.
		res.cpuPerTx = (cpuTo - cpuFrom) / time.Duration(txs)
	}
	res.loaded, _ = p.RSS()
	res.pauses = "-"
	if s.pauses != nil {
		res.pauses = s.pauses(p)
	}
	if s.caches != nil {
		res.caches = "reads: " + afterReads.since(atStart) + "; load: " + caches().since(afterReads)
	}
	if cfg.profile != "" {
		// The node's log beside its profiles: at debug level (--profile)
		// it has a line per block with where the block's time went.
		name := fmt.Sprintf("%s-%d-r%d.log", s.name, cfg.accounts, len(s.rounds)+1)
		if err := os.WriteFile(filepath.Join(cfg.profile, name), []byte(p.Log()), 0o644); err != nil {
			fmt.Printf("node log: %v\n", err)
		}
	}
	if err := p.Stop(time.Minute); err != nil {
		// Not the benchmark's failure, but the node's: say what it said.
		fmt.Printf("stop: %v; the node's last words:\n%s\n", err, tail(p.Log(), 1500))
	}
	if p, res.restart, err = s.boot(cfg, datadir); err != nil {
		return res, fmt.Errorf("restart: %w", err)
	}
	p.Stop(time.Minute)
	p = nil
	res.bytes = dirBytes(datadir)
	return res, nil
}

// waitLoaded waits until a block after from carries more transactions
// than the senders' funding, or for at most limit.
func waitLoaded(c *devload.Client, from uint64, senders int, limit time.Duration) {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		n, err := c.BlockNumber()
		if err != nil || n <= from {
			continue
		}
		if b, err := c.Block(n); err == nil && len(b.Transactions) > senders {
			return
		}
	}
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

// tail is the end of a node's log, for an error message.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// loadAvg is the 1, 5 and 15 minute load averages: a figure measured at
// load average 10 on a 2-core machine is a loaded figure.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
