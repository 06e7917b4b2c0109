package node

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// devOK calls a helper that must succeed and decodes its result into v
// (if not nil).
func devOK(t *testing.T, h http.Handler, method, params string, v any) {
	t.Helper()
	r := devCall(t, h, method, params)
	if r.Error != nil {
		t.Fatalf("%s %s: %d %s", method, params, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			t.Fatalf("%s: %v in %s", method, err, r.Result)
		}
	}
}

// probeCode stores COINBASE, BASEFEE and PREVRANDAO in slots 0, 1 and 2
// and returns the two that an eth_call can see unchanged (COINBASE and
// PREVRANDAO; geth-style calls without a gas price read BASEFEE as 0).
var probeCode = "0x" +
	"41" + "5f" + "55" + // SSTORE(0, COINBASE)
	"48" + "6001" + "55" + // SSTORE(1, BASEFEE)
	"44" + "6002" + "55" + // SSTORE(2, PREVRANDAO)
	"41" + "5f" + "52" + // MSTORE(0, COINBASE)
	"44" + "6020" + "52" + // MSTORE(32, PREVRANDAO)
	"6040" + "5f" + "f3" // RETURN(0, 64)

type devBlock struct {
	Number  types.HexUint64 `json:"number"`
	Miner   types.Address   `json:"miner"`
	BaseFee types.HexU256   `json:"baseFeePerGas"`
	MixHash types.Hash      `json:"mixHash"`
	Txs     []types.Hash    `json:"transactions"`
}

func getBlock(t *testing.T, h http.Handler, tag string) devBlock {
	t.Helper()
	var b devBlock
	devOK(t, h, "eth_getBlockByNumber", `["`+tag+`",false]`, &b)
	return b
}

func storageWord(t *testing.T, h http.Handler, a types.Address, slot int) types.Hash {
	t.Helper()
	var w types.Hash
	devOK(t, h, "eth_getStorageAt", `["`+a.Hex()+`","`+hexQ(uint64(slot))+`","latest"]`, &w)
	return w
}

func hexQ(v uint64) string { return string(types.AppendHexUint64(nil, v)) }

func u256Word(v uint64) types.Hash { return types.Hash(uint256.NewInt(v).Bytes32()) }

// TestDevNextBlockParams: the helpers' parameters, results and errors, as
// Hardhat Network (hardhat_*: true/false, -32602 for a mined hash) and
// anvil (anvil_*: null, the dropped hash) answer them.
func TestDevNextBlockParams(t *testing.T) {
	h := newDevToolsNode(t).Handler()
	addr := `"0x00000000000000000000000000000000000000aa"`
	hash := `"0x` + strings.Repeat("ab", 32) + `"`
	for _, c := range []struct {
		method, params string
		code           int    // 0: success
		want           string // result, or a fragment of the error message
	}{
		{"hardhat_setCoinbase", `[` + addr + `]`, 0, `true`},
		{"anvil_setCoinbase", `[` + addr + `]`, 0, `null`},
		{"hardhat_setCoinbase", `["0xzz"]`, -32602, "invalid argument 0"},
		{"hardhat_setCoinbase", `[]`, -32602, ""},
		{"anvil_setCoinbase", `[` + addr + `,` + addr + `]`, -32602, ""},

		{"hardhat_setNextBlockBaseFeePerGas", `["0x3b9aca00"]`, 0, `true`},
		{"anvil_setNextBlockBaseFeePerGas", `["0x0"]`, 0, `null`},
		{"hardhat_setNextBlockBaseFeePerGas", `["0x"]`, -32602, "invalid argument 0"},
		{"hardhat_setNextBlockBaseFeePerGas", `["1x"]`, -32602, "invalid argument 0"},
		{"anvil_setNextBlockBaseFeePerGas", `["-0x1"]`, -32602, "invalid argument 0"},
		{"hardhat_setNextBlockBaseFeePerGas", `["0x1` + strings.Repeat("0", 32) + `"]`, -32602, "above 2^128-1"},
		{"hardhat_setNextBlockBaseFeePerGas", `[]`, -32602, ""},

		{"hardhat_setPrevRandao", `[` + hash + `]`, 0, `true`},
		{"anvil_setNextBlockPrevRandao", `[` + hash + `]`, 0, `null`},
		{"hardhat_setPrevRandao", `["0x1234"]`, -32602, "invalid argument 0"},
		{"hardhat_setPrevRandao", `[` + hash + `,1]`, -32602, ""},

		{"hardhat_dropTransaction", `[` + hash + `]`, 0, `false`},
		{"anvil_dropTransaction", `[` + hash + `]`, 0, `null`},
		{"hardhat_dropTransaction", `["0x12"]`, -32602, "invalid argument 0"},
		{"anvil_dropTransaction", `[]`, -32602, ""},
		{"anvil_dropAllTransactions", `[]`, 0, `null`},
		{"anvil_dropAllTransactions", `[1]`, -32602, ""},
	} {
		r := devCall(t, h, c.method, c.params)
		switch {
		case c.code == 0 && r.Error != nil:
			t.Errorf("%s %s: error %s", c.method, c.params, r.Error.Message)
		case c.code == 0 && string(r.Result) != c.want:
			t.Errorf("%s %s = %s, want %s", c.method, c.params, r.Result, c.want)
		case c.code != 0 && (r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.want)):
			t.Errorf("%s %s: got %s %+v, want code %d with %q", c.method, c.params, r.Result, r.Error, c.code, c.want)
		}
	}
}

// TestDevNextBlockChoices: a chosen coinbase, base fee and PREVRANDAO go
// into the next block's header and into the opcodes its transactions
// run; the coinbase stays for later blocks, the other two apply once.
func TestDevNextBlockChoices(t *testing.T) {
	n := newDevToolsNodeWith(t, func(c *Config) { c.Fork.Reset = true })
	h := n.Handler()
	from := types.Address(devload.Address(n.cfg.Accounts[0]))
	probe := types.Address{0x9b}
	devOK(t, h, "hardhat_setCode", `["`+probe.Hex()+`","`+probeCode+`"]`, nil)

	coinbase, randao := types.Address{0xc0, 0x1b}, types.Hash{0x5e, 0xed}
	const fee = 7_000_000_007
	devOK(t, h, "hardhat_setCoinbase", `["`+coinbase.Hex()+`"]`, nil)
	devOK(t, h, "hardhat_setNextBlockBaseFeePerGas", `["`+hexQ(fee)+`"]`, nil)
	devOK(t, h, "hardhat_setPrevRandao", `["`+randao.Hex()+`"]`, nil)

	// The node shows the choices before the block is made: the pending
	// block (whose miner is null, as go-ethereum serves it) and the next
	// base fee.
	if p := getBlock(t, h, "pending"); !(*uint256.Int)(&p.BaseFee).Eq(uint256.NewInt(fee)) || p.MixHash != randao {
		t.Errorf("pending block: base fee %s, mixHash %s", (*uint256.Int)(&p.BaseFee), p.MixHash)
	}
	var next types.HexU256
	devOK(t, h, "eth_baseFee", `[]`, &next)
	if !(*uint256.Int)(&next).Eq(uint256.NewInt(fee)) {
		t.Errorf("eth_baseFee %s, want the chosen %d", (*uint256.Int)(&next), fee)
	}

	// eth_sendTransaction fills fees that pay the chosen base fee;
	// automine makes block 1 with it.
	devOK(t, h, "eth_sendTransaction", `[{"from":"`+from.Hex()+`","to":"`+probe.Hex()+`","gas":"0x30000"}]`, nil)
	b1 := getBlock(t, h, "latest")
	if b1.Number != 1 || len(b1.Txs) != 1 {
		t.Fatalf("block %d with %d txs, want block 1 with the probe call", b1.Number, len(b1.Txs))
	}
	if b1.Miner != coinbase || !(*uint256.Int)(&b1.BaseFee).Eq(uint256.NewInt(fee)) || b1.MixHash != randao {
		t.Errorf("block 1: miner %s, base fee %s, mixHash %s; want %s, %d, %s", b1.Miner, (*uint256.Int)(&b1.BaseFee), b1.MixHash, coinbase, fee, randao)
	}
	var cbWord types.Hash
	copy(cbWord[12:], coinbase[:])
	for slot, want := range []types.Hash{cbWord, u256Word(fee), randao} {
		if got := storageWord(t, h, probe, slot); got != want {
			t.Errorf("the probe's opcode %d read %s, want %s", slot, got, want)
		}
	}
	var ret types.HexBytes
	devOK(t, h, "eth_call", `[{"to":"`+probe.Hex()+`"},"latest"]`, &ret)
	if len(ret) != 64 || types.Hash(ret[:32]) != cbWord || types.Hash(ret[32:]) != randao {
		t.Errorf("eth_call at latest read COINBASE/PREVRANDAO %x", []byte(ret))
	}
	// The tips went to the chosen coinbase.
	var bal types.HexU256
	devOK(t, h, "eth_getBalance", `["`+coinbase.Hex()+`","latest"]`, &bal)
	if (*uint256.Int)(&bal).IsZero() {
		t.Error("the chosen coinbase received no fees")
	}

	var ethCoinbase types.Address
	devOK(t, h, "eth_coinbase", `[]`, &ethCoinbase)
	if ethCoinbase != coinbase {
		t.Errorf("eth_coinbase %s, want the chosen %s", ethCoinbase, coinbase)
	}

	// Block 2: same coinbase, base fee and PREVRANDAO by the chain's rules.
	devOK(t, h, "evm_mine", `[]`, nil)
	b2 := getBlock(t, h, "latest")
	parent := n.Chain.Head().Header()
	if b2.Number != 2 || b2.Miner != coinbase {
		t.Errorf("block %d has miner %s, want 2 with %s", b2.Number, b2.Miner, coinbase)
	}
	p1, _ := n.Chain.BlockByNumber(1)
	if want := n.Chain.Config.CalcBaseFee(p1.Header()); !(*uint256.Int)(&b2.BaseFee).Eq(want) {
		t.Errorf("block 2 base fee %s, want %s by EIP-1559 from block 1", (*uint256.Int)(&b2.BaseFee), want)
	}
	if want := types.Hash(crypto.Keccak256(p1.Hash().Bytes())); b2.MixHash != want || parent.MixDigest != want {
		t.Errorf("block 2 mixHash %s, want the chain's own %s", b2.MixHash, want)
	}

	// A reset starts afresh: the validator is the coinbase again.
	devOK(t, h, "hardhat_reset", `[]`, nil)
	devOK(t, h, "evm_mine", `[]`, nil)
	validator := types.Address(devload.Address(n.cfg.Validator))
	devOK(t, h, "eth_coinbase", `[]`, &ethCoinbase)
	if b := getBlock(t, h, "latest"); b.Miner != validator || ethCoinbase != validator {
		t.Errorf("after hardhat_reset: miner %s, eth_coinbase %s; want the validator %s", b.Miner, ethCoinbase, validator)
	}
}

// sendTx sends a transfer from the test account with the given nonce
// and returns its hash.
func sendTx(t *testing.T, n *Node, nonce uint64, extra string) types.Hash {
	t.Helper()
	from := types.Address(devload.Address(n.cfg.Accounts[0]))
	var h types.Hash
	devOK(t, n.Handler(), "eth_sendTransaction", `[{"from":"`+from.Hex()+`","to":"0x00000000000000000000000000000000000000dd","value":"0x1","nonce":"`+hexQ(nonce)+`"`+extra+`}]`, &h)
	return h
}

func poolCounts(t *testing.T, h http.Handler) (pending, queued uint64) {
	t.Helper()
	var st struct{ Pending, Queued types.HexUint64 }
	devOK(t, h, "txpool_status", `[]`, &st)
	return uint64(st.Pending), uint64(st.Queued)
}

// TestDropTransaction: a dropped transaction leaves the pool (the
// sender's later ones wait behind the gap); a hash the pool lacks is
// false (hardhat) or null (anvil), and a mined one is an error for
// hardhat_dropTransaction; anvil_dropAllTransactions empties the pool.
func TestDropTransaction(t *testing.T) {
	n := newDevToolsNode(t)
	h := n.Handler()
	devOK(t, h, "evm_setAutomine", `[false]`, nil)
	tx0, tx1, tx2 := sendTx(t, n, 0, ""), sendTx(t, n, 1, ""), sendTx(t, n, 2, "")
	if r := devCall(t, h, "hardhat_dropTransaction", `["`+tx1.Hex()+`"]`); string(r.Result) != "true" {
		t.Fatalf("hardhat_dropTransaction of a pooled tx: %s %+v", r.Result, r.Error)
	}
	if p, q := poolCounts(t, h); p != 1 || q != 1 {
		t.Errorf("after dropping nonce 1: pending %d queued %d, want 1 and 1", p, q)
	}
	if r := devCall(t, h, "hardhat_dropTransaction", `["`+tx1.Hex()+`"]`); string(r.Result) != "false" {
		t.Errorf("dropping it again: %s %+v, want false", r.Result, r.Error)
	}
	if r := devCall(t, h, "anvil_dropTransaction", `["`+tx2.Hex()+`"]`); string(r.Result) != `"`+tx2.Hex()+`"` {
		t.Errorf("anvil_dropTransaction of a pooled tx: %s %+v, want its hash", r.Result, r.Error)
	}
	devOK(t, h, "evm_mine", `[]`, nil)
	if b := n.Chain.Head(); len(b.Transactions()) != 1 || b.Transactions()[0].Hash() != tx0 {
		t.Fatalf("the mined block has %d txs, want tx0 alone", len(b.Transactions()))
	}
	r := devCall(t, h, "hardhat_dropTransaction", `["`+tx0.Hex()+`"]`)
	if r.Error == nil || r.Error.Code != -32602 || r.Error.Message != "Transaction "+tx0.Hex()+" cannot be dropped because it's already mined" {
		t.Errorf("hardhat_dropTransaction of a mined tx: %s %+v", r.Result, r.Error)
	}
	if r := devCall(t, h, "anvil_dropTransaction", `["`+tx0.Hex()+`"]`); r.Error != nil || string(r.Result) != "null" {
		t.Errorf("anvil_dropTransaction of a mined tx: %s %+v, want null", r.Result, r.Error)
	}
	sendTx(t, n, 1, "")
	sendTx(t, n, 3, "")
	if p, q := poolCounts(t, h); p != 1 || q != 1 {
		t.Fatalf("pool before dropAll: pending %d queued %d", p, q)
	}
	devOK(t, h, "anvil_dropAllTransactions", `[]`, nil)
	if p, q := poolCounts(t, h); p != 0 || q != 0 {
		t.Errorf("after anvil_dropAllTransactions: pending %d queued %d", p, q)
	}
	devOK(t, h, "evm_mine", `[]`, nil)
	if b := n.Chain.Head(); len(b.Transactions()) != 0 {
		t.Errorf("a dropped transaction was mined")
	}
}

// TestBaseFeeZero: with the next base fee chosen as 0 the pool admits and
// the block takes a transaction paying nothing, as Hardhat users do to
// send gas-price-0 transactions; the chain's own fee would refuse it.
func TestBaseFeeZero(t *testing.T) {
	n := newDevToolsNode(t)
	h := n.Handler()
	from := types.Address(devload.Address(n.cfg.Accounts[0]))
	free := `[{"from":"` + from.Hex() + `","to":"0x00000000000000000000000000000000000000dd","maxFeePerGas":"0x0","maxPriorityFeePerGas":"0x0"}]`
	if r := devCall(t, h, "eth_sendTransaction", free); r.Error == nil {
		t.Fatal("a fee-less transaction was accepted under the chain's own base fee")
	}
	devOK(t, h, "anvil_setNextBlockBaseFeePerGas", `["0x0"]`, nil)
	var hash types.Hash
	devOK(t, h, "eth_sendTransaction", free, &hash)
	b := getBlock(t, h, "latest")
	if b.Number != 1 || len(b.Txs) != 1 || b.Txs[0] != hash || !(*uint256.Int)(&b.BaseFee).IsZero() {
		t.Errorf("block %d: %d txs, base fee %s; want block 1 with the free transaction at base fee 0", b.Number, len(b.Txs), (*uint256.Int)(&b.BaseFee))
	}
}

// TestRevertNextBlockAndPool: evm_revert (Hardhat) puts back the pool,
// the coinbase, the next base fee and PREVRANDAO chosen at the snapshot;
// anvil_revert puts back the next base fee, keeps the pool's
// transactions and the current coinbase, and drops a chosen PREVRANDAO.
func TestRevertNextBlockAndPool(t *testing.T) {
	for _, c := range []struct {
		method             string
		txs                int // transactions in the block after the revert
		coinbase1, randao1 bool
	}{
		{"evm_revert", 1, true, true},
		{"anvil_revert", 2, false, false},
	} {
		t.Run(c.method, func(t *testing.T) {
			n := newDevToolsNode(t)
			h := n.Handler()
			devOK(t, h, "evm_setAutomine", `[false]`, nil)
			cb1, cb2 := types.Address{0xc1}, types.Address{0xc2}
			r1, r2 := types.Hash{0x41}, types.Hash{0x42}
			const fee1, fee2 = 3_000_000_000, 5_000_000_000
			devOK(t, h, "hardhat_setCoinbase", `["`+cb1.Hex()+`"]`, nil)
			devOK(t, h, "hardhat_setNextBlockBaseFeePerGas", `["`+hexQ(fee1)+`"]`, nil)
			devOK(t, h, "hardhat_setPrevRandao", `["`+r1.Hex()+`"]`, nil)
			a := sendTx(t, n, 0, `,"maxFeePerGas":"0x2540be400"`) // 10 gwei: pays either base fee
			var id string
			devOK(t, h, "evm_snapshot", `[]`, &id)

			devOK(t, h, "hardhat_setCoinbase", `["`+cb2.Hex()+`"]`, nil)
			devOK(t, h, "hardhat_setNextBlockBaseFeePerGas", `["`+hexQ(fee2)+`"]`, nil)
			devOK(t, h, "hardhat_setPrevRandao", `["`+r2.Hex()+`"]`, nil)
			b := sendTx(t, n, 1, `,"maxFeePerGas":"0x2540be400"`)
			var ok bool
			devOK(t, h, c.method, `["`+id+`"]`, &ok)
			if !ok {
				t.Fatalf("%s %s = false", c.method, id)
			}
			devOK(t, h, "evm_mine", `[]`, nil)
			blk := getBlock(t, h, "latest")
			if len(blk.Txs) != c.txs || blk.Txs[0] != a || c.txs == 2 && blk.Txs[1] != b {
				t.Errorf("block after the revert has %v, want %d of [a b]", blk.Txs, c.txs)
			}
			wantCB, wantR := cb2, types.Hash(crypto.Keccak256(n.Chain.Genesis().Hash().Bytes()))
			if c.coinbase1 {
				wantCB = cb1
			}
			if c.randao1 {
				wantR = r1
			}
			if blk.Miner != wantCB || blk.MixHash != wantR || !(*uint256.Int)(&blk.BaseFee).Eq(uint256.NewInt(fee1)) {
				t.Errorf("block after %s: miner %s, mixHash %s, base fee %s; want %s, %s, %d",
					c.method, blk.Miner, blk.MixHash, (*uint256.Int)(&blk.BaseFee), wantCB, wantR, uint64(fee1))
			}
		})
	}
}
