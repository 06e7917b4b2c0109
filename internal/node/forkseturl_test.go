package node

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/devload"
)

// TestForkSetRpcUrl: anvil_setRpcUrl moves a fork's reads to another
// endpoint of the same chain (what was not fetched yet comes from there),
// refuses an endpoint of another chain and a URL that is none, and a
// node that is no fork says so.
func TestForkSetRpcUrl(t *testing.T) {
	u := startUpstream(t)
	n, err := startFork(t, u, &u.N, "")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	// The same chain behind another address.
	mirror := httptest.NewServer(u.n.Handler())
	defer mirror.Close()
	if res := mustCall(t, n, "anvil_setRpcUrl", mirror.URL); res != "null" {
		t.Fatalf("anvil_setRpcUrl = %s, want null", res)
	}
	if got := n.Upstream().URL(); got != mirror.URL {
		t.Fatalf("upstream %s, want %s", got, mirror.URL)
	}
	before := n.Upstream().RoundTrips()
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("balance %s, want 100 as of the fork block", got)
	}
	if n.Upstream().RoundTrips() == before {
		t.Fatal("the first read after the switch asked the new upstream nothing")
	}
	other := newDevToolsNode(t) // another chain (its genesis differs)
	otherSrv := httptest.NewServer(other.Handler())
	defer otherSrv.Close()
	for _, c := range []struct{ url, want string }{
		{otherSrv.URL, "another chain"},
		{"ftp://example", "want an http or https URL"},
	} {
		if _, err := rpcCall(t, n, "anvil_setRpcUrl", c.url); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("anvil_setRpcUrl(%s): %v, want %q", c.url, err, c.want)
		}
	}
	if got := n.Upstream().URL(); got != mirror.URL {
		t.Fatalf("a refused switch moved the upstream to %s", got)
	}
	// A dev node that may reset but is no fork.
	val, _ := DevValidatorKey(0)
	plain, err := New(Config{Genesis: devload.GenesisWithToken(1, devload.Keys("seturl", 1), 1_700_000_000), HTTPPort: -1, WSPort: -1,
		Validator: val, Fork: ForkConfig{Reset: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := rpcCall(t, plain, "anvil_setRpcUrl", mirror.URL); err == nil || !strings.Contains(err.Error(), "no fork") {
		t.Fatalf("anvil_setRpcUrl on a node that is no fork: %v", err)
	}
}
