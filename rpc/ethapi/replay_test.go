package ethapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// A transaction signed without a chain ID (pre-EIP-155) can be replayed
// on every chain where its sender has funds: one mined on chain 8118 was
// mined again on another chain's node. It is refused over RPC and GraphQL
// with go-ethereum's wording unless the node allows it, which a public
// node never does; a protected legacy transaction goes through either way.
func TestUnprotectedTransactions(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	to := types.Address{0xaa}
	legacy := func(nonce uint64, s types.Signer) string {
		tx := types.MustSignNewTx(key, s, &types.LegacyTx{Nonce: nonce, GasPrice: *uint256.NewInt(1e11), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})
		raw, _ := tx.MarshalBinary()
		return types.EncodeBytes(raw)
	}
	unprotected := types.NewSigner(0, forks.Latest) // signs with V = 27/28
	protected := types.LatestSigner(8118)
	const want = "only replay-protected (EIP-155) transactions allowed over RPC"

	for _, tc := range []struct {
		name  string
		cfg   node.Config
		allow bool
	}{
		{"by default", node.Config{}, false},
		{"allowed", node.Config{AllowUnprotectedTxs: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Genesis = chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix()))
			cfg.HTTPPort, cfg.WSPort, cfg.Validator = 0, -1, key
			n, err := node.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := n.Start(); err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			addr := n.Addr("http")

			raw := legacy(0, unprotected)
			r := call(t, addr, "eth_sendRawTransaction", raw)
			if !tc.allow {
				if r.Error == nil || r.Error.Code != -32000 || r.Error.Message != want {
					t.Fatalf("unprotected: %s %+v, want -32000 %q", r.Result, r.Error, want)
				}
				var g struct {
					Errors []struct{ Message string }
				}
				postGraphQL(t, addr, `mutation { sendRawTransaction(data: "`+raw+`") }`, &g)
				if len(g.Errors) != 1 || g.Errors[0].Message != want {
					t.Fatalf("unprotected over GraphQL: %+v, want %q", g.Errors, want)
				}
				if p := call(t, addr, "eth_sendRawTransaction", legacy(0, protected)); p.Error != nil {
					t.Fatalf("protected legacy: %s", p.Error.Message)
				}
				return
			}
			if r.Error != nil {
				t.Fatalf("unprotected with --rpc.allow-unprotected-txs: %s", r.Error.Message)
			}
			var h types.Hash
			if err := json.Unmarshal(r.Result, &h); err != nil {
				t.Fatal(err)
			}
			if rc := waitReceipt(t, addr, h); rc["status"] != "0x1" {
				t.Fatalf("receipt %v", rc)
			}
		})
	}

	g := chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix()))
	if _, err := node.New(node.Config{Genesis: g, Public: true, AllowUnprotectedTxs: true, Accounts: []*secp256k1.PrivateKey{key}}); err == nil {
		t.Fatal("a public node accepted AllowUnprotectedTxs")
	}
}

// postGraphQL runs one GraphQL query on the node's /graphql.
func postGraphQL(t *testing.T, addr, query string, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := http.Post("http://"+addr+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
