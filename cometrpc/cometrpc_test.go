package cometrpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func serve(t *testing.T, f *querytest.Fake) string {
	t.Helper()
	qb := f.Backend()
	s := New(query.New(qb), Backend{Blocks: qb.Blocks, Consensus: qb.Consensus, Network: qb.Network, Validator: querytest.Addr(0x100)})
	srv, err := front.New(front.Config{}).Listen(Listener("127.0.0.1:0", s, front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return "http://" + srv.Addr()
}

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func post(t *testing.T, url, body string) rpcReply {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r rpcReply
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return r
}

func get(t *testing.T, url string) rpcReply {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r rpcReply
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return r
}

// field digs a value out of a JSON object by a dotted path.
func field(t *testing.T, raw json.RawMessage, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: %q is not in %s", path, k, raw)
		}
		v = m[k]
	}
	return v
}

// Each method answers in CometBFT v0.38's shape: the fields cosmjs's
// decoders require are set, 64-bit integers are strings, hashes are
// upper-case hex.
func TestMethods(t *testing.T) {
	f := querytest.New(3)
	url := serve(t, f)
	head := f.Head()
	hash := head.Hash()
	parent := head.ParentHash()
	cases := []struct {
		body string
		path string
		want any
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"health"}`, "", map[string]any{}},
		{`{"jsonrpc":"2.0","id":1,"method":"status","params":{}}`, "node_info.network", "8118"},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "node_info.version", Version},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "node_info.protocol_version.block", "11"},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "sync_info.latest_block_height", "2"},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "sync_info.latest_block_hash", strings.ToUpper(hex.EncodeToString(hash[:]))},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "validator_info.address", strings.ToUpper(hex.EncodeToString(querytest.Addr(0x100).Bytes()))},
		{`{"jsonrpc":"2.0","id":1,"method":"abci_info"}`, "response.last_block_height", "2"},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"1"}}`, "block.header.height", "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":["2"]}`, "block.header.version.block", "11"},
		{`{"jsonrpc":"2.0","id":1,"method":"block"}`, "block_id.parts.total", 1.0},
		{`{"jsonrpc":"2.0","id":1,"method":"block"}`, "block.last_commit.height", "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"block"}`, "block.header.last_block_id.hash", strings.ToUpper(hex.EncodeToString(parent[:]))},
		{`{"jsonrpc":"2.0","id":1,"method":"header","params":{"height":2}}`, "header.chain_id", "8118"},
		{`{"jsonrpc":"2.0","id":1,"method":"block_by_hash","params":{"hash":"` + base64.StdEncoding.EncodeToString(hash[:]) + `"}}`, "block.header.height", "2"},
		{`{"jsonrpc":"2.0","id":1,"method":"header_by_hash","params":{"hash":"` + hex.EncodeToString(make([]byte, 32)) + `"}}`, "header", nil},
		{`{"jsonrpc":"2.0","id":1,"method":"commit","params":{"height":"1"}}`, "canonical", true},
		{`{"jsonrpc":"2.0","id":1,"method":"commit"}`, "canonical", false},
		{`{"jsonrpc":"2.0","id":1,"method":"validators","params":{"height":"2","per_page":"2"}}`, "total", "3"},
		{`{"jsonrpc":"2.0","id":1,"method":"validators","params":{"height":"2","per_page":"2","page":"2"}}`, "count", "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"blockchain","params":{"minHeight":"1","maxHeight":"2"}}`, "last_height", "2"},
	}
	for _, tc := range cases {
		r := post(t, url, tc.body)
		if r.Error != nil {
			t.Errorf("%s: error %+v", tc.body, r.Error)
			continue
		}
		var got any
		if tc.path == "" {
			json.Unmarshal(r.Result, &got)
		} else {
			got = field(t, r.Result, tc.path)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(tc.want)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: %s = %s, want %s", tc.body, tc.path, gj, wj)
		}
	}
}

// Bad input gets CometBFT's error objects: parameters that do not
// convert are -32602, everything a method refuses -32603
// (TestCometGoldens holds CometBFT's own answers).
func TestErrors(t *testing.T) {
	url := serve(t, querytest.New(1))
	cases := []struct {
		body string
		code int
		data string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"nope"}`, codeNoMethod, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"9"}}`, codeInternal, "must be less than or equal to the current blockchain height 2"},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"x"}}`, codeInvalidParams, "error converting json params to arguments: invalid character 'x'"},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"0"}}`, codeInternal, "height must be greater than 0, but got 0"},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":["1","2"]}`, codeInvalidParams, "at most 1 parameters"},
		{`{"jsonrpc":"2.0","id":1,"method":"validators","params":{"page":"3"}}`, codeInternal, "page should be within [1, 1] range"},
		{`{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_sync","params":{"tx":"AA=="}}`, codeInternal, "eth_sendRawTransaction"},
		{`{"jsonrpc":"2.0","id":1,"method":"abci_query","params":{"path":"/cosmos.bank.v1beta1.Query/Balance","prove":true}}`, codeInternal, "eth_getProof"},
		{`{"jsonrpc":"2.0","id":1,"method":"block_by_hash","params":{"hash":"AA=="}}`, codeInternal, "want 32 bytes"},
		{`{"jsonrpc":"2.0","id":1,"method":"block_by_hash","params":{"hash":"AA"}}`, codeInvalidParams, "illegal base64"},
		{`{"jsonrpc":"2.0",`, codeParse, ""},
		{`{"jsonrpc":"1.0","id":1,"method":"health"}`, codeInvalidRequest, ""},
	}
	for _, tc := range cases {
		r := post(t, url, tc.body)
		if r.Error == nil || r.Error.Code != tc.code || !strings.Contains(r.Error.Data, tc.data) {
			t.Errorf("%s: error %+v, want code %d with %q", tc.body, r.Error, tc.code, tc.data)
		}
	}
}

// abci_query runs the gRPC query named by its path on protobuf bytes, at
// the height asked for, and answers query failures as the SDK does (a
// code in the response, not an RPC error).
func TestABCIQuery(t *testing.T) {
	f := querytest.New(1)
	f.Past = map[uint64]map[types.Address]*uint256.Int{1: {querytest.Addr(1): uint256.NewInt(7)}}
	url := serve(t, f)
	req := hex.EncodeToString(protobuf.Marshal(&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: "achain"}))
	cases := []struct {
		params string
		code   float64
		height string
		amount string
		log    string
	}{
		{`{"path":"/cosmos.bank.v1beta1.Query/Balance","data":"` + req + `"}`, 0, "2", querytest.Ether(10_000).Dec(), ""},
		{`{"path":"/cosmos.bank.v1beta1.Query/Balance","data":"` + req + `","height":"1"}`, 0, "1", "7", ""},
		{`{"path":"/cosmos.bank.v1beta1.Query/Balance","data":"` + req + `","height":"5"}`, query.SDKInvalidRequest, "0", "", "above the latest block"},
		{`{"path":"/cosmos.bank.v1beta1.Query/Nope","data":""}`, query.SDKUnknownRequest, "0", "", "unknown query path"},
		{`{"path":"/cosmos.bank.v1beta1.Query/Balance","data":"ff"}`, query.SDKInvalidRequest, "2", "", "unmarshal"},
		{`{"path":"/cosmos.staking.v1beta1.Query/Validator","data":"` + hex.EncodeToString(protobuf.Marshal(&query.QueryValidatorRequest{ValidatorAddr: query.Bech32(query.ValidatorPrefix, querytest.Addr(9))})) + `"}`, query.SDKKeyNotFound, "2", "", ""},
	}
	for _, tc := range cases {
		r := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"abci_query","params":`+tc.params+`}`)
		if r.Error != nil {
			t.Fatalf("%s: %+v", tc.params, r.Error)
		}
		if c := field(t, r.Result, "response.code"); c != tc.code {
			t.Errorf("%s: code %v, want %v (log %v)", tc.params, c, tc.code, field(t, r.Result, "response.log"))
			continue
		}
		if h := field(t, r.Result, "response.height"); h != tc.height {
			t.Errorf("%s: height %v, want %s", tc.params, h, tc.height)
		}
		if log, _ := field(t, r.Result, "response.log").(string); !strings.Contains(log, tc.log) {
			t.Errorf("%s: log %q, want %q", tc.params, log, tc.log)
		}
		if tc.code != 0 {
			continue
		}
		v, _ := base64.StdEncoding.DecodeString(field(t, r.Result, "response.value").(string))
		var resp query.QueryBalanceResponse
		if err := protobuf.Unmarshal(v, &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Balance == nil || resp.Balance.Amount.ProtoText() != tc.amount {
			t.Errorf("%s: balance %+v, want %s", tc.params, resp.Balance, tc.amount)
		}
	}
}

// The URI form takes the same parameters as query strings.
func TestURIForm(t *testing.T) {
	f := querytest.New(1)
	url := serve(t, f)
	if h := field(t, get(t, url+"/block?height=1").Result, "block.header.height"); h != "1" {
		t.Errorf("GET /block?height=1: height %v", h)
	}
	hash := f.Head().Hash()
	if h := field(t, get(t, url+"/header_by_hash?hash=0x"+hex.EncodeToString(hash[:])).Result, "header.height"); h != "2" {
		t.Errorf("GET /header_by_hash: height %v", h)
	}
	if h := field(t, get(t, url+`/abci_query?path="/cosmos.bank.v1beta1.Query/Balance"&data=0x`+hex.EncodeToString(protobuf.Marshal(&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(2)), Denom: "achain"}))).Result, "response.height"); h != "2" {
		t.Errorf("GET /abci_query: height %v", h)
	}
	// CometBFT routes only its HTTP methods: anything else, the
	// WebSocket-only subscribe included, is a 404 page.
	for _, path := range []string{"/nope", "/subscribe?query=%22x%22"} {
		if resp, err := http.Get(url + path); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %v %v", path, resp, err)
		} else {
			resp.Body.Close()
		}
	}
}
