package node

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/query"
	"github.com/holiman/uint256"
)

// The REST and gRPC query ports open beside JSON-RPC and read the node's
// own chain: balances and the supply from the state, the consensus set
// from the BFT engine. This chain has no staking contracts, so the staking
// and governance modules answer Unavailable (503).
func TestCosmosPorts(t *testing.T) {
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	zero := 0
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, RESTPort: &zero, GRPCPort: &zero, Validator: keys[0]})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Addr("grpc") == "" {
		t.Fatal("no gRPC listener")
	}
	get := func(path string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+n.Addr("rest")+path, nil)
		req.Header.Set("Origin", "https://dashboard.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Access-Control-Allow-Origin") == "" {
			t.Errorf("%s: no CORS header for a browser page", path)
		}
		body, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %s", path, body)
		}
		return resp.StatusCode, v
	}
	total := new(uint256.Int)
	for _, acc := range g.Alloc {
		total.Add(total, &acc.Balance.Int)
	}
	_, supply := get("/cosmos/bank/v1beta1/supply/by_denom?denom=achain")
	if got := supply["amount"].(map[string]any)["amount"]; got != total.Dec() {
		t.Errorf("supply %v, want the genesis total %s", got, total.Dec())
	}
	holder := devload.Address(keys[1])
	_, bal := get("/cosmos/bank/v1beta1/balances/" + query.Bech32(query.AccountPrefix, holder))
	hb := g.Alloc[holder].Balance.Int
	want := hb.Dec()
	if bs := bal["balances"].([]any); len(bs) != 1 || bs[0].(map[string]any)["amount"] != want {
		t.Errorf("balance %v, want %s", bal, want)
	}
	// The account index, written from block 0 on, lists every funded
	// genesis account as a holder of the coin, the holder's balance its
	// own, and every account among the accounts.
	funded := 0
	for _, acc := range g.Alloc {
		if !acc.Balance.IsZero() {
			funded++
		}
	}
	if code, o := get("/cosmos/bank/v1beta1/denom_owners/achain"); code != 200 || o["pagination"].(map[string]any)["total"] != strconv.Itoa(funded) {
		t.Errorf("denom owners: %d %v, want %d", code, o, funded)
	} else if !strings.Contains(fmt.Sprint(o["denom_owners"]), query.Bech32(query.AccountPrefix, holder)+" balance:map[amount:"+want) {
		t.Errorf("denom owners lack %s with %s: %v", holder, want, o["denom_owners"])
	}
	if code, a := get("/cosmos/auth/v1beta1/accounts"); code != 200 || len(a["accounts"].([]any)) < funded {
		t.Errorf("accounts: %d %v, want at least %d", code, a, funded)
	}
	if code, vs := get("/cosmos/base/tendermint/v1beta1/validatorsets/latest"); code != 200 {
		t.Errorf("validator set: %d %v", code, vs)
	} else if list := vs["validators"].([]any); len(list) != 1 ||
		!strings.HasPrefix(list[0].(map[string]any)["address"].(string), "chainvalcons1") {
		t.Errorf("validator set: %v", vs)
	}
	if code, vs := get("/cosmos/staking/v1beta1/validators"); code != 503 {
		t.Errorf("staking validators: %d %v", code, vs)
	}
	if code, _ := get("/cosmos/gov/v1beta1/proposals/1"); code != 503 {
		t.Errorf("proposal 1: %d", code)
	}
	if code, _ := get("/cosmos/staking/v1beta1/params"); code != 503 {
		t.Errorf("staking params: %d", code)
	}
}
