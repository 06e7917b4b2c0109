package node

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// upstreamProxy stands in front of an upstream node as the fork's
// endpoint, so a test can take the upstream away (Close) while the
// upstream node itself keeps running, and count what reaches it.
type upstreamProxy struct {
	srv      *httptest.Server
	requests atomic.Int64
}

func newUpstreamProxy(t *testing.T, target string) *upstreamProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &upstreamProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// A fork keeps what it fetched from the upstream across a restart on its
// data directory even when it made no block: accounts, storage slots and
// code read once are answered again with the upstream gone, and so is the
// fork block itself (the head), as the README says of --fork-url.
func TestForkKeepsFetchedStateAcrossRestart(t *testing.T) {
	u := startUpstream(t)
	proxy := newUpstreamProxy(t, u.url)
	viaProxy := *u
	viaProxy.url = proxy.srv.URL
	dir := t.TempDir()
	n, err := startFork(t, &viaProxy, &u.N, dir)
	if err != nil {
		t.Fatal(err)
	}
	k1 := devload.Address(u.keys[1])
	reads := []struct {
		method string
		params []any
	}{
		{"eth_getBalance", []any{k1, "latest"}},
		{"eth_getTransactionCount", []any{k1, "latest"}},
		{"eth_getCode", []any{devload.TokenAddress, "latest"}},
		{"eth_getStorageAt", []any{devload.TokenAddress, devload.TokenSlot(u.x), "latest"}},
		{"eth_call", []any{map[string]any{"from": caller, "to": devload.TokenAddress, "data": types.HexBytes(devload.BalanceOfData(u.x))}, "latest"}},
		{"eth_getBlockByNumber", []any{"latest", true}},
		{"eth_getBlockReceipts", []any{"latest"}},
	}
	// Stopped and started again before anything is read: the fork block
	// was kept as the fork started, and is not asked for again.
	n.Close()
	if n, err = startFork(t, &viaProxy, nil, dir); err != nil {
		t.Fatal(err)
	}
	before := proxy.requests.Load()
	mustCall(t, n, "eth_getBlockByNumber", "latest", true)
	mustCall(t, n, "eth_getBlockReceipts", "latest")
	if d := proxy.requests.Load() - before; d != 0 {
		t.Errorf("the fork block was asked for again after a restart (%d requests)", d)
	}
	want := make([]string, len(reads))
	for i, r := range reads {
		want[i] = mustCall(t, n, r.method, r.params...)
	}
	if n.Chain.Head().Number() != u.N {
		t.Fatalf("the fork made block %d: the test is of a fork that made none", n.Chain.Head().Number())
	}
	n.Close()

	proxy.srv.Close()
	before = proxy.requests.Load()
	n, err = startFork(t, &viaProxy, nil, dir)
	if err != nil {
		t.Fatalf("restart with the upstream down: %v", err)
	}
	defer n.Close()
	for i, r := range reads {
		got, err := rpcCall(t, n, r.method, r.params...)
		if err != nil {
			t.Errorf("after a restart with the upstream down, %s: %v", r.method, err)
			continue
		}
		if string(got) != want[i] {
			t.Errorf("after a restart %s answers %.120s, before %.120s", r.method, got, want[i])
		}
	}
	if d := proxy.requests.Load() - before; d != 0 {
		t.Errorf("%d requests reached the stopped upstream", d)
	}
}
