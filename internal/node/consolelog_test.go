package node

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/evm/tracers"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// consoleForwarder is runtime code that passes its call data on to the
// console address with STATICCALL, as console.sol does, and stops.
func consoleForwarder() []byte {
	code := []byte{
		0x36, 0x60, 0x00, 0x60, 0x00, 0x37, // CALLDATACOPY(0, 0, CALLDATASIZE)
		0x60, 0x00, 0x60, 0x00, 0x36, 0x60, 0x00, // retSize, retOffset, argsSize, argsOffset
		0x73, // PUSH20 the console address
	}
	code = append(code, tracers.ConsoleAddress[:]...)
	return append(code, 0x5a, 0xfa, 0x00) // GAS STATICCALL STOP
}

// consoleCall is the input of console.log("hello %s, %d", word, n), the
// log(string,string,uint256) overload.
func consoleCall(word string, n uint64) []byte {
	pad := func(b []byte) []byte { return append(b, make([]byte, (32-len(b)%32)%32)...) }
	u := func(v uint64) []byte { w := uint256.NewInt(v).Bytes32(); return w[:] }
	format, arg := "hello %s, %d", word
	sel := crypto.Keccak256([]byte("log(string,string,uint256)"))
	in := sel[:4:4]
	in = append(in, u(0x60)...)
	in = append(in, u(0x60+32+uint64(len(pad([]byte(format)))))...)
	in = append(in, u(n)...)
	in = append(in, u(uint64(len(format)))...)
	in = append(in, pad([]byte(format))...)
	in = append(in, u(uint64(len(arg)))...)
	return append(in, pad([]byte(arg))...)
}

// TestConsoleLog: what a mined transaction and an eth_call print with
// console.log appears in the node log, decoded, before the transaction's
// own line; it costs no gas beyond the call itself; with logging turned
// off (hardhat_setLoggingEnabled false) nothing is printed.
func TestConsoleLog(t *testing.T) {
	if got, err := tracers.DecodeConsole(consoleCall("x", 1)); err != nil || got != "hello x, 1" {
		t.Fatalf("the test's own encoding decodes to %q, %v", got, err)
	}
	keys := devload.Keys("consolelog-test", 2)
	from := devload.Address(keys[1])
	fwd := types.Address{0xc0, 0x11}
	g := chain.DevGenesis(8118, []types.Address{from}, 1_700_000_000)
	g.Alloc[fwd] = chain.Account{Code: consoleForwarder()}
	var buf lockedBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0], DevTools: true, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	n.StartConsole()
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSigner(8118)
	send := func(nonce uint64, data []byte) types.Hash {
		tx := types.MustSignNewTx(keys[1], signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(100e9), Gas: 200_000, To: &fwd, Data: data})
		if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		return tx.Hash()
	}
	type line struct{ Msg, Text, Tx, Hash string }
	lines := func() []line {
		var out []line
		for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var l line
			if json.Unmarshal([]byte(s), &l) == nil && (l.Msg == "console.log" || l.Msg == "transaction") {
				out = append(out, l)
			}
		}
		return out
	}
	// waitTxLine waits for the console's line of tx and returns every
	// console and transaction line so far.
	waitTxLine := func(tx types.Hash) []line {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			ls := lines()
			for _, l := range ls {
				if l.Msg == "transaction" && l.Hash == tx.Hex() {
					return ls
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no line for transaction %s:\n%s", tx.Hex(), buf.String())
		return nil
	}

	h1 := send(0, consoleCall("world", 7))
	ls := waitTxLine(h1)
	if len(ls) != 2 || ls[0] != (line{Msg: "console.log", Text: "hello world, 7", Tx: h1.Hex()}) || ls[1].Hash != h1.Hex() {
		t.Fatalf("lines %+v, want the console.log line, then the transaction's", ls)
	}
	// The receipt's gas is the call's alone: a forwarder that calls an
	// empty account costs the same whatever the console does.
	rcpts, err := n.Chain.DB().Receipts(n.Chain.Head().Hash())
	if err != nil || len(rcpts) != 1 || rcpts[0].Status != types.ReceiptStatusSuccessful {
		t.Fatalf("receipts %v, %v", rcpts, err)
	}

	data := consoleCall("call", 8)
	if _, err := n.backend.Call(context.Background(), &backend.CallRequest{Block: n.Chain.Head(), Args: backend.CallArgs{To: &fwd, Input: &data}}); err != nil {
		t.Fatal(err)
	}
	if ls := lines(); ls[len(ls)-1] != (line{Msg: "console.log", Text: "hello call, 8"}) {
		t.Fatalf("after eth_call: last line %+v", ls[len(ls)-1])
	}
	before := len(lines())
	if _, err := n.backend.EstimateGas(context.Background(), &backend.CallRequest{Block: n.Chain.Head(), Args: backend.CallArgs{To: &fwd, Input: &data}}); err != nil {
		t.Fatal(err)
	}
	if ls := lines(); len(ls) != before+1 {
		t.Fatalf("eth_estimateGas printed %d lines, want its first run's one", len(ls)-before)
	}

	n.dev.SetLoggingEnabled(false)
	h2 := send(1, consoleCall("quiet", 9))
	waitNonce(t, n, from, 2)
	if _, err := n.backend.Call(context.Background(), &backend.CallRequest{Block: n.Chain.Head(), Args: backend.CallArgs{To: &fwd, Input: &data}}); err != nil {
		t.Fatal(err)
	}
	n.dev.SetLoggingEnabled(true)
	h3 := send(2, consoleCall("again", 10))
	ls = waitTxLine(h3)
	for _, l := range ls {
		if strings.Contains(l.Text, "quiet") || l.Hash == h2.Hex() {
			t.Fatalf("printed while logging was off: %+v", l)
		}
	}
	if got := ls[len(ls)-2]; got.Text != "hello again, 10" {
		t.Fatalf("after logging is back on: %+v", got)
	}
	if count := strings.Count(buf.String(), "hello call, 8"); count != 2 {
		t.Fatalf("the eth_call line printed %d times, want 2 (the call and the estimate, none while off)", count)
	}
}
