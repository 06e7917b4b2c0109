package node

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/lcd"
)

// The REST queries serve the staking contracts' state: on a devnet where
// a delegator delegated and a proposal was submitted, the validators, the
// delegations, the proposal with its deposit, the modules' parameters and
// the supply are those the native readers give, in Cosmos' shapes.
func TestCosmosQueriesServeStakingState(t *testing.T) {
	dn, vals := stakingDevnet(t)
	n := dn.Nodes[0]
	op := vals[0].Operator
	delegator, proposer := dn.Keys[1], dn.Keys[2]
	delAddr := types.Address(crypto.PrivkeyToAddress(delegator))
	propAddr := types.Address(crypto.PrivkeyToAddress(proposer))
	stakeTx(t, dn, delegator, staking.StakingAddress, ethers(5), call(t, "Staking", "delegate", op))
	params, _ := n.Staking().StakingParams(nil)
	stakeTx(t, dn, proposer, staking.GovernanceAddress, params.MinDeposit, call(t, "Governance", "submitProposal",
		uint64(staking.TextProposal), "a text", "read over REST", "", ""))

	srv := httptest.NewServer(lcd.New(query.New(n.queryBackend())))
	defer srv.Close()
	get := func(path string, want int) map[string]any {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil || resp.StatusCode != want {
			t.Fatalf("%s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
		return v
	}
	valoper := query.Bech32(query.ValidatorPrefix, op)
	delAcc := query.Bech32(query.AccountPrefix, delAddr)

	vs := get("/cosmos/staking/v1beta1/validators", 200)["validators"].([]any)
	if len(vs) != 2 {
		t.Fatalf("validators %v", vs)
	}
	native, _ := n.Staking().StakingValidator(nil, op)
	var found bool
	for _, v := range vs {
		v := v.(map[string]any)
		if v["status"] != "BOND_STATUS_BONDED" {
			t.Errorf("validator %v not bonded", v["operator_address"])
		}
		if v["operator_address"] == valoper {
			found = true
			if v["tokens"] != native.Tokens.Dec() {
				t.Errorf("tokens %v, want %s", v["tokens"], native.Tokens.Dec())
			}
		}
	}
	if !found {
		t.Errorf("validator %s missing from %v", valoper, vs)
	}

	ds := get("/cosmos/staking/v1beta1/delegations/"+delAcc, 200)["delegation_responses"].([]any)
	if len(ds) != 1 {
		t.Fatalf("delegations %v", ds)
	}
	d := ds[0].(map[string]any)
	if d["balance"].(map[string]any)["amount"] != ethers(5).Dec() ||
		d["delegation"].(map[string]any)["validator_address"] != valoper ||
		d["delegation"].(map[string]any)["shares"] != ethers(5).Dec()+".000000000000000000" {
		t.Errorf("delegation %v", d)
	}
	one := get("/cosmos/staking/v1beta1/validators/"+valoper+"/delegations/"+delAcc, 200)
	if one["delegation_response"].(map[string]any)["balance"].(map[string]any)["amount"] != ethers(5).Dec() {
		t.Errorf("delegation %v", one)
	}
	if vd := get("/cosmos/staking/v1beta1/validators/"+valoper+"/delegations", 200)["delegation_responses"].([]any); len(vd) < 2 {
		t.Errorf("validator's delegations %v: want its self-delegation and the delegator's", vd)
	}

	p := get("/cosmos/gov/v1beta1/proposals/1", 200)["proposal"].(map[string]any)
	if p["status"] != "PROPOSAL_STATUS_VOTING_PERIOD" || p["total_deposit"].([]any)[0].(map[string]any)["amount"] != params.MinDeposit.Dec() {
		t.Errorf("proposal %v", p)
	}
	deps := get("/cosmos/gov/v1beta1/proposals/1/deposits", 200)["deposits"].([]any)
	if len(deps) != 1 || deps[0].(map[string]any)["depositor"] != query.Bech32(query.AccountPrefix, propAddr) {
		t.Errorf("deposits %v", deps)
	}
	get("/cosmos/gov/v1beta1/proposals/2", 404)

	sp := get("/cosmos/staking/v1beta1/params", 200)["params"].(map[string]any)
	if want := (time.Duration(params.RestakeCooldown) * time.Millisecond).Seconds(); sp["unbonding_time"] != formatSeconds(want) ||
		sp["max_validators"] != float64(params.Desired) {
		t.Errorf("staking params %v, want restakeCooldown %d ms and desired %d", sp, params.RestakeCooldown, params.Desired)
	}
	// The supply is the staking state's exact count at the head the
	// query read, which is one of the heads seen around the request.
	from := n.Chain.Head().Number()
	got := get("/cosmos/bank/v1beta1/supply/by_denom?denom=achain", 200)["amount"].(map[string]any)["amount"]
	var supplies []string
	for h := from; h <= n.Chain.Head().Number(); h++ {
		s, err := n.Staking().Supply(&h)
		if err != nil {
			t.Fatal(err)
		}
		supplies = append(supplies, s.Total.Dec())
	}
	if !slices.Contains(supplies, got.(string)) {
		t.Errorf("supply %v, want the staking state's %v", got, supplies)
	}
	sl := get("/cosmos/slashing/v1beta1/signing_infos", 200)["info"].([]any)
	if len(sl) != 2 {
		t.Errorf("signing infos %v", sl)
	}
}

// The explorer tells the same state's roles and takes bech32 addresses:
// the operator is a validator (and, self-delegated, a delegator), the
// delegator a delegator, whether named by 0x, chain1… or chainvaloper1….
func TestExplorerStakingRoles(t *testing.T) {
	dn, vals := stakingDevnet(t)
	n := dn.Nodes[0]
	op := vals[0].Operator
	delegator := dn.Keys[1]
	delAddr := types.Address(crypto.PrivkeyToAddress(delegator))
	stakeTx(t, dn, delegator, staking.StakingAddress, ethers(5), call(t, "Staking", "delegate", op))
	srv := httptest.NewServer(n.explorerListener("127.0.0.1:0").Handler)
	defer srv.Close()
	for _, tc := range []struct {
		addr, roles string
		code        int
	}{
		{op.Hex(), "delegator validator", 200},
		{query.Bech32(query.ValidatorPrefix, op), "delegator validator", 200},
		{query.Bech32(query.AccountPrefix, delAddr), "delegator", 200},
		{delAddr.Hex(), "delegator", 200},
		{query.Bech32(query.AccountPrefix, types.Address{0xde, 0xad}), "", 200},
		{query.Bech32(query.ConsensusPrefix, op), "", 400},
	} {
		resp, err := http.Get(srv.URL + "/api/account/" + tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Account struct {
				Address string
				Roles   []string
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if resp.StatusCode != tc.code || err != nil {
			t.Fatalf("%s: %d %v, want %d", tc.addr, resp.StatusCode, err, tc.code)
		}
		if tc.code == 200 {
			roles := v.Account.Roles
			slices.Sort(roles)
			if got := strings.Join(roles, " "); got != tc.roles {
				t.Errorf("%s: roles %q, want %q", tc.addr, got, tc.roles)
			}
		}
	}
}

func formatSeconds(s float64) string {
	b, _ := json.Marshal(s)
	return string(b) + "s"
}
