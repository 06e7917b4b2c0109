package node

import (
	"context"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// eth_coinbase is where the node's blocks pay: its validator's address,
// not a held account's. A node without a validator key answers as geth
// does without an etherbase.
func TestCoinbaseIsTheValidator(t *testing.T) {
	keys := devload.Keys("coinbase-test", 2)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"validator", Config{Validator: keys[1], Accounts: keys[:1]}, `"result":"` + strings.ToLower(types.Address(crypto.PrivkeyToAddress(keys[1])).Hex()) + `"`},
		{"no validator key", Config{Accounts: keys[:1]}, `"error":{"code":-32000,"message":"etherbase must be explicitly specified"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Genesis, cfg.HTTPPort, cfg.WSPort = g, -1, -1
			n, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			got := string(n.RPC.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_coinbase"}`)))
			if !strings.Contains(got, tc.want) {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}
