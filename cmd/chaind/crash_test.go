package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// The test binary doubles as chaind: a child started with this variable set
// runs the real command line, so the crash test needs no separate build.
const asChaindEnv = "CHAIND_TEST_RUN_AS_CHAIND"

func TestMain(m *testing.M) {
	if os.Getenv(asChaindEnv) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// committed is what a node reported as committed: number -> hash, root.
type committed map[uint64]devload.BlockInfo

// crashNode runs the test binary as chaind on dir.
func crashNode(t *testing.T, dir string, blockTime string) *devload.Proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.Setenv(asChaindEnv, "1")
	defer os.Unsetenv(asChaindEnv)
	p, err := devload.Start(exe, "--dev", "--datadir", dir, "--block-time", blockTime, "--http.port", "0", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "0")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verify checks that the node serves every recorded block with the same
// hash and state root and can read balances at it, and returns its head.
func verify(t *testing.T, c *devload.Client, rec committed, probe types.Address) uint64 {
	t.Helper()
	head, err := c.BlockNumber()
	if err != nil {
		t.Fatal(err)
	}
	var reqs []devload.Req
	nums := make([]uint64, 0, len(rec))
	for n := range rec {
		nums = append(nums, n)
	}
	blocks := make([]*devload.BlockInfo, len(nums))
	for i, n := range nums {
		reqs = append(reqs, devload.Req{Method: "eth_getBlockByNumber", Params: []any{devload.Hex(n), false}, Out: &blocks[i]})
	}
	// State is kept for the last 128 blocks (older trie nodes are pruned).
	bals := make([]string, len(nums))
	for i, n := range nums {
		if n+128 <= head {
			bals[i] = "0x(pruned)"
			reqs = append(reqs, devload.Req{Method: "eth_blockNumber"})
			continue
		}
		reqs = append(reqs, devload.Req{Method: "eth_getBalance", Params: []any{probe.Hex(), devload.Hex(n)}, Out: &bals[i]})
	}
	for start := 0; start < len(reqs); start += 500 {
		if err := c.Batch(reqs[start:min(start+500, len(reqs))]); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range nums {
		want := rec[n]
		if err := reqs[i].Err; err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		got := blocks[i]
		if got == nil {
			t.Fatalf("block %d was reported committed (hash %s) but is gone after the crash; head is %d", n, want.Hash, head)
		}
		if got.Hash != want.Hash || got.StateRoot != want.StateRoot {
			t.Fatalf("block %d: after the crash hash %s root %s, before %s %s", n, got.Hash, got.StateRoot, want.Hash, want.StateRoot)
		}
		if err := reqs[len(nums)+i].Err; err != nil || !strings.HasPrefix(bals[i], "0x") {
			t.Fatalf("eth_getBalance at block %d: %q %v", n, bals[i], err)
		}
	}
	return head
}

// verifyHistory checks that the explorer's history index, written in the
// same batches as the blocks, agrees with the chain after a crash: its
// transaction total is the sum of the blocks' transactions, and probe's
// transaction count is its nonce. Right after a restart the pool is empty,
// so no transaction lands while it compares.
func verifyHistory(t *testing.T, p *devload.Proc, c *devload.Client, probe types.Address) {
	t.Helper()
	addr := p.Addr("explorer", 5*time.Second)
	if addr == "" {
		t.Fatalf("no explorer listener: %s", p.Log())
	}
	head, err := c.BlockNumber()
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]devload.Quantity, head+1)
	var reqs []devload.Req
	for n := uint64(0); n <= head; n++ {
		reqs = append(reqs, devload.Req{Method: "eth_getBlockTransactionCountByNumber", Params: []any{devload.Hex(n)}, Out: &counts[n]})
	}
	for start := 0; start < len(reqs); start += 500 {
		if err := c.Batch(reqs[start:min(start+500, len(reqs))]); err != nil {
			t.Fatal(err)
		}
	}
	var want uint64
	for i, r := range reqs {
		if r.Err != nil {
			t.Fatalf("block %d: %v", i, r.Err)
		}
		want += uint64(counts[i])
	}
	nonce, err := c.Nonce(probe, "latest")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TotalTransactions uint64 `json:"totalTransactions"`
		Head              uint64 `json:"head"`
	}
	getJSON(t, "http://"+addr+"/api/stats", &got)
	var acc struct {
		Account struct {
			TransactionCount uint64 `json:"transactionCount"`
		} `json:"account"`
	}
	getJSON(t, "http://"+addr+"/api/account/"+probe.Hex(), &acc)
	if got.TotalTransactions != want {
		t.Fatalf("history index holds %d transactions through block %d, the chain %d through block %d", got.TotalTransactions, got.Head, want, head)
	}
	if acc.Account.TransactionCount != nonce {
		t.Fatalf("history index lists %d transactions of %s, its nonce is %d", acc.Account.TransactionCount, probe, nonce)
	}
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// record reads the node's head and every block up to it.
func record(c *devload.Client, rec committed) error {
	head, err := c.BlockNumber()
	if err != nil {
		return err
	}
	var reqs []devload.Req
	var blocks []*devload.BlockInfo
	for n := uint64(0); n <= head; n++ {
		if _, ok := rec[n]; ok {
			continue
		}
		blocks = append(blocks, nil)
	}
	i := 0
	for n := uint64(0); n <= head; n++ {
		if _, ok := rec[n]; ok {
			continue
		}
		reqs = append(reqs, devload.Req{Method: "eth_getBlockByNumber", Params: []any{devload.Hex(n), false}, Out: &blocks[i]})
		i++
	}
	if err := c.Batch(reqs); err != nil {
		return err
	}
	for i, r := range reqs {
		if r.Err != nil {
			return r.Err
		}
		if blocks[i] == nil {
			return fmt.Errorf("node reported head %d but not block %v", head, r.Params[0])
		}
	}
	for _, b := range blocks {
		rec[uint64(b.Number)] = *b
	}
	return nil
}

// TestCrashRecovery kills a loaded dev node with SIGKILL at random moments
// and checks that every block it had reported committed survives each
// restart unchanged; then it damages the data file (a cut tail, a flipped
// bit) and checks the node detects it and serves only intact blocks.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test starts 20+ node processes; skipped with -short")
	}
	const rounds = 20
	dir := t.TempDir()
	keys, err := hd.DevAccounts(hd.DevMnemonic, 5)
	if err != nil {
		t.Fatal(err)
	}
	senders := keys[1:] // account 0 is the validator; keep its balance out of the way
	signer := devload.NewSigner(8118)
	work, err := devload.SignAll(signer, devload.KindTransfer, senders, make([]uint64, len(senders)), 1000, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	probe := devload.Address(senders[0])
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	rec := committed{}
	txs := 0
	for round := 0; round < rounds; round++ {
		p := crashNode(t, dir, "100ms")
		c := devload.NewClient(p.URL)
		head := verify(t, c, rec, probe)
		verifyHistory(t, p, c, probe)
		// Resume each sender at its committed nonce: what the pool held
		// before the kill is gone with the process.
		var pending [][]*types.Transaction
		for i, k := range senders {
			n, err := c.Nonce(devload.Address(k), "latest")
			if err != nil {
				t.Fatal(err)
			}
			// A bounded share per round keeps every round under load.
			lo := min(n, uint64(len(work[i])))
			pending = append(pending, work[i][lo:min(lo+40, uint64(len(work[i])))])
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var sent int
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent = devload.Send(c, pending, stop).Total()
		}()
		// Record what the node reports while the load runs, then kill it at
		// a random instant (possibly mid-block, mid-fsync).
		deadline := time.Now().Add(time.Duration(150+rng.Intn(600)) * time.Millisecond)
		for time.Now().Before(deadline) {
			if err := record(c, rec); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			time.Sleep(time.Duration(rng.Intn(40)) * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.Intn(100)) * time.Millisecond)
		p.Kill()
		close(stop)
		wg.Wait()
		txs += sent
		t.Logf("round %d: head %d at restart, %d blocks recorded, %d transactions accepted", round, head, len(rec), sent)
	}
	if txs == 0 {
		t.Fatal("no transaction was accepted over all rounds: the node was not under load")
	}

	// One clean run leaves a known head, then the file is damaged.
	p := crashNode(t, dir, "1h")
	c := devload.NewClient(p.URL)
	top := verify(t, c, rec, probe)
	// Blocks committed between the last recording and the last kill were
	// never seen by the test; the intact node serves them now, so they are
	// what a damaged file may fall back to.
	if err := record(c, rec); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The damage goes into the log being written: the store's tables
	// have their own damage tests (internal/store).
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) == 0 {
		t.Fatal("no log in the data directory")
	}
	logPath := logs[len(logs)-1]

	t.Run("truncated", func(t *testing.T) {
		st, err := os.Stat(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(logPath, st.Size()-7); err != nil { // tears the last record
			t.Fatal(err)
		}
		p := crashNode(t, dir, "1h")
		defer p.Stop(10 * time.Second)
		c := devload.NewClient(p.URL)
		head := intactPrefix(t, c, rec)
		if head >= top {
			t.Fatalf("head %d after cutting the last record, want below %d", head, top)
		}
		if !strings.Contains(p.Log(), "damaged tail") {
			t.Fatalf("the cut was not logged:\n%s", p.Log())
		}
		top = head
	})
	t.Run("bitflip", func(t *testing.T) {
		f, err := os.OpenFile(logPath, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		off := st.Size() * 3 / 4
		var b [1]byte
		f.ReadAt(b[:], off)
		b[0] ^= 0x10
		f.WriteAt(b[:], off)
		f.Close()
		damaged, _ := os.ReadFile(logPath)
		// Committed blocks lie after the flip: the node must refuse to
		// start rather than cut them.
		out, code := runCombined(t, "--dev", "--datadir", dir, "--http.port", "0", "--ws.port", "-1")
		if code == 0 || !strings.Contains(out, "damaged at offset") || !strings.Contains(out, "chaind repair") {
			t.Fatalf("start on a file flipped at offset %d: exit %d\n%s", off, code, out)
		}
		out, code = runCombined(t, "repair", "--datadir", dir)
		if code != 0 || !strings.Contains(out, "blocks 0..") {
			t.Fatalf("repair: exit %d\n%s", code, out)
		}
		sides, _ := filepath.Glob(logPath + ".damaged-at-*")
		if len(sides) != 1 {
			t.Fatalf("side files %v", sides)
		}
		kept, _ := os.ReadFile(logPath)
		side, _ := os.ReadFile(sides[0])
		if string(kept)+string(side) != string(damaged) || int64(len(kept)) > off {
			t.Fatalf("repair kept %d bytes and set aside %d of %d (flip at %d)", len(kept), len(side), len(damaged), off)
		}
		p := crashNode(t, dir, "1h")
		defer p.Stop(10 * time.Second)
		c := devload.NewClient(p.URL)
		head := intactPrefix(t, c, rec)
		if head >= top {
			t.Fatalf("head %d after flipping a bit at offset %d, want below %d", head, off, top)
		}
	})
}

// runCombined runs the test binary as chaind and returns its output
// (both streams) and exit code.
func runCombined(t *testing.T, args ...string) (string, int) {
	t.Helper()
	code, stdout, stderr := runChaind(t, args...)
	return stdout + stderr, code
}

// TestDatadirLocked starts a second node on a data directory in use: it
// must exit non-zero naming the holder's PID, and leave the first serving.
func TestDatadirLocked(t *testing.T) {
	dir := t.TempDir()
	p := crashNode(t, dir, "1h")
	defer p.Stop(10 * time.Second)
	out, code := runCombined(t, "--dev", "--datadir", dir, "--http.port", "0", "--ws.port", "-1")
	if code == 0 || !strings.Contains(out, fmt.Sprintf("in use by process %d", p.Cmd.Process.Pid)) {
		t.Fatalf("second node on a locked data directory: exit %d\n%s", code, out)
	}
	if _, err := devload.NewClient(p.URL).BlockNumber(); err != nil {
		t.Fatalf("first node after the refused second: %v", err)
	}
	out, code = runCombined(t, "repair", "--datadir", dir)
	if code == 0 || !strings.Contains(out, "in use by process") {
		t.Fatalf("repair of a data directory in use: exit %d\n%s", code, out)
	}
}

// intactPrefix checks that every block the node serves is one it served
// before the damage, and returns its head.
func intactPrefix(t *testing.T, c *devload.Client, rec committed) uint64 {
	t.Helper()
	head, err := c.BlockNumber()
	if err != nil {
		t.Fatal(err)
	}
	for n := uint64(0); n <= head; n++ {
		b, err := c.Block(n)
		if err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		if want, ok := rec[n]; !ok || want.Hash != b.Hash || want.StateRoot != b.StateRoot {
			t.Fatalf("after damage the node serves block %d %s, which it never served before", n, b.Hash)
		}
	}
	var bal string
	if err := c.Call(&bal, "eth_getBalance", types.Address{}.Hex(), devload.Hex(head)); err != nil {
		t.Fatalf("state of head %d after damage: %v", head, err)
	}
	return head
}
