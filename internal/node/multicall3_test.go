package node

import (
	"encoding/binary"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// call3 is one Multicall3.Call3: a call aggregate3 makes.
type call3 struct {
	target       types.Address
	allowFailure bool
	data         []byte
}

func abiWord(v uint64) []byte { w := make([]byte, 32); binary.BigEndian.PutUint64(w[24:], v); return w }

func abiAddr(a types.Address) []byte { w := make([]byte, 32); copy(w[12:], a[:]); return w }

// abiBytes encodes a dynamic bytes value: length, then the data padded.
func abiBytes(b []byte) []byte {
	out := abiWord(uint64(len(b)))
	return append(out, append(append([]byte(nil), b...), make([]byte, (32-len(b)%32)%32)...)...)
}

// encodeAggregate3 is the calldata of aggregate3(Call3[] calls).
func encodeAggregate3(calls []call3) []byte {
	var tuples [][]byte
	for _, c := range calls {
		t := append(abiAddr(c.target), abiWord(0)...)
		if c.allowFailure {
			t[63] = 1
		}
		t = append(t, abiWord(0x60)...) // the bytes follow the three head words
		tuples = append(tuples, append(t, abiBytes(c.data)...))
	}
	arr := abiWord(uint64(len(calls)))
	off := uint64(32 * len(calls))
	for _, t := range tuples {
		arr = append(arr, abiWord(off)...)
		off += uint64(len(t))
	}
	for _, t := range tuples {
		arr = append(arr, t...)
	}
	out := []byte{0x82, 0xad, 0x56, 0xcb} // aggregate3((address,bool,bytes)[])
	return append(append(out, abiWord(0x20)...), arr...)
}

// result3 is one Multicall3.Result.
type result3 struct {
	success bool
	data    []byte
}

// decodeResults decodes aggregate3's (bool success, bytes returnData)[].
func decodeResults(t *testing.T, b []byte) []result3 {
	t.Helper()
	word := func(at int) int {
		if at+32 > len(b) {
			t.Fatalf("aggregate3 answer too short (%d bytes) for a word at %d", len(b), at)
		}
		return int(new(big.Int).SetBytes(b[at : at+32]).Uint64())
	}
	arr := word(0)
	n := word(arr)
	base := arr + 32
	var out []result3
	for i := 0; i < n; i++ {
		tup := base + word(base+32*i)
		data := tup + word(tup+32)
		l := word(data)
		if data+32+l > len(b) {
			t.Fatalf("aggregate3 result %d runs past the answer", i)
		}
		out = append(out, result3{success: word(tup) == 1, data: b[data+32 : data+32+l]})
	}
	return out
}

// Multicall3, predeployed on a dev chain (chain.AddDevPredeploys, as
// --predeploys does), batches calls through eth_call: aggregate3 returns
// each call's result, and a failing call allowed to fail is reported as
// failed without reverting the others.
func TestMulticall3Aggregate3(t *testing.T) {
	keys := devload.Keys("multicall3-test", 2)
	g := chain.DevGenesis(4242, []types.Address{devload.Address(keys[0]), devload.Address(keys[1])}, 1_700_000_000)
	chain.AddDevPredeploys(g.Alloc)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	rich := devload.Address(keys[1])
	getEthBalance := append([]byte{0x4d, 0x23, 0x01, 0xcc}, abiAddr(rich)...)
	getChainID := []byte{0x34, 0x08, 0xe4, 0x70}
	calls := []call3{
		{chain.Multicall3, false, getEthBalance},
		{chain.Multicall3, false, getChainID},
		{chain.Multicall3, true, []byte{0xde, 0xad, 0xbe, 0xef}}, // no such function: reverts
	}
	raw := mustCall(t, n, "eth_call", map[string]any{"to": chain.Multicall3, "data": types.HexBytes(encodeAggregate3(calls))}, "latest")
	var ret types.HexBytes
	if err := json.Unmarshal([]byte(raw), &ret); err != nil {
		t.Fatal(err)
	}
	res := decodeResults(t, ret)
	if len(res) != len(calls) {
		t.Fatalf("aggregate3 returned %d results for %d calls", len(res), len(calls))
	}
	var bal types.HexU256
	json.Unmarshal([]byte(mustCall(t, n, "eth_getBalance", rich, "latest")), &bal)
	want := (*uint256.Int)(&bal).ToBig()
	if !res[0].success || new(big.Int).SetBytes(res[0].data).Cmp(want) != 0 {
		t.Errorf("getEthBalance through aggregate3: %v %x, want %s", res[0].success, res[0].data, want)
	}
	if !res[1].success || new(big.Int).SetBytes(res[1].data).Uint64() != 4242 {
		t.Errorf("getChainId through aggregate3: %v %x, want 4242", res[1].success, res[1].data)
	}
	if res[2].success {
		t.Errorf("a call to no function succeeded through aggregate3: %x", res[2].data)
	}
	// Not allowed to fail, the same call reverts the whole batch.
	calls[2].allowFailure = false
	if _, err := rpcCall(t, n, "eth_call", map[string]any{"to": chain.Multicall3, "data": types.HexBytes(encodeAggregate3(calls))}, "latest"); err == nil {
		t.Error("aggregate3 with a failing call not allowed to fail did not revert")
	}
}
