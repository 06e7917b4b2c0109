package node

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/node/dev"
	"github.com/chaind/chaind/internal/types"
)

// TestDevHelpersGasLimitERC20Reorg: evm_setBlockGasLimit, anvil_dealERC20,
// anvil_setERC20Allowance and anvil_reorg answer as anvil 1.7.1 does and
// do what they say, step by step on one node.
func TestDevHelpersGasLimitERC20Reorg(t *testing.T) {
	n := newDevToolsNodeWith(t, func(c *Config) { c.DevNoMining = true })
	h := n.Handler()
	from := devload.Address(n.cfg.Accounts[0])
	stranger := "0x00000000000000000000000000000000000000ee"
	token := devload.TokenAddress.Hex()
	balanceOf := func(who string) string {
		data := fmt.Sprintf("0x%x", devload.BalanceOfData(types.MustAddress(who)))
		r := devCall(t, h, "eth_call", `[{"to":"`+token+`","data":"`+data+`"},"latest"]`)
		if r.Error != nil {
			t.Fatalf("balanceOf: %s", r.Error.Message)
		}
		return string(r.Result)
	}
	var replaced types.Hash // block head-1 before the reorg
	var reorgHead uint64
	for _, c := range []struct {
		name, method, params string
		code                 int    // 0: success
		want                 string // the result, or a fragment of the error
		check                func(t *testing.T, res json.RawMessage)
	}{
		{"setBlockGasLimit answers true", "evm_setBlockGasLimit", `["0x1c9c380"]`, 0, `true`, nil},
		{"a block", "evm_mine", `[]`, 0, `"0x0"`, nil},
		{"its gas limit is the one set, however far from its parent's", "eth_getBlockByNumber", `["latest",false]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var b struct{ GasLimit types.HexUint64 }
			json.Unmarshal(res, &b)
			parent, _ := n.Chain.BlockByNumber(n.Chain.Head().Number() - 1)
			if b.GasLimit != 30_000_000 || parent.GasLimit() < 2*30_000_000 {
				t.Fatalf("gas limit %d, parent's %d", b.GasLimit, parent.GasLimit())
			}
		}},
		{"and the next block's", "anvil_mine", `[]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			if gl := n.Chain.Head().GasLimit(); gl != 30_000_000 {
				t.Fatalf("gas limit %d", gl)
			}
		}},
		{"anvil_setBlockGasLimit", "anvil_setBlockGasLimit", `[100000]`, 0, `true`, nil},
		{"the pool refuses a transaction above it", "eth_sendTransaction", `[{"from":"` + from.Hex() + `","to":"` + stranger + `","gas":"0x30d40"}]`, -32000, "gas limit", nil},
		{"the pending block has it", "eth_getBlockByNumber", `["pending",false]`, 0, "", func(t *testing.T, res json.RawMessage) {
			var b struct{ GasLimit types.HexUint64 }
			if json.Unmarshal(res, &b) != nil || b.GasLimit != 100000 {
				t.Fatalf("pending %s", res)
			}
		}},
		{"zero is refused as Hardhat refuses it", "evm_setBlockGasLimit", `["0x0"]`, -32000, "Block gas limit must be greater than 0", nil},
		{"back to 30M", "evm_setBlockGasLimit", `[30000000]`, 0, `true`, nil},
		{"the pool refuses gas above EIP-7825's cap, which no block could include", "eth_sendTransaction", `[{"from":"` + from.Hex() + `","to":"` + stranger + `","gas":"0x1c9c380"}]`, -32000, "transaction gas limit too high (cap: 16777216, tx: 30000000)", nil},

		{"dealERC20 answers null", "anvil_dealERC20", `["` + stranger + `","` + token + `","0x1234"]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			if got := balanceOf(stranger); got != `"0x`+strings.Repeat("0", 60)+`1234"` {
				t.Fatalf("balanceOf %s", got)
			}
		}},
		{"anvil_setERC20Balance is its alias", "anvil_setERC20Balance", `["` + stranger + `","` + token + `","0x5"]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			if got := balanceOf(stranger); !strings.HasSuffix(got, `05"`) {
				t.Fatalf("balanceOf %s", got)
			}
		}},
		{"a token without allowance()", "anvil_setERC20Allowance", `["` + from.Hex() + `","` + stranger + `","` + token + `","0x1"]`, -32603, "Unable to set ERC20 allowance, no slot found", nil},
		{"an address without code", "anvil_dealERC20", `["` + stranger + `","` + stranger + `","0x1"]`, -32603, "Unable to set ERC20 balance, no slot found", nil},
		{"dealERC20 bad amount", "anvil_dealERC20", `["` + stranger + `","` + token + `","x"]`, -32602, "invalid argument 2", nil},

		{"three blocks", "anvil_mine", `["0x3"]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			reorgHead = n.Chain.Head().Number()
			b, _ := n.Chain.BlockByNumber(reorgHead - 1)
			replaced = b.Hash()
		}},
		{"reorg two blocks with a transfer in the second", "anvil_reorg", `[2,[[{"from":"` + from.Hex() + `","to":"` + stranger + `","value":"0x7"},1]]]`, 0, `null`, func(t *testing.T, _ json.RawMessage) {
			head := n.Chain.Head()
			if head.Number() != reorgHead {
				t.Fatalf("head %d after the reorg, was %d", head.Number(), reorgHead)
			}
			b, _ := n.Chain.BlockByNumber(reorgHead - 1)
			if b.Hash() == replaced || len(b.Transactions()) != 0 || len(head.Transactions()) != 1 {
				t.Fatalf("block %d %s (%d txs, was %s), head %d txs", b.Number(), b.Hash(), len(b.Transactions()), replaced, len(head.Transactions()))
			}
		}},
		{"the transfer is on the new chain", "eth_getBalance", `["` + stranger + `","latest"]`, 0, `"0x7"`, nil},
		{"deeper than the chain", "anvil_reorg", `[100000,[]]`, -32602, "Reorg depth must not exceed current chain height", nil},
		{"a pair beyond the new blocks", "anvil_reorg", `[2,[[{"from":"` + from.Hex() + `","to":"` + stranger + `"},2]]]`, -32602, "Block number 2 must not exceed (depth-1) 1", nil},
		{"a pair that is no pair", "anvil_reorg", `[2,[[1]]]`, -32602, "invalid argument 1", nil},
		{"raw bytes that are no transaction", "anvil_reorg", `[1,[["0x01",0]]]`, -32602, "Failed to decode transaction", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectDev(t, h, c.method, c.params, c.code, c.want, c.check)
		})
	}
}

// returning is creation code whose deployed code is size zero bytes.
func returning(size int) string {
	return fmt.Sprintf("0x61%04x6000f3", size)
}

// TestDevCodeSizeLimit: --code-size-limit moves EIP-170's limit on
// deployed code and EIP-3860's (twice it) on initcode, in blocks, in
// eth_call and in the pool; --disable-code-size-limit lifts both.
func TestDevCodeSizeLimit(t *testing.T) {
	for _, c := range []struct {
		name              string
		limit             uint64
		fits, tooBig      int // deployed code sizes
		initFits, initBig int // initcode sizes the pool takes and refuses (0: none)
	}{
		{"--code-size-limit 100", 100, 100, 101, 200, 201},
		{"--disable-code-size-limit", evm.NoCodeSizeLimit, 30_000, 0, 60_000, 0},
		{"the protocol's", 0, evm.MaxCodeSize, evm.MaxCodeSize + 1, evm.MaxInitCodeSize, evm.MaxInitCodeSize + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := newDevToolsNodeWith(t, func(cfg *Config) { cfg.Dev = dev.Options{MaxCodeSize: c.limit} })
			h := n.Handler()
			from := devload.Address(n.cfg.Accounts[0]).Hex()
			deploy := func(size int) string {
				r := devCall(t, h, "eth_sendTransactionSync", `[{"from":"`+from+`","data":"`+returning(size)+`","gas":"0xf42400"}]`)
				var rec struct{ Status string }
				if r.Error != nil || json.Unmarshal(r.Result, &rec) != nil || rec.Status == "" {
					t.Fatalf("deploy %d bytes: %s %+v", size, r.Result, r.Error)
				}
				return rec.Status
			}
			if st := deploy(c.fits); st != "0x1" {
				t.Fatalf("%d bytes: status %s", c.fits, st)
			}
			if c.tooBig > 0 {
				if st := deploy(c.tooBig); st != "0x0" {
					t.Fatalf("%d bytes: status %s, want a failed creation", c.tooBig, st)
				}
				r := devCall(t, h, "eth_call", `[{"from":"`+from+`","data":"`+returning(c.tooBig)+`"}]`)
				if r.Error == nil || !strings.Contains(r.Error.Message, "max code size exceeded") {
					t.Fatalf("eth_call of %d bytes: %s %+v", c.tooBig, r.Result, r.Error)
				}
			}
			// Initcode: the creation code padded with STOP-free zeros after
			// its RETURN, which never run.
			initcode := func(size int) string { return returning(1) + strings.Repeat("00", size-6) }
			r := devCall(t, h, "eth_sendTransaction", `[{"from":"`+from+`","data":"`+initcode(c.initFits)+`","gas":"0xf42400"}]`)
			if r.Error != nil {
				t.Fatalf("initcode %d bytes: %s", c.initFits, r.Error.Message)
			}
			if c.initBig > 0 {
				r := devCall(t, h, "eth_sendTransaction", `[{"from":"`+from+`","data":"`+initcode(c.initBig)+`","gas":"0xf42400"}]`)
				if r.Error == nil || !strings.Contains(r.Error.Message, "max initcode size exceeded") {
					t.Fatalf("initcode %d bytes: %s %+v", c.initBig, r.Result, r.Error)
				}
			}
		})
	}
}

// TestDevOrderFIFO: with --order fifo a block takes transactions in the
// order they arrived, a better tip notwithstanding; by default the better
// tip goes first.
func TestDevOrderFIFO(t *testing.T) {
	for _, fifo := range []bool{true, false} {
		t.Run(fmt.Sprint("fifo=", fifo), func(t *testing.T) {
			n := newDevToolsNodeWith(t, func(c *Config) {
				c.DevNoMining = true
				c.Accounts = append(c.Accounts, devload.Keys("devtools-fifo", 1)...)
				c.Dev = dev.Options{FIFO: fifo}
			})
			h := n.Handler()
			var sent []string
			for i, tip := range []string{"0x1", "0x3b9aca00"} { // the later one tips 1 gwei
				from := devload.Address(n.cfg.Accounts[i]).Hex()
				devCall(t, h, "anvil_setBalance", `["`+from+`","0x56bc75e2d63100000"]`)
				r := devCall(t, h, "eth_sendTransaction", `[{"from":"`+from+`","to":"0x00000000000000000000000000000000000000ee","maxPriorityFeePerGas":"`+tip+`","maxFeePerGas":"0x174876e800"}]`)
				if r.Error != nil {
					t.Fatal(r.Error.Message)
				}
				var hash string
				json.Unmarshal(r.Result, &hash)
				sent = append(sent, hash)
			}
			devCall(t, h, "evm_mine", `[]`)
			txs := n.Chain.Head().Transactions()
			if len(txs) != 2 {
				t.Fatalf("%d transactions in the block", len(txs))
			}
			first := txs[0].Hash().Hex()
			if want := map[bool]string{true: sent[0], false: sent[1]}[fifo]; first != want {
				t.Fatalf("first %s, want %s (sent %v)", first, want, sent)
			}
		})
	}
}
