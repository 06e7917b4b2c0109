package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
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

// fakeMember is a validator whose failure a test decides.
type fakeMember struct {
	failed chan struct{}
	err    error
}

func (f *fakeMember) Failed() <-chan struct{} { return f.failed }
func (f *fakeMember) Failure() error          { return f.err }

// An in-process devnet outlives one validator's failure: the failed one is
// named in the log with its error and taken off the network, the others
// keep running until a signal; only when all have failed does it exit,
// non-zero.
func TestInProcessDevnetSurvivesAFailure(t *testing.T) {
	members := make([]failingNode, 3)
	fakes := make([]*fakeMember, 3)
	for i := range fakes {
		fakes[i] = &fakeMember{failed: make(chan struct{})}
		members[i] = fakes[i]
	}
	stopped := make(chan int, 3)
	var logBuf syncBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	sig := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() { done <- watchValidators(members, func(i int) { stopped <- i }, sig, log) }()

	fakes[1].err = errors.New("disk full")
	close(fakes[1].failed)
	select {
	case i := <-stopped:
		if i != 1 {
			t.Fatalf("stopped validator %d, want 1", i)
		}
	case code := <-done:
		t.Fatalf("the devnet exited (%d) after one validator failed", code)
	case <-time.After(10 * time.Second):
		t.Fatal("the failed validator was not taken off the network")
	}
	select {
	case code := <-done:
		t.Fatalf("the devnet exited (%d) after one of three validators failed", code)
	case <-time.After(100 * time.Millisecond):
	}
	if out := logBuf.String(); !strings.Contains(out, "validator=1") || !strings.Contains(out, "disk full") || !strings.Contains(out, "keep running") {
		t.Errorf("the log does not name the failed validator and its error:\n%s", out)
	}
	sig <- os.Interrupt
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d on a signal, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit on a signal")
	}

	// Every validator failing ends the devnet with the failure status.
	go func() { done <- watchValidators(members[:1], func(int) {}, make(chan os.Signal), log) }()
	close(fakes[0].failed)
	select {
	case code := <-done:
		if code != exitFailed {
			t.Errorf("exit %d when every validator failed, want %d", code, exitFailed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit when every validator failed")
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
