package cometrpc

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/eventquery"
	"github.com/chaind/chaind/internal/query/querytest"
)

// tx_search picks its transactions from the index each query names and
// pages them; keys no index answers are refused with the list of those
// that are.
func TestTxSearch(t *testing.T) {
	c := fixture()
	u, _ := serveChain(t, c)
	b3, _ := c.BlockByNumber(3)
	b4, _ := c.BlockByNumber(4)
	eth := b4.Transactions()[0].Hash()
	raw, _ := query.CosmosTx(b3.Transactions()[1], sender(2))
	comet := query.CometHash(raw)
	s1 := sender(1)
	cases := []struct {
		query string
		extra string
		total string
		n     int
		err   string
	}{
		{"tm.event='Tx'", "", "3", 3, ""},
		{"tx.height=3", "", "2", 2, ""},
		{"tx.height>3", "", "1", 1, ""},
		{"tx.height>=3", `,"per_page":"1","page":"3"`, "3", 1, ""},
		{"tx.height>=3", `,"per_page":"1","page":"4"`, "", 0, "page should be within [1, 3] range, given 4"},
		{fmt.Sprintf("tx.hash='%X'", comet[:]), "", "1", 1, ""},
		{fmt.Sprintf("tx.hash='%X'", make([]byte, 32)), "", "0", 0, ""},
		{fmt.Sprintf("ethereum_tx.ethereumTxHash='%s'", eth.Hex()), "", "1", 1, ""},
		{fmt.Sprintf("message.sender='%s'", query.Bech32(query.AccountPrefix, s1)), "", "2", 2, ""},
		{fmt.Sprintf("message.sender='0x%x' AND tx.height=4", s1[:]), "", "1", 1, ""},
		// Sender 1 received nothing: its history holds only what it sent.
		{fmt.Sprintf("message.sender='%s'", query.Bech32(query.AccountPrefix, querytest.Addr(2))), "", "0", 0, ""},
		{"tm.event='NewBlock'", "", "0", 0, ""},
		{"transfer.recipient='x'", "", "", 0, `"transfer.recipient" is not indexed by chaind`},
		{"message.module='evm'", "", "", 0, `"message.module" alone selects no index`},
		{"message.sender='nonsense'", "", "", 0, "want a chain1... or 0x address"},
		{"tx.height=3", `,"prove":true`, "", 0, "prove: chaind serves no CometBFT transaction proofs"},
		{"tx.height=3", `,"order_by":"sideways"`, "", 0, "order_by"},
	}
	for _, tc := range cases {
		r := post(t, u, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tx_search","params":{"query":%q%s}}`, tc.query, tc.extra))
		if tc.err != "" {
			if r.Error == nil || r.Error.Code != codeInternal || !strings.Contains(r.Error.Data, tc.err) {
				t.Errorf("%s: error %+v, want %q", tc.query, r.Error, tc.err)
			}
			continue
		}
		if r.Error != nil {
			t.Errorf("%s: %+v", tc.query, r.Error)
			continue
		}
		if got := field(t, r.Result, "total_count"); got != tc.total {
			t.Errorf("%s: total_count %v, want %s", tc.query, got, tc.total)
		}
		if got := len(field(t, r.Result, "txs").([]any)); got != tc.n {
			t.Errorf("%s: %d txs, want %d", tc.query, got, tc.n)
		}
	}
}

// tx finds a transaction by its CometBFT hash and by its Ethereum hash,
// in both the JSON (base64) and URI (0x-hex) forms; a hash it does not
// know is an error, as CometBFT answers.
func TestTx(t *testing.T) {
	c := fixture()
	u, _ := serveChain(t, c)
	b4, _ := c.BlockByNumber(4)
	tx := b4.Transactions()[0]
	raw, _ := query.CosmosTx(tx, sender(1))
	comet := query.CometHash(raw)
	for _, body := range []string{
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tx","params":{"hash":%q}}`, base64.StdEncoding.EncodeToString(comet[:])),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tx","params":[%q]}`, base64.StdEncoding.EncodeToString(tx.Hash().Bytes())),
	} {
		r := post(t, u, body)
		if r.Error != nil {
			t.Fatalf("%s: %+v", body, r.Error)
		}
		if got := field(t, r.Result, "hash"); got != fmt.Sprintf("%X", comet[:]) {
			t.Errorf("%s: hash %v", body, got)
		}
		if got := field(t, r.Result, "height"); got != "4" {
			t.Errorf("%s: height %v", body, got)
		}
	}
	r := get(t, u+"/tx?hash=0x"+fmt.Sprintf("%x", comet[:]))
	if r.Error != nil || field(t, r.Result, "index") != 0.0 {
		t.Errorf("URI form: %s %+v", r.Result, r.Error)
	}
	r = get(t, u+"/tx?hash="+fmt.Sprintf("%X", make([]byte, 32)))
	if r.Error == nil || !strings.Contains(r.Error.Data, "not found") {
		t.Errorf("unknown hash: %s %+v", r.Result, r.Error)
	}
}

// The URI form reads every method's parameters from the query string.
func TestURIFormSearch(t *testing.T) {
	c := fixture()
	u, _ := serveChain(t, c)
	cases := []struct{ path, field, want string }{
		{"/block_results?height=4", "height", "4"},
		{"/tx_search?query=" + url.QueryEscape(`"tx.height=3"`) + "&per_page=1", "total_count", "2"},
		{"/block_search?query=" + url.QueryEscape(`"block.height<=2"`) + "&order_by=%22desc%22", "total_count", "2"},
		{"/consensus_params?height=2", "block_height", "2"},
		{"/num_unconfirmed_txs", "total", "1"},
		{"/unconfirmed_txs?limit=1", "n_txs", "1"},
		{"/genesis_chunked?chunk=0", "total", "1"},
		{"/net_info", "n_peers", "1"},
	}
	for _, tc := range cases {
		r := get(t, u+tc.path)
		if r.Error != nil {
			t.Errorf("%s: %+v", tc.path, r.Error)
			continue
		}
		if got := field(t, r.Result, tc.field); got != tc.want {
			t.Errorf("%s: %s = %v, want %s", tc.path, tc.field, got, tc.want)
		}
	}
	for path, want := range map[string]string{
		"/genesis_chunked?chunk=1":   "there are 1 chunks, 1 is invalid",
		"/broadcast_tx_sync?tx=0x00": "eth_sendRawTransaction",
		"/block_results?height=99":   "must be less than or equal to the current blockchain height",
	} {
		r := get(t, u+path)
		if r.Error == nil || !strings.Contains(r.Error.Data, want) {
			t.Errorf("%s: %+v, want %q", path, r.Error, want)
		}
	}
}

// FuzzURIParams runs the URI form's parameter parsing and the query
// parser on any input: an answer or a clear error, never a panic.
func FuzzURIParams(f *testing.F) {
	for _, s := range []string{"height=5", "query=%22tx.height%3E%3D3%20AND%20tx.height%3C5%22", "hash=0xABCD", "prove=true&page=%222%22",
		"query=%22message.sender%3D'chain1x'%22", "per_page=-1&order_by=asc", "query=tm.event%20EXISTS", "chunk=99999999999999999999"} {
		f.Add("tx_search", s)
		f.Add("block_search", s)
		f.Add("block", s)
	}
	c := fixture()
	qb := c.Backend()
	qb.Receipts, qb.TxIndex, qb.History = c, c, c
	s := New(query.New(qb), Backend{Blocks: qb.Blocks, Consensus: qb.Consensus, Network: c, Pool: c})
	f.Fuzz(func(t *testing.T, method, rawQuery string) {
		vals, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		p := params{}
		for k, vs := range vals {
			p[k] = uriValue(vs[0])
		}
		if _, ok := methods[method]; !ok || strings.HasPrefix(method, "genesis") {
			method = "tx_search"
		}
		resp := s.call(t.Context(), callInfo{host: "h"}, []byte("1"), method, p)
		if resp.Error == nil && resp.Result == nil {
			t.Fatalf("%s?%s: neither result nor error", method, rawQuery)
		}
		if q, ok := p["query"]; ok {
			if pq, err := eventquery.Parse(strings.Trim(string(q), `"`)); err == nil && len(pq.Keys()) == 0 {
				t.Fatalf("%s parsed to no condition", q)
			}
		}
	})
}
