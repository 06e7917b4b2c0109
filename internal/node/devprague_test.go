package node

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// An EIP-7702 delegation on a dev node (its default fork, chain.DevFork):
// the set-code transaction goes through eth_sendRawTransaction, the pool
// and the builder, eth_getTransactionByHash shows its authorizationList,
// and the authority's code is the delegation; eth_estimateGas and
// eth_call take an authorizationList too.
func TestDevSetCodeDelegation(t *testing.T) {
	n := newDevToolsNode(t)
	h := n.Handler()
	keys := devload.Keys("devtools-test", 2)
	sender := keys[1]
	authKey, _ := crypto.GenerateKey()
	authority := types.Address(crypto.PubkeyToAddress(authKey.PubKey()))
	target := types.Address{0x77} // no code: a call to the authority runs nothing

	var est string
	authJSON := func(a types.SetCodeAuthorization) string {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	auth := types.SignSetCode(authKey, types.SetCodeAuthorization{ChainID: *uint256.NewInt(8118), Address: target})
	call := `{"from":"` + devload.Address(sender).Hex() + `","to":"` + authority.Hex() + `","authorizationList":[` + authJSON(auth) + `]}`
	devOK(t, h, "eth_estimateGas", `[`+call+`]`, &est)
	devOK(t, h, "eth_call", `[`+call+`,"latest"]`, nil)

	tx := types.MustSignNewTx(sender, n.Chain.Config.Signer(1, 1_700_000_010), &types.SetCodeTx{ChainID: *uint256.NewInt(8118),
		GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(100e9), Gas: 100_000, To: authority,
		AuthList: []types.SetCodeAuthorization{auth}})
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var hash types.Hash
	devOK(t, h, "eth_sendRawTransaction", `["0x`+hexBytes(raw)+`"]`, &hash)
	var got struct {
		Type              string            `json:"type"`
		BlockNumber       *string           `json:"blockNumber"`
		AuthorizationList []json.RawMessage `json:"authorizationList"`
	}
	devOK(t, h, "eth_getTransactionByHash", `["`+hash.Hex()+`"]`, &got)
	if got.Type != "0x4" || got.BlockNumber == nil || len(got.AuthorizationList) != 1 {
		t.Fatalf("transaction: %+v", got)
	}
	var code string
	devOK(t, h, "eth_getCode", `["`+authority.Hex()+`","latest"]`, &code)
	if want := "0x" + hexBytes(evm.DelegationCode(target)); code != want {
		t.Fatalf("authority code %s, want %s (the delegation to %s)", code, want, target.Hex())
	}
}

// A send on an automining dev node whose next block cannot be built (here
// the EIP-7251 queue reverts, so request collection fails) answers an
// error naming why instead of hanging.
func TestDevSendAnswersWhenNoBlockCanBeBuilt(t *testing.T) {
	n := newDevToolsNodeWith(t, func(c *Config) {
		c.Genesis.Alloc[chain.ConsolidationQueue] = chain.Account{Nonce: 1, Code: []byte{0x5f, 0x5f, 0xfd}} // PUSH0 PUSH0 REVERT
	})
	from := devload.Address(devload.Keys("devtools-test", 2)[1])
	r := devCall(t, n.Handler(), "eth_sendTransaction", `[{"from":"`+from.Hex()+`","to":"0x00000000000000000000000000000000000000dd","value":"0x1"}]`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "cannot build a block") || !strings.Contains(r.Error.Message, chain.ConsolidationQueue.Hex()) {
		t.Fatalf("send: %+v %s, want an error naming the failed build", r.Error, r.Result)
	}
}

func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}
