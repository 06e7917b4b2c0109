package node

import (
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

// On a chain without staking state, the node lists itself with the p2p
// address it was configured with, not a fixed port.
func TestNodeListUsesConfiguredP2PAddress(t *testing.T) {
	key, _ := crypto.GenerateKey()
	for _, tc := range []struct {
		p2p      *P2PConfig
		wantIP   string
		wantPort int
	}{
		{nil, "127.0.0.1", 0},
		{&P2PConfig{ListenAddr: "127.0.0.1:30999"}, "127.0.0.1", 30999},
		{&P2PConfig{ListenAddr: "0.0.0.0:31000"}, "127.0.0.1", 31000},
	} {
		g := chain.DevGenesis(chain.MainChainID, []types.Address{{1}}, 1_700_000_000)
		n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: key, P2P: tc.p2p})
		if err != nil {
			t.Fatal(err)
		}
		if n.Chain.Engine().ProofOfStake() {
			t.Fatal("a genesis without a staking section runs the proof-of-stake engine")
		}
		nodes := n.stake.Network().Nodes()
		n.Close()
		if len(nodes) != 1 || nodes[0].IP != tc.wantIP || nodes[0].Port != tc.wantPort {
			t.Errorf("P2P %+v: nodes %+v, want %s:%d", tc.p2p, nodes, tc.wantIP, tc.wantPort)
		}
	}
}
