package node

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestExplorerHistoryAfterRevertAndReset: the explorer's address pages,
// transaction and block lookups forget the blocks an evm_revert or an
// anvil_reset drops, and list what is mined afterwards.
func TestExplorerHistoryAfterRevertAndReset(t *testing.T) {
	keys := devload.Keys("explorer-history", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Explorer: true, Validator: keys[0], Accounts: keys[1:], DevTools: true, Fork: ForkConfig{Reset: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	x := &explorerNode{n: n, base: "http://" + n.Addr("explorer")}
	h := n.Handler()
	signer := devload.NewSigner(8118)
	payee := types.Address{0x77}
	send := func(k int) (types.Hash, types.Hash) {
		t.Helper()
		from := devload.Address(keys[k])
		nonce := poolNonce(t, n, from)
		tx, err := signer.Sign(keys[k], nonce, &payee, uint256.NewInt(1), 21000, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		waitNonce(t, n, from, nonce+1)
		bh, _, ok := n.Chain.DB().TxLookup(tx.Hash())
		if !ok {
			t.Fatalf("tx %s mined but not found", tx.Hash())
		}
		return tx.Hash(), bh
	}
	listed := func() []string {
		t.Helper()
		acc := x.get(t, "/api/account/"+payee.Hex(), http.StatusOK)["account"].(map[string]any)
		var rows []struct {
			Hash string `json:"hash"`
		}
		raw, _ := json.Marshal(acc["transactions"])
		if err := json.Unmarshal(raw, &rows); err != nil {
			t.Fatalf("account transactions: %v: %s", err, raw)
		}
		if c := acc["transactionCount"].(float64); int(c) != len(rows) {
			t.Fatalf("transactionCount %v, %d rows listed", c, len(rows))
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Hash)
		}
		return out
	}
	var snap string
	if err := json.Unmarshal(devCall(t, h, "evm_snapshot", `[]`).Result, &snap); err != nil {
		t.Fatal(err)
	}
	tx1, blk1 := send(1)
	if got := listed(); len(got) != 1 || got[0] != tx1.Hex() {
		t.Fatalf("payee lists %v, want [%s]", got, tx1)
	}
	x.get(t, "/api/block/"+blk1.Hex(), http.StatusOK) // rendered and cached
	x.get(t, "/api/transaction/"+tx1.Hex(), http.StatusOK)

	if r := devCall(t, h, "evm_revert", `["`+snap+`"]`); string(r.Result) != "true" {
		t.Fatalf("evm_revert: %s %+v", r.Result, r.Error)
	}
	if got := listed(); len(got) != 0 {
		t.Fatalf("after evm_revert the payee lists %v", got)
	}
	x.get(t, "/api/transaction/"+tx1.Hex(), http.StatusNotFound)
	x.get(t, "/api/block/"+blk1.Hex(), http.StatusNotFound)

	tx2, _ := send(2)
	if got := listed(); len(got) != 1 || got[0] != tx2.Hex() {
		t.Fatalf("payee lists %v, want [%s]", got, tx2)
	}
	if r := devCall(t, h, "anvil_reset", `[]`); r.Error != nil {
		t.Fatalf("anvil_reset: %+v", r.Error)
	}
	if got := listed(); len(got) != 0 {
		t.Fatalf("after anvil_reset the payee lists %v", got)
	}
	x.get(t, "/api/transaction/"+tx2.Hex(), http.StatusNotFound)
	tx3, _ := send(1)
	if got := listed(); len(got) != 1 || got[0] != tx3.Hex() {
		t.Fatalf("payee lists %v, want [%s]", got, tx3)
	}
}
