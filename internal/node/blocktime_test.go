package node

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
)

// A proof-of-stake dev node making a block every 250 ms keeps its blocks'
// timestamps with the clock (whole-second timestamps strictly increasing
// would run 3 s ahead every second): several blocks share a second, their
// millisecond times are 250 ms apart, and the explorer's block time says
// so.
func TestSubSecondBlocksKeepToTheClock(t *testing.T) {
	keys := devload.Keys("node-test", 2)
	g := devload.GenesisWithToken(8118, keys, uint64(time.Now().Unix())-5)
	if err := pos.SetDevStaking(g, keys[:1], ""); err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0], Accounts: keys[1:], DevTools: true,
		BlockTime: 250 * time.Millisecond, Explorer: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	waitHead(t, n, 12)

	head := n.Chain.Head()
	if ahead := time.Until(time.Unix(int64(head.Time()), 0)); ahead > time.Second {
		t.Fatalf("head %d stamped %v ahead of the clock", head.Number(), ahead)
	}
	if ms := time.UnixMilli(int64(pos.TimeMs(head.HeaderRef()))); time.Since(ms).Abs() > 2*time.Second {
		t.Fatalf("head's millisecond time %v is %v from the clock", ms, time.Since(ms))
	}
	shared := 0
	for i := uint64(2); i <= head.Number(); i++ {
		b, _ := n.Chain.BlockByNumber(i)
		p, _ := n.Chain.BlockByNumber(i - 1)
		if b.Time() == p.Time() {
			shared++
		}
		if d := pos.TimeMs(b.HeaderRef()) - pos.TimeMs(p.HeaderRef()); d < 200 || d > 2000 {
			t.Errorf("block %d is %d ms after its parent, want about 250", i, d)
		}
	}
	if shared == 0 {
		t.Error("no two blocks share a second at 250 ms blocks")
	}
	if iv := n.chainm.BlockInterval(); iv < 0.15 || iv > 2 { // what chaind top shows
		t.Errorf("chaind_block_interval_seconds %.3f, want about 0.25", iv)
	}

	srv := httptest.NewServer(n.explorerListener("127.0.0.1:0").Handler)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var stats struct{ BlockTime float64 }
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	if stats.BlockTime < 0.2 || stats.BlockTime > 0.5 {
		t.Fatalf("/api/stats block time %.3f s, want about 0.25", stats.BlockTime)
	}
}

// Validators deciding a block every 100 ms stamp them with the clock's
// milliseconds too: the devnet's head stays within a second of now.
func TestDevnetBlocksKeepToTheClock(t *testing.T) {
	dn, err := StartDevnet(DevnetConfig{Validators: 2, BlockTime: 100 * time.Millisecond, HTTPPort: -1, ChainID: 8118})
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	n := dn.Nodes[0]
	waitHead(t, n, 25)
	head := n.Chain.Head()
	if ahead := time.Until(time.Unix(int64(head.Time()), 0)); ahead > time.Second {
		t.Fatalf("head %d stamped %v ahead of the clock", head.Number(), ahead)
	}
	first, _ := n.Chain.BlockByNumber(1)
	span := pos.TimeMs(head.HeaderRef()) - pos.TimeMs(first.HeaderRef())
	if per := float64(span) / float64(head.Number()-1); per < 50 || per > 1000 {
		t.Fatalf("%.0f ms a block, want about 100", per)
	}
}
