package node

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

// TestCommittedBlockLoggedAtInfo: a network node says at info level
// every block it commits, with its height, transactions, round and the
// time since the one before.
func TestCommittedBlockLoggedAtInfo(t *testing.T) {
	var logs syncBuf
	keys := devload.Keys("node-test", 3)
	n, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1_700_000_000), HTTPPort: -1, WSPort: -1,
		Validator: keys[0], Accounts: keys, Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	txs, err := devload.NewSigner(8118).Workload(devload.KindTransfer, keys[1], 0, 2, devload.TokenAddress)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range txs {
		if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		waitNonce(t, n, devload.Address(keys[1]), uint64(i+1))
	}
	var lines []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="committed block"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no committed block logged at info:\n%s", logs.String())
	}
	for _, want := range []string{"level=INFO", "height=1 ", "txs=1 ", "round=0 ", "took="} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("first committed-block line lacks %q: %s", want, lines[0])
		}
	}
}

// TestPeersLoggedAtInfo: a node says at info level when a peer connects
// and when it goes.
func TestPeersLoggedAtInfo(t *testing.T) {
	pn := newP2PNet(t, 2)
	var logs syncBuf
	first := true
	pn.configure = func(c *Config) {
		if first {
			c.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
		}
		first = false
	}
	pn.startValidator(0)
	pn.startValidator(1)
	peer := pn.addrs[1].ID.String()
	waitLog := func(want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(logs.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the log:\n%s", want, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitLog(`level=INFO msg="peer connected" id=` + peer)
	pn.nodes[1].Close()
	pn.nodes[1] = nil
	waitLog(`level=INFO msg="peer disconnected" id=` + peer)
}

// A validator waiting for a quorum warns its operator once per
// stallWarnEvery, however many timers fire meanwhile.
func TestStalledWarningRateLimited(t *testing.T) {
	var buf bytes.Buffer
	n := &Node{log: slog.New(slog.NewTextHandler(&buf, nil))}
	for range 5 {
		n.warnStalled(7, 3, 12*time.Second)
	}
	out := buf.String()
	if got := strings.Count(out, "waiting for a quorum"); got != 1 {
		t.Fatalf("%d warnings in a burst, want 1:\n%s", got, out)
	}
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "height=7") || !strings.Contains(out, "peers=0") {
		t.Fatalf("warning lacks its level, height or peers: %s", out)
	}
	n.stallWarn.Store(time.Now().Add(-stallWarnEvery).UnixNano())
	n.warnStalled(7, 4, 22*time.Second)
	if got := strings.Count(buf.String(), "waiting for a quorum"); got != 2 {
		t.Fatalf("no second warning after stallWarnEvery")
	}
}
