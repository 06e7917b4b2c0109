package node

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// chainIDProbe is where the chain ID tests place chainIDProbeCode, which
// stores CHAINID in slot 0 and returns it: CHAINID PUSH0 SSTORE CHAINID
// PUSH0 MSTORE PUSH1 32 PUSH0 RETURN.
var (
	chainIDProbe     = types.MustAddress("0x00000000000000000000000000000000000c1d1d")
	chainIDProbeCode = []byte{0x46, 0x5f, 0x55, 0x46, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3}
)

// TestDevSetChainID: anvil_setChainId on a dev node, against what anvil
// 1.7.1 answers. eth_chainId, net_version, CHAINID in calls and blocks
// and the pool take the new ID at once; a transaction signed for the old
// one is refused; the blocks made before keep theirs: their senders,
// their traces (a replay under the new ID would store it) and calls on
// the states before the change. All of it survives a restart on the
// node's data directory.
func TestDevSetChainID(t *testing.T) {
	dir := t.TempDir()
	mod := func(c *Config) {
		c.DataDir = dir
		c.Genesis.Alloc[chainIDProbe] = chain.Account{Code: chainIDProbeCode}
	}
	n := newDevToolsNodeWith(t, mod)
	h := n.Handler()
	key := devload.Keys("devtools-test", 2)[1]
	from := devload.Address(key)
	nonce := uint64(0)
	// raw is a call of the probe signed for chainID with the next nonce.
	raw := func(chainID uint64) string {
		tx := types.MustSignNewTx(key, types.LatestSigner(chainID), &types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(100e9), Gas: 60_000, To: &chainIDProbe})
		b, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return `["0x` + hexBytes(b) + `"]`
	}
	word := func(id uint64) string { return `"0x` + strings.Repeat("0", 60) + hexWord(id) + `"` }
	var before, after types.Hash // the probe's calls under 8118 and 777
	var beforeBlock uint64
	send := func(chainID uint64, into *types.Hash) func(t *testing.T, res json.RawMessage) {
		return func(t *testing.T, res json.RawMessage) {
			json.Unmarshal(res, into)
			nonce++
			if chainID == 8118 {
				beforeBlock = n.Chain.Head().Number()
			}
		}
	}
	steps := []struct {
		name, method, params string
		raw                  uint64 // when set, params are a transaction signed for this chain ID
		code                 int    // 0: success
		want                 string // the result, or a fragment of the error
		check                func(t *testing.T, res json.RawMessage)
	}{
		{"a transaction for the genesis ID", "eth_sendRawTransaction", "", 8118, 0, "", send(8118, &before)},
		{"anvil_setChainId answers null", "anvil_setChainId", `[777]`, 0, 0, `null`, nil},
		{"eth_chainId", "eth_chainId", `[]`, 0, 0, `"0x309"`, nil},
		{"net_version follows", "net_version", `[]`, 0, 0, `"777"`, nil},
		{"hardhat_metadata", "hardhat_metadata", `[]`, 0, 0, "", func(t *testing.T, res json.RawMessage) {
			var m struct{ ChainID uint64 }
			if json.Unmarshal(res, &m) != nil || m.ChainID != 777 {
				t.Fatalf("metadata %s", res)
			}
		}},
		{"a call on the head's state sees the new ID", "eth_call", `[{"to":"` + chainIDProbe.Hex() + `"},"latest"]`, 0, 0, word(777), nil},
		{"so does pending", "eth_call", `[{"to":"` + chainIDProbe.Hex() + `"},"pending"]`, 0, 0, word(777), nil},
		{"a call on an earlier state its own", "eth_call", `[{"to":"` + chainIDProbe.Hex() + `"},"0x0"]`, 0, 0, word(8118), nil},
		{"a transaction for the old ID is refused", "eth_sendRawTransaction", "", 8118, -32000, "invalid chain id", nil},
		{"one for the new ID is mined", "eth_sendRawTransaction", "", 777, 0, "", send(777, &after)},
		{"and stored it", "eth_getStorageAt", `["` + chainIDProbe.Hex() + `","0x0","latest"]`, 0, 0, word(777), nil},
		{"zero is refused", "anvil_setChainId", `[0]`, 0, -32602, "chain ID 0", nil},
		{"above 2^53-1 is refused", "anvil_setChainId", `[9007199254740992]`, 0, -32602, "above 2^53-1", nil},
		{"not a number", "anvil_setChainId", `["x"]`, 0, -32602, "invalid argument 0", nil},
	}
	run := func(n *Node) {
		h = n.Handler()
		for _, c := range steps {
			t.Run(c.name, func(t *testing.T) {
				if c.raw != 0 {
					c.params = raw(c.raw)
				}
				expectDev(t, h, c.method, c.params, c.code, c.want, c.check)
			})
		}
	}
	run(n)
	if t.Failed() {
		return
	}
	// What the blocks made keep, before and after a restart.
	kept := func(n *Node) {
		h := n.Handler()
		var tx struct {
			From    types.Address
			ChainID types.HexUint64
		}
		devOK(t, h, "eth_getTransactionByHash", `["`+before.Hex()+`"]`, &tx)
		if tx.From != from || tx.ChainID != 8118 {
			t.Fatalf("the old transaction: from %s chainId %d", tx.From, tx.ChainID)
		}
		devOK(t, h, "eth_getTransactionByHash", `["`+after.Hex()+`"]`, &tx)
		if tx.From != from || tx.ChainID != 777 {
			t.Fatalf("the new transaction: from %s chainId %d", tx.From, tx.ChainID)
		}
		// The trace replays the old block under the ID it was made with:
		// under the new one its SSTORE would store 777.
		for _, c := range []struct{ method, params string }{
			{"debug_traceTransaction", `["` + before.Hex() + `",{}]`},
			{"debug_traceBlockByNumber", `["` + hexQuantity(beforeBlock) + `",{}]`},
		} {
			r := devCall(t, h, c.method, c.params)
			if r.Error != nil {
				t.Fatalf("%s: %s", c.method, r.Error.Message)
			}
			if stored := sstoreValues(t, r.Result); len(stored) != 1 || stored[0] != "0x1fb6" {
				t.Fatalf("%s: SSTORE of %v, want 0x1fb6 (8118)", c.method, stored)
			}
		}
		var id string
		devOK(t, h, "eth_chainId", `[]`, &id)
		if id != "0x309" {
			t.Fatalf("eth_chainId %s", id)
		}
		// The Cosmos side reports the network's identity, the genesis's
		// ID, which the consensus keeps signing for.
		info, err := query.New(n.queryBackend()).GetNodeInfo(context.Background(), &query.GetNodeInfoRequest{})
		if err != nil || info.DefaultNodeInfo.Network != "8118" {
			t.Fatalf("Cosmos node info: %v %+v", err, info)
		}
	}
	kept(n)
	n.Close()
	r := newDevToolsNodeWith(t, mod)
	kept(r)
	if t.Failed() {
		return
	}
	// The restarted node goes on with the ID it had.
	steps = steps[7:11]
	run(r)
}

// TestSetChainIDRefusedOffDev: a node that is not a development one has no
// anvil_setChainId, and says why.
func TestSetChainIDRefusedOffDev(t *testing.T) {
	keys := devload.Keys("devtools-test", 2)
	n, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1_700_000_000), HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	r := devCall(t, n.Handler(), "anvil_setChainId", `[777]`)
	if r.Error == nil || r.Error.Code != -32601 || !strings.Contains(r.Error.Message, "--dev") {
		t.Fatalf("got %s %+v", r.Result, r.Error)
	}
}

func hexWord(v uint64) string {
	s := strings.TrimPrefix(hexQuantity(v), "0x")
	return strings.Repeat("0", 4-len(s)) + s
}

func hexQuantity(v uint64) string { return string(types.AppendHexUint64(nil, v)) }

// sstoreValues are the values the SSTOREs of a struct-logger trace (or
// of each transaction of a block's) store.
func sstoreValues(t *testing.T, res json.RawMessage) []string {
	t.Helper()
	type logs struct {
		StructLogs []struct {
			Op    string
			Stack []string
		}
	}
	var one logs
	var many []struct{ Result logs }
	if json.Unmarshal(res, &many) != nil {
		if err := json.Unmarshal(res, &one); err != nil {
			t.Fatalf("trace: %v", err)
		}
		many = []struct{ Result logs }{{one}}
	}
	var out []string
	for _, r := range many {
		for _, l := range r.Result.StructLogs {
			if l.Op == "SSTORE" && len(l.Stack) >= 2 {
				out = append(out, l.Stack[len(l.Stack)-2])
			}
		}
	}
	return out
}
