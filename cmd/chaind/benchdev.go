package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// benchDev measures sustained throughput the way a user's load test would:
// separate sender goroutines submit pre-signed raw transactions over HTTP,
// one per request, and a transaction counts only once its block is
// committed and its receipt can be read back.
func benchDev(args []string) int {
	fs := flag.NewFlagSet("chaind bench dev", flag.ContinueOnError)
	kind := fs.String("kind", "transfer", "workload: transfer (ETH) or erc20 (token transfers)")
	senders := fs.Int("senders", 16, "concurrent senders, each its own funded account")
	duration := fs.Duration("duration", 20*time.Second, "how long the senders submit")
	maxRate := fs.Int("max-rate", 0, "transactions per second the pre-signed supply covers (default 6000 for transfer, 2500 for erc20; senders that run dry report it)")
	url := fs.String("url", "", "JSON-RPC URL of a running --dev node (default: start one)")
	blockTime := fs.Duration("block-time", time.Second, "--block-time of the node this starts")
	datadir := fs.String("datadir", "", "data directory of the node this starts (default: a fresh temporary one, so every block is fsync'd)")
	mem := fs.Bool("mem", false, "run the started node in memory instead of on disk")
	bin := fs.String("bin", "", "chaind binary to start (default: this one)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*senders < 1, "--senders must be at least 1"},
		check{*duration <= 0, "--duration must be positive"},
		check{*maxRate < 0, "--max-rate must not be negative"},
		check{*blockTime < 0, "--block-time must not be negative"},
		noArgs(fs),
	); !ok {
		return code
	}
	k := devload.Kind(*kind)
	if k != devload.KindTransfer && k != devload.KindERC20 {
		fmt.Fprintf(os.Stderr, "chaind bench dev: unknown --kind %q\n", *kind)
		return 2
	}
	if *maxRate == 0 {
		*maxRate = 6_000
		if k == devload.KindERC20 {
			*maxRate = 2_500
		}
	}
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "chaind bench dev:", err); return 1 }

	target := *url
	var proc *devload.Proc
	if target == "" {
		exe, err := selfBinary(*bin)
		if err != nil {
			return fail(err)
		}
		nodeArgs := []string{"--dev", "--block-time", blockTime.String(), "--http.port", "0", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1"}
		if !*mem {
			dir := *datadir
			if dir == "" {
				if dir, err = os.MkdirTemp("", "chaind-bench-"); err != nil {
					return fail(err)
				}
				defer os.RemoveAll(dir)
			}
			nodeArgs = append(nodeArgs, "--datadir", dir)
		}
		p, err := devload.Start(exe, nodeArgs...)
		if err != nil {
			return fail(err)
		}
		defer p.Stop(10 * time.Second)
		target, proc = p.URL, p
		fmt.Printf("started %s %v\n", exe, nodeArgs)
	}
	c := devload.NewClient(target)
	var chainID devload.Quantity
	if err := c.Call(&chainID, "eth_chainId"); err != nil {
		return fail(err)
	}
	dev, err := hd.DevAccounts(hd.DevMnemonic, 1)
	if err != nil {
		return fail(err)
	}
	s := devload.NewSigner(uint64(chainID))
	keys := devload.Keys("bench-"+strconv.FormatInt(time.Now().UnixNano(), 10), *senders)
	fmt.Printf("funding %d senders%s ...\n", len(keys), map[bool]string{true: " and deploying the token", false: ""}[k == devload.KindERC20])
	token, err := devload.Prepare(c, s, k, dev[0], keys)
	if err != nil {
		return fail(err)
	}
	perSender := int(float64(*maxRate)*duration.Seconds())/len(keys) + 1
	t0 := time.Now()
	work, err := devload.SignAll(s, k, keys, make([]uint64, len(keys)), perSender, token)
	if err != nil {
		return fail(err)
	}
	fmt.Printf("pre-signed %d transactions in %s\n", perSender*len(keys), time.Since(t0).Round(time.Millisecond))

	startBlock, err := c.BlockNumber()
	if err != nil {
		return fail(err)
	}
	var cpu0 time.Duration
	if proc != nil {
		cpu0, _ = proc.CPUTime()
	}
	stop := make(chan struct{})
	timer := time.AfterFunc(*duration, func() { close(stop) })
	start := time.Now()
	res := devload.Send(c, work, stop)
	timer.Stop()
	sent := time.Since(start)
	accepted := res.Total()
	fmt.Printf("submitted for %s: %d accepted (%.0f/s), %d retried after a full pool, stopped senders: %v\n",
		sent.Round(time.Millisecond), accepted, float64(accepted)/sent.Seconds(), res.Retries, res.Errors)

	// Drain: every sender's committed nonce must reach what was accepted.
	deadline := time.Now().Add(60 * time.Second)
	for i, key := range keys {
		want := uint64(len(res.Accepted[i]))
		for {
			n, err := c.Nonce(devload.Address(key), "latest")
			if err != nil {
				return fail(err)
			}
			if n >= want {
				break
			}
			if time.Now().After(deadline) {
				return fail(fmt.Errorf("sender %d: %d of %d accepted transactions committed after 60s", i, n, want))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	drained := time.Since(start)
	var nodeCPU time.Duration
	if proc != nil {
		c1, _ := proc.CPUTime()
		nodeCPU = c1 - cpu0
	}
	endBlock, err := c.BlockNumber()
	if err != nil {
		return fail(err)
	}

	// Every accepted transaction must have a successful receipt in a block.
	want := make(map[types.Hash]bool, accepted)
	for _, txs := range res.Accepted {
		for _, tx := range txs {
			want[tx.Hash()] = true
		}
	}
	receipted, failed := 0, 0
	var perBlock []int
	for n := startBlock + 1; n <= endBlock; n++ {
		rs, err := c.BlockReceipts(n)
		if err != nil {
			return fail(fmt.Errorf("receipts of block %d: %w", n, err))
		}
		count := 0
		for _, r := range rs {
			if want[r.TxHash] {
				delete(want, r.TxHash)
				receipted++
				count++
				if r.Status != 1 {
					failed++
				}
			}
		}
		if count > 0 {
			perBlock = append(perBlock, count)
		}
	}
	fmt.Printf("blocks %d..%d: %d of %d accepted transactions receipted (%d failed, %d missing)\n",
		startBlock+1, endBlock, receipted, accepted, failed, len(want))
	// Blocks of the steady state (not the first and last, which straddle
	// the start and the end of the submissions).
	steady := perBlock
	if len(steady) > 2 {
		steady = steady[1 : len(steady)-1]
	}
	sorted := append([]int(nil), steady...)
	sort.Ints(sorted)
	med := 0
	if len(sorted) > 0 {
		med = sorted[len(sorted)/2]
	}
	fmt.Printf("transactions per block: %v\n", perBlock)
	fmt.Printf("%s: %.0f tx/s committed over the run (%d receipted in %s from first submission to last commit); %s\n",
		k, float64(receipted)/drained.Seconds(), receipted, drained.Round(time.Millisecond), blockRate(med, *blockTime))
	if nodeCPU > 0 && receipted > 0 {
		per := nodeCPU / time.Duration(receipted)
		fmt.Printf("node CPU: %s for %d transactions = %s per transaction (RPC, pool, block building, commit); %d cores would sustain %.0f tx/s\n",
			nodeCPU.Round(10*time.Millisecond), receipted, per.Round(time.Microsecond), runtime.NumCPU(), float64(runtime.NumCPU())*float64(time.Second)/float64(per))
	}
	if len(want) > 0 || failed > 0 {
		return 1
	}
	return 0
}

// blockRate says what the median block holds, and the rate it makes at
// the node's block time; with --block-time 0 blocks are mined on demand
// and have no rate of their own (dividing by it printed +Inf).
func blockRate(med int, blockTime time.Duration) string {
	if blockTime <= 0 {
		return fmt.Sprintf("median %d tx per block (blocks mined on demand)", med)
	}
	return fmt.Sprintf("median %d tx per block = %.0f tx/s at %s blocks", med, float64(med)/blockTime.Seconds(), blockTime)
}
