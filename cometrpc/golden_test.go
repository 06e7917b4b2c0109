package cometrpc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares v, indented, with testdata/golden/name.json.
func golden(t *testing.T, name string, v json.RawMessage) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, v, "", "  "); err != nil {
		t.Fatalf("%s: %v: %s", name, err, v)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to record it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from %s:\n%s", name, path, buf.Bytes())
	}
}

// Each method's answer on the fixture chain, in full, against its golden
// file: the shape CometBFT v0.38 gives it (field names, strings for
// 64-bit integers, upper-case hex hashes, base64 bytes).
func TestGolden(t *testing.T) {
	c := fixture()
	url, _ := serveChain(t, c)
	b3, _ := c.BlockByNumber(3)
	tx0 := b3.Transactions()[0]
	raw0, err := query.CosmosTx(tx0, sender(1))
	if err != nil {
		t.Fatal(err)
	}
	comet0 := query.CometHash(raw0)
	cases := []struct{ name, body string }{
		{"status", `{"method":"status"}`},
		{"net_info", `{"method":"net_info"}`},
		{"block", `{"method":"block","params":{"height":"3"}}`},
		{"block_results", `{"method":"block_results","params":{"height":"3"}}`},
		{"block_with_evidence", `{"method":"block","params":{"height":"4"}}`},
		{"blockchain", `{"method":"blockchain","params":{"minHeight":"3","maxHeight":"4"}}`},
		{"commit", `{"method":"commit","params":{"height":"3"}}`},
		{"validators", `{"method":"validators","params":{"height":"3"}}`},
		{"genesis", `{"method":"genesis"}`},
		{"genesis_chunked", `{"method":"genesis_chunked","params":{"chunk":"0"}}`},
		{"consensus_params", `{"method":"consensus_params","params":{"height":"4"}}`},
		{"tx", fmt.Sprintf(`{"method":"tx","params":{"hash":%q}}`, base64.StdEncoding.EncodeToString(comet0[:]))},
		{"tx_search", `{"method":"tx_search","params":{"query":"tx.height>=3 AND tx.height<=4","per_page":"2","order_by":"desc"}}`},
		{"block_search", `{"method":"block_search","params":{"query":"block.height>3"}}`},
		{"unconfirmed_txs", `{"method":"unconfirmed_txs"}`},
		{"num_unconfirmed_txs", `{"method":"num_unconfirmed_txs"}`},
		{"abci_info", `{"method":"abci_info"}`},
		{"header", `{"method":"header","params":{"height":"4"}}`},
		{"broadcast_tx_sync", `{"method":"broadcast_tx_sync","params":{"tx":"AA=="}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var req map[string]any
			if err := json.Unmarshal([]byte(tc.body), &req); err != nil {
				t.Fatal(err)
			}
			req["jsonrpc"], req["id"] = "2.0", 1
			body, _ := json.Marshal(req)
			r := post(t, url, string(body))
			out := r.Result
			if r.Error != nil {
				out, _ = json.Marshal(r.Error)
			}
			// The listener's port changes from run to run.
			out = bytes.ReplaceAll(out, []byte(strings.TrimPrefix(url, "http://")), []byte("127.0.0.1:PORT"))
			golden(t, tc.name, out)
		})
	}
}

// The transactions in block data and in every answer decode as Cosmos
// EVM's TxRaw holding one MsgEthereumTx, whose raw bytes are the Ethereum
// transaction and from its sender; the CometBFT hash is sha256 of them.
func TestCosmosTxDecodes(t *testing.T) {
	c := fixture()
	url, _ := serveChain(t, c)
	r := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"3"}}`)
	txs := field(t, r.Result, "block.data.txs").([]any)
	b3, _ := c.BlockByNumber(3)
	if len(txs) != len(b3.Transactions()) {
		t.Fatalf("%d txs in block data, block has %d", len(txs), len(b3.Transactions()))
	}
	for i, enc := range txs {
		raw, _ := base64.StdEncoding.DecodeString(enc.(string))
		msg := decodeEthMsg(t, raw)
		tx := b3.Transactions()[i]
		want, _ := tx.MarshalBinary()
		if !bytes.Equal(msg.Raw, want) {
			t.Errorf("tx %d: raw is not the Ethereum transaction", i)
		}
		from, _ := types.Sender(tx)
		if !bytes.Equal(msg.From, from[:]) {
			t.Errorf("tx %d: from %x, want %x", i, msg.From, from)
		}
	}
}

// decodeEthMsg reads the MsgEthereumTx out of TxRaw bytes.
func decodeEthMsg(t *testing.T, raw []byte) query.MsgEthereumTx {
	t.Helper()
	var tr query.TxRaw
	if err := protobuf.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	var body query.TxBody
	if err := protobuf.Unmarshal(tr.BodyBytes, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 1 || body.Messages[0].URL() != "/cosmos.evm.vm.v1.MsgEthereumTx" {
		t.Fatalf("body messages %+v", body.Messages)
	}
	if len(body.ExtensionOptions) != 1 || body.ExtensionOptions[0].URL() != "/cosmos.evm.vm.v1.ExtensionOptionsEthereumTx" {
		t.Fatalf("extension options %+v", body.ExtensionOptions)
	}
	var m query.MsgEthereumTx
	if err := protobuf.Unmarshal(body.Messages[0].Value, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
