package ethapi_test

import (
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// A public node holds no unlocked account, even when it is given some
// (chaind --dev --public): eth_accounts is [] and every signing method is
// method-not-found, whatever namespaces the port serves. On today's code
// a --dev --public node signed for anyone with the dev keys.
func TestPublicNodeSignsNothing(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	n, err := node.New(node.Config{Genesis: chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix())),
		HTTPPort: 0, WSPort: -1, Validator: key, Accounts: []*secp256k1.PrivateKey{key}, Public: true,
		HTTPAPIs: []string{"eth", "net", "web3", "debug"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	addr := n.Addr("http")

	if r := call(t, addr, "eth_accounts"); r.Error != nil || string(r.Result) != "[]" {
		t.Fatalf("eth_accounts: %s %+v, want []", r.Result, r.Error)
	}
	tx := map[string]any{"from": from.Hex(), "to": from.Hex(), "value": "0x1"}
	typed := map[string]any{"types": map[string]any{"EIP712Domain": []any{}}, "primaryType": "EIP712Domain", "domain": map[string]any{}, "message": map[string]any{}}
	for _, c := range []struct {
		method string
		params []any
	}{
		{"eth_sendTransaction", []any{tx}},
		{"eth_signTransaction", []any{tx}},
		{"eth_sign", []any{from.Hex(), "0x01"}},
		{"personal_sign", []any{"0x01", from.Hex()}},
		{"eth_signTypedData_v4", []any{from.Hex(), typed}},
	} {
		r := call(t, addr, c.method, c.params...)
		if r.Error == nil || r.Error.Code != -32601 {
			t.Errorf("%s on a public node: %s %+v, want -32601", c.method, r.Result, r.Error)
		}
	}
}
