package ethapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

func TestTxPoolNamespace(t *testing.T) {
	_, key, addr := devNode(t)
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	to := types.MustAddress("0xc100000000000000000000000000000000000000")
	// Nonce 5 leaves a gap: the transaction waits in the queue.
	h := sendTx(t, addr, key, 5, &to, nil, 21000)

	r := call(t, addr, "txpool_status")
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var status map[string]types.HexUint64
	if err := json.Unmarshal(r.Result, &status); err != nil {
		t.Fatal(err)
	}
	if status["queued"] != 1 || status["pending"] != 0 {
		t.Errorf("status: %s", r.Result)
	}

	r = call(t, addr, "txpool_contentFrom", from)
	var content map[string]map[string]struct {
		Hash types.Hash `json:"hash"`
	}
	if err := json.Unmarshal(r.Result, &content); err != nil {
		t.Fatal(err)
	}
	if content["queued"]["5"].Hash != h || len(content["pending"]) != 0 {
		t.Errorf("contentFrom: %s", r.Result)
	}

	r = call(t, addr, "txpool_content")
	var all map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal(r.Result, &all); err != nil {
		t.Fatal(err)
	}
	if _, ok := all["queued"][from.Hex()]["5"]; !ok {
		t.Errorf("content: %s", r.Result)
	}

	r = call(t, addr, "txpool_inspect")
	var inspect map[string]map[string]map[string]string
	if err := json.Unmarshal(r.Result, &inspect); err != nil {
		t.Fatal(err)
	}
	if s := inspect["queued"][from.Hex()]["5"]; !strings.HasPrefix(s, to.Hex()+": 0 wei + 21000 gas × ") {
		t.Errorf("inspect: %q", s)
	}
}
