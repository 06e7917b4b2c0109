package node

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// lockedBuffer is a bytes.Buffer the node's goroutines may log into while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// revertWith is creation code that reverts with payload.
func revertWith(payload []byte) []byte {
	n := byte(len(payload))
	code := []byte{0x60, n, 0x60, 13, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xfd}
	code = append(code, 0x00) // pad the prefix to 13 bytes
	return append(code, payload...)
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestConsoleLines: the console logs each transaction (sender, recipient
// or created contract, gas, status, decoded revert reason) and each block.
func TestConsoleLines(t *testing.T) {
	keys := devload.Keys("console-test", 1)
	from := devload.Address(keys[0])
	val, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	var buf lockedBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	g := chain.DevGenesis(8118, []types.Address{from}, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: val, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	n.StartConsole()
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	errorNope := mustHex("08c379a0" + "0000000000000000000000000000000000000000000000000000000000000020" +
		"0000000000000000000000000000000000000000000000000000000000000004" +
		"6e6f706500000000000000000000000000000000000000000000000000000000")
	panic11 := mustHex("4e487b71" + "0000000000000000000000000000000000000000000000000000000000000011")
	to := types.Address{0xbe, 0xef}
	signer := types.LatestSigner(8118)
	var hashes []types.Hash
	for i, c := range []struct {
		to   *types.Address
		data []byte
	}{{&to, nil}, {nil, []byte{0x00}}, {nil, revertWith(errorNope)}, {nil, revertWith(panic11)}} {
		tx := types.MustSignNewTx(keys[0], signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: uint64(i),
			GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(100e9), Gas: 200_000, To: c.to, Value: *uint256.NewInt(1), Data: c.data})
		if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, tx.Hash())
	}
	waitNonce(t, n, from, 4)

	type line struct {
		Msg, Hash, From, To, Created, Status, Reason string
		Gas, Txs                                     uint64
	}
	txLines := map[string]line{}
	blocks := 0
	deadline := time.Now().Add(10 * time.Second)
	for len(txLines) < 4 || blocks == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("console wrote %d transaction lines and %d block lines:\n%s", len(txLines), blocks, buf.String())
		}
		time.Sleep(10 * time.Millisecond)
		txLines, blocks = map[string]line{}, 0
		for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var l line
			if json.Unmarshal([]byte(s), &l) != nil {
				t.Fatalf("log line is not one JSON object: %q", s)
			}
			switch l.Msg {
			case "transaction":
				txLines[l.Hash] = l
			case "block":
				if l.Txs > 0 {
					blocks++
				}
			}
		}
	}
	created := types.CreateAddress(from, 1).Hex()
	for i, want := range []line{
		{To: to.Hex(), Status: "success", Gas: 21000},
		{Created: created, Status: "success"},
		{Status: "failed", Reason: "nope"},
		{Status: "failed", Reason: "arithmetic underflow or overflow"},
	} {
		got := txLines[hashes[i].Hex()]
		if got.From != from.Hex() || got.To != want.To || got.Status != want.Status || got.Reason != want.Reason ||
			(want.Created != "" && got.Created != want.Created) || (want.Gas != 0 && got.Gas != want.Gas) || got.Gas == 0 {
			t.Errorf("tx %d: %+v, want %+v", i, got, want)
		}
	}
}
