package node

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// TestDevHelpers: anvil's and Hardhat's helpers added for issue 28.7
// answer as anvil does (null where it answers null, the values it
// answers otherwise) and do what they say, step by step on one node.
func TestDevHelpers(t *testing.T) {
	n := newDevToolsNodeWith(t, func(c *Config) { c.DevNoMining = true })
	h := n.Handler()
	from := types.Address(devload.Address(n.cfg.Accounts[0]))
	stranger := `"0x00000000000000000000000000000000000000ee"`
	typed := `{"types":{"EIP712Domain":[{"name":"name","type":"string"}]},"primaryType":"EIP712Domain","domain":{"name":"x"},"message":{}}`
	var pendingHash string
	var rolledFrom uint64
	for _, c := range []struct {
		name, method, params string
		code                 int                                     // 0: success
		want                 string                                  // the result, or a fragment of the error
		check                func(t *testing.T, res json.RawMessage) // more on a success
	}{
		{"--no-mining starts with automine off", "hardhat_getAutomine", `[]`, 0, `false`, nil},
		{"addBalance answers null", "anvil_addBalance", `[` + stranger + `,"0x10"]`, 0, `null`, nil},
		{"addBalance adds", "anvil_addBalance", `[` + stranger + `,"0x5"]`, 0, `null`, nil},
		{"the sum", "eth_getBalance", `[` + stranger + `,"latest"]`, 0, `"0x15"`, nil},
		{"addBalance overflow", "anvil_addBalance", `[` + stranger + `,"0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"]`, -32000, "overflows", nil},
		{"addBalance bad amount", "anvil_addBalance", `[` + stranger + `,"x"]`, -32602, "invalid argument 1", nil},
		{"setTime far ahead answers the seconds ahead", "anvil_setTime", `[4000000000]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var ahead uint64
			if json.Unmarshal(res, &ahead) != nil || ahead < 4000000000-2000000000 {
				t.Fatalf("ahead %s", res)
			}
		}},
		{"setTime is evm_setTime too", "evm_setTime", `["0xEE6B2800"]`, 0, `0`, nil},
		{"a block at the time set", "evm_mine", `[]`, 0, `"0x0"`, nil},
		{"its timestamp", "eth_getBlockByNumber", `["latest",false]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var b struct{ Timestamp types.HexUint64 }
			if json.Unmarshal(res, &b) != nil || b.Timestamp < 4000000000 || b.Timestamp > 4000000100 {
				t.Fatalf("block %s", res)
			}
		}},
		{"setBlockTimestampInterval", "anvil_setBlockTimestampInterval", `[100]`, 0, `null`, nil},
		{"two blocks", "anvil_mine", `["0x2"]`, 0, `null`, nil},
		{"100 s apart", "eth_getBlockByNumber", `["latest",false]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var b struct{ Timestamp types.HexUint64 }
			json.Unmarshal(res, &b)
			parent, _ := n.Chain.BlockByNumber(n.Chain.Head().Number() - 1)
			if uint64(b.Timestamp) != parent.Time()+100 {
				t.Fatalf("timestamp %d, parent %d", b.Timestamp, parent.Time())
			}
		}},
		{"removeBlockTimestampInterval", "anvil_removeBlockTimestampInterval", `[]`, 0, `true`, nil},
		{"removed already", "anvil_removeBlockTimestampInterval", `[]`, 0, `false`, nil},
		{"a send waits in the pool", "eth_sendTransaction", `[{"from":"` + from.Hex() + `","to":` + stranger + `,"value":"0x1"}]`, 0, "", func(t *testing.T, res json.RawMessage) {
			pendingHash = strings.Trim(string(res), `"`)
		}},
		{"eth_pendingTransactions lists it", "eth_pendingTransactions", `[]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var txs []struct{ Hash, From string }
			if json.Unmarshal(res, &txs) != nil || len(txs) != 1 || txs[0].Hash != pendingHash || !strings.EqualFold(txs[0].From, from.Hex()) {
				t.Fatalf("pending %s, want %s", res, pendingHash)
			}
		}},
		{"sync send times out without a block (EIP-7966 code 4)", "eth_sendTransactionSync", `[{"from":"` + from.Hex() + `","to":` + stranger + `,"value":"0x1"},50]`, 4, "wasn't processed within 50ms", nil},
		{"sync send timeout capped", "eth_sendTransactionSync", `[{"from":"` + from.Hex() + `","to":` + stranger + `,"value":"0x1"},600000]`, -32602, "invalid argument 1", nil},
		{"automine back on", "evm_setAutomine", `[true]`, 0, `true`, nil},
		{"sync send answers the receipt", "eth_sendTransactionSync", `[{"from":"` + from.Hex() + `","to":` + stranger + `,"value":"0x1"}]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var r struct {
				Status      string
				BlockNumber types.HexUint64
			}
			if json.Unmarshal(res, &r) != nil || r.Status != "0x1" || r.BlockNumber == 0 {
				t.Fatalf("receipt %s", res)
			}
		}},
		{"fund the stranger", "anvil_setBalance", `[` + stranger + `,"0xde0b6b3a7640000"]`, 0, `null`, nil},
		{"unsigned send from a keyless address", "eth_sendUnsignedTransaction", `[{"from":` + stranger + `,"to":"0x00000000000000000000000000000000000000dd","value":"0x1"}]`, 0, "", nil},
		{"it moved the stranger's wei", "eth_getBalance", `["0x00000000000000000000000000000000000000dd","latest"]`, 0, `"0x1"`, nil},
		{"signTypedData_v3 is v4", "eth_signTypedData_v3", `["` + from.Hex() + `",` + typed + `]`, 0, "", func(t *testing.T, res json.RawMessage) {
			v4 := devCall(t, h, "eth_signTypedData_v4", `["`+from.Hex()+`",`+typed+`]`)
			if string(v4.Result) != string(res) || len(res) != 134 {
				t.Fatalf("v3 %s, v4 %s", res, v4.Result)
			}
		}},
		{"signTypedData with v4's object", "eth_signTypedData", `["` + from.Hex() + `",` + typed + `]`, 0, "", nil},
		{"three more blocks", "anvil_mine", `["0x3"]`, 0, `null`, func(t *testing.T, _ json.RawMessage) { rolledFrom = n.Chain.Head().Number() }},
		{"rollback two blocks", "anvil_rollback", `[2]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			if got := n.Chain.Head().Number(); got != rolledFrom-2 {
				t.Fatalf("head %d after rolling back 2 from %d", got, rolledFrom)
			}
		}},
		{"rollback null is one block", "anvil_rollback", `[null]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			if got := n.Chain.Head().Number(); got != rolledFrom-3 {
				t.Fatalf("head %d after rolling back 3 from %d", got, rolledFrom)
			}
		}},
		{"rollback past genesis", "anvil_rollback", `[1000000]`, -32602, "past the genesis", nil},
		{"a block after a rollback", "evm_mine", `[]`, 0, `"0x0"`, nil},
		{"anvil_setMinGasPrice as anvil answers with EIP-1559", "anvil_setMinGasPrice", `["0x1"]`, -32602, "anvil_setMinGasPrice is not supported when EIP-1559 is active", nil},
		{"hardhat_setMinGasPrice", "hardhat_setMinGasPrice", `["0x1"]`, -32602, "hardhat_setMinGasPrice is not supported when EIP-1559 is active", nil},
		{"signTypedData refuses the v1 array", "eth_signTypedData", `["` + from.Hex() + `",[{"type":"string","name":"m","value":"hi"}]]`, -32602, "legacy (v1)", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectDev(t, h, c.method, c.params, c.code, c.want, c.check)
		})
	}
}
