package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
)

// Four validators in one process decide blocks with equal heads; with one
// of them stopped (1/4 of the power) the other three carry on.
func TestDevnetFourValidators(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real nodes for several seconds")
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dn, err := startDevnet(devnetConfig{validators: 4, blockTime: 100 * time.Millisecond, host: "127.0.0.1", httpPort: 0, chainID: chain.MainChainID}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	wait := func(h uint64, who []int) {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			ok := true
			for _, i := range who {
				if dn.Nodes[i].Chain.Head().Number() < h {
					ok = false
				}
			}
			if ok {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, i := range who {
			t.Logf("validator %d at %d", i, dn.Nodes[i].Chain.Head().Number())
		}
		t.Fatalf("validators %v did not reach block %d", who, h)
	}
	sameAt := func(h uint64, who []int) {
		var first *chain.Chain
		for _, i := range who {
			c := dn.Nodes[i].Chain
			if first == nil {
				first = c
				continue
			}
			a, _ := first.BlockByNumber(h)
			b, err := c.BlockByNumber(h)
			if err != nil || a.Hash() != b.Hash() {
				t.Fatalf("block %d differs between validators", h)
			}
		}
	}
	all := []int{0, 1, 2, 3}
	wait(4, all)
	sameAt(4, all)
	// The first node's explorer serves the decided blocks.
	resp, err := http.Get("http://" + dn.Nodes[0].Addr("explorer") + "/api/block/4")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), dn.Nodes[0].Chain.GetHash(4).Hex()) {
		t.Fatalf("explorer block 4: %d %s", resp.StatusCode, body)
	}
	dn.Stop(3)
	h := dn.Nodes[0].Chain.Head().Number()
	wait(h+4, all[:3])
	sameAt(h+4, all[:3])
}
