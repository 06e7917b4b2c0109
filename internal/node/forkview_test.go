package node

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A forked account's balance reads the same over JSON-RPC, REST, gRPC
// and GraphQL: every interface reads the fork's state through the one
// view, whose upstream supplies what the store lacks. Each account is
// first read through a different interface, so each of them fetches from
// the upstream once; after a re-fork (anvil_reset to another block) they
// all read the new upstream block.
func TestForkedBalanceSameOnEveryInterface(t *testing.T) {
	u := startUpstream(t)
	zero := 0
	n, err := startFork(t, u, &u.N, "", func(c *Config) { c.RESTPort, c.GRPCPort = &zero, &zero })
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()

	rest := func(a types.Address) string {
		resp, err := http.Get("http://" + n.Addr("rest") + "/cosmos/bank/v1beta1/balances/" + query.Bech32(query.AccountPrefix, a))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var r struct {
			Balances []struct{ Amount string } `json:"balances"`
		}
		if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != 200 {
			t.Fatalf("REST balances of %s: %d %s", a, resp.StatusCode, body)
		}
		if len(r.Balances) == 0 {
			return "0"
		}
		return r.Balances[0].Amount
	}
	grpc := func(a types.Address) string {
		var r query.QueryAllBalancesResponse
		if code, msg := grpcCall(t, n.Addr("grpc"), "/cosmos.bank.v1beta1.Query/AllBalances",
			&query.QueryAllBalancesRequest{Address: query.Bech32(query.AccountPrefix, a)}, &r); code != 0 {
			t.Fatalf("gRPC balances of %s: %d %s", a, code, msg)
		}
		if len(r.Balances) == 0 {
			return "0"
		}
		return r.Balances[0].Amount.ProtoText()
	}
	gql := func(a types.Address) string {
		var r struct {
			Block struct {
				Account struct{ Balance types.HexU256 } `json:"account"`
			} `json:"block"`
		}
		postGQL(t, srv.URL, fmt.Sprintf(`{ block { account(address: "%s") { balance } } }`, a), &r)
		return (*uint256.Int)(&r.Block.Account.Balance).Dec()
	}
	balanceOn := func(on *Node, a types.Address, tag string) string {
		var v types.HexU256
		if err := json.Unmarshal([]byte(mustCall(t, on, "eth_getBalance", a, tag)), &v); err != nil {
			t.Fatal(err)
		}
		return (*uint256.Int)(&v).Dec()
	}
	jsonrpc := func(a types.Address) string { return balanceOn(n, a, "latest") }
	readers := []struct {
		name string
		read func(types.Address) string
	}{{"REST", rest}, {"gRPC", grpc}, {"GraphQL", gql}, {"JSON-RPC", jsonrpc}}
	upstream := func(a types.Address, block uint64) string { return balanceOn(u.n, a, devload.Hex(block)) }

	k0, k1 := devload.Address(u.keys[0]), devload.Address(u.keys[1])
	check := func(block uint64, accounts ...types.Address) {
		t.Helper()
		for i, a := range accounts {
			want := upstream(a, block)
			if want == "0" {
				t.Fatalf("account %s has no balance on the upstream at %d: the test reads nothing", a, block)
			}
			// Account i is read first by reader i, which fetches it.
			for j := range readers {
				r := readers[(i+j)%len(readers)]
				if got := r.read(a); got != want {
					t.Errorf("block %d: %s reads %s's balance as %s, upstream %s", block, r.name, a, got, want)
				}
			}
		}
	}
	check(u.N, k1, k0)

	// Y is paid one ether after N: a re-fork at the upstream's head
	// shows it on every interface.
	mustCall(t, n, "anvil_reset", map[string]any{"forking": map[string]any{"jsonRpcUrl": u.url, "blockNumber": u.head}})
	check(u.head, u.y, k1)
}
