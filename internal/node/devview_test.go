package node

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// A dev helper's edit of a staking system contract is seen the same by
// every interface: hardhat_setStorageAt writes the slots that give the
// genesis validator another stake and network address, and eth_getStorageAt
// (JSON-RPC), the REST and gRPC staking views and chain_getNodeList all
// read the edited state, at the head and, once a block is mined on it, at
// the block it was made of. The slots are found by building the staking
// state of the node's genesis with the other stake and address and
// comparing it with the node's own.
func TestDevEditSeenByEveryInterface(t *testing.T) {
	keys := devload.Keys("devview-test", 2)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	val, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{val}, ""); err != nil {
		t.Fatal(err)
	}
	zero := 0
	n := newDevToolsNodeWith(t, func(c *Config) {
		c.Genesis, c.Validator, c.Accounts, c.RESTPort, c.GRPCPort = g, val, keys, &zero, &zero
	})

	// The genesis with the validator's stake and address changed.
	var sg staking.Genesis
	if err := json.Unmarshal(g.Staking, &sg); err != nil {
		t.Fatal(err)
	}
	stake := new(uint256.Int).Mul(uint256.NewInt(4321), uint256.NewInt(1e18))
	sg.Validators[0].Stake, sg.Validators[0].NetAddress = stake, "10.1.2.3:30999"
	edited := *g
	if edited.Staking, err = json.Marshal(sg); err != nil {
		t.Fatal(err)
	}
	before, err := pos.New().GenesisAlloc(g)
	if err != nil {
		t.Fatal(err)
	}
	after, err := pos.New().GenesisAlloc(&edited)
	if err != nil {
		t.Fatal(err)
	}
	type slotEdit struct {
		addr       types.Address
		slot, want types.Hash
	}
	var edits []slotEdit
	for addr, acc := range after {
		for k, v := range acc.Storage {
			if before[addr].Storage[k] != v {
				edits = append(edits, slotEdit{addr, k, v})
			}
		}
		for k := range before[addr].Storage {
			if _, ok := acc.Storage[k]; !ok {
				edits = append(edits, slotEdit{addr, k, types.Hash{}})
			}
		}
	}
	if len(edits) == 0 {
		t.Fatal("the two staking genesis states do not differ")
	}
	h := n.Handler()
	for _, e := range edits {
		if r := devCall(t, h, "hardhat_setStorageAt", fmt.Sprintf(`["%s","%s","%s"]`, e.addr, e.slot, e.want)); r.Error != nil {
			t.Fatalf("hardhat_setStorageAt: %s", r.Error.Message)
		}
	}

	valoper := query.Bech32(query.ValidatorPrefix, sg.Validators[0].Operator)
	check := func(block string) {
		t.Helper()
		for _, e := range edits {
			r := devCall(t, h, "eth_getStorageAt", fmt.Sprintf(`["%s","%s","%s"]`, e.addr, e.slot, block))
			var got types.Hash
			if r.Error != nil || json.Unmarshal(r.Result, &got) != nil || got != e.want {
				t.Errorf("eth_getStorageAt %s %s at %s = %s, want %s", e.addr, e.slot, block, r.Result, e.want)
			}
		}
	}
	checkHead := func(what string) {
		t.Helper()
		check("latest")
		// The staking views of the query layer, over REST and gRPC.
		resp, err := http.Get("http://" + n.Addr("rest") + "/cosmos/staking/v1beta1/validators/" + valoper)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var rv struct {
			Validator struct {
				Tokens string `json:"tokens"`
			} `json:"validator"`
		}
		if err := json.Unmarshal(body, &rv); err != nil || rv.Validator.Tokens != stake.Dec() {
			t.Errorf("%s: REST validator %s, want tokens %s", what, body, stake.Dec())
		}
		var gv query.QueryValidatorsResponse
		if code, msg := grpcCall(t, n.Addr("grpc"), "/cosmos.staking.v1beta1.Query/Validators", &query.QueryValidatorsRequest{}, &gv); code != 0 ||
			len(gv.Validators) != 1 || gv.Validators[0].Tokens.ProtoText() != stake.Dec() {
			t.Errorf("%s: gRPC validators %d %s %+v, want tokens %s", what, code, msg, gv, stake.Dec())
		}
		// chain_getNodeList reads the registered network address.
		r := devCall(t, h, "chain_getNodeList", `[]`)
		var list struct {
			Nodes []struct {
				IP   string `json:"ip"`
				Port int    `json:"port"`
			} `json:"nodes"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &list) != nil || len(list.Nodes) != 1 || list.Nodes[0].IP != "10.1.2.3" || list.Nodes[0].Port != 30999 {
			t.Errorf("%s: chain_getNodeList %s, want 10.1.2.3:30999", what, r.Result)
		}
	}
	checkHead("edited head")

	// A block mined on the edited state keeps it, and block 0 still reads
	// as the edit left it.
	if r := devCall(t, h, "evm_mine", `[]`); r.Error != nil {
		t.Fatalf("evm_mine: %s", r.Error.Message)
	}
	if n.Chain.Head().Number() != 1 {
		t.Fatalf("head %d after evm_mine, want 1", n.Chain.Head().Number())
	}
	check("0x0")
	if info, err := n.Staking().StakingValidator(nil, sg.Validators[0].Operator); err != nil || info.NetAddress != "10.1.2.3:30999" {
		t.Errorf("block 1's validator %+v (%v): the block was not built on the edited state", info, err)
	}
}
