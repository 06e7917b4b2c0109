package cometrpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/coder/websocket"
)

// The goldens of testdata/comet0.38 are a real CometBFT v0.38.26 node's
// answers (its kvstore app; recorded by testdata/comet0.38/record.sh).
// TestCometGoldens asks chaind the same questions on this package's
// fixture chain and compares the answers field by field: the same keys
// at every level, the same JSON types, the same kind of string (decimal
// integer, upper-case hex, base64, RFC 3339 UTC time), the same error
// codes and messages, the same "type" tags; and, for errors, the same
// data text once numbers and hashes are masked. Values differ (another
// chain), and so may what an answer holds where the application
// differs; each such field is listed in cometDiffers with the reason.

// cometGolden is one recorded exchange (record/main.go's Golden).
type cometGolden struct {
	Name      string          `json:"name"`
	Note      string          `json:"note"`
	Transport string          `json:"transport"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	Status    int             `json:"status"`
}

const cometGoldenDir = "testdata/comet0.38"

// cometDiffers are the differences from CometBFT's answers that are
// chaind's on purpose, by "case path" ("*" for every case; array indexes
// are written []), with the reason. A listed difference that no case
// shows any more fails the test, so the list stays true.
var cometDiffers = map[string]string{
	// Another application: kvstore is not Cosmos EVM.
	"* ...tx_result.data":                                               "Cosmos EVM answers a MsgEthereumTxResponse (base64); kvstore answers no data (null)",
	"* ...txs_results[].data":                                           "as tx_result.data",
	"* ...result_finalize_block.tx_results[].data":                      "as tx_result.data",
	"ws_event_tx result.data.value.TxResult.result.data":                "as tx_result.data (the Tx event leaves out empty fields, so kvstore's has none)",
	"ws_event_tx result.data.value.TxResult.result.gas_used":            "an Ethereum transaction uses gas; kvstore reports 0, which the Tx event leaves out",
	"ws_event_tx result.data.value.TxResult.result.gas_wanted":          "as gas_used",
	"block_results result.finalize_block_events":                        "Cosmos EVM's fee market reports each block's base fee; kvstore has no block events (null)",
	"ws_event_new_block result.data.value.result_finalize_block.events": "as block_results' finalize_block_events (left out when empty, as CometBFT does)",
	"abci_query result.response.key":                                    "the SDK's baseapp answers a gRPC-path query with value and height only (no key); kvstore echoes the key",
	"abci_query_missing result.response.key":                            "as abci_query",
	"genesis result.genesis.app_state":                                  "chaind's genesis (alloc, staking, forks) is the app state; kvstore's genesis has none",
	"block_search_bad_query error.data":                                 "the query parser's own wording (internal/query/eventquery); the code and message are CometBFT's",
	"tx_search_bad_query error.data":                                    "as block_search_bad_query",
	"ws_subscribe_bad_query error.data":                                 "as block_search_bad_query, after CometBFT's \"failed to parse query: \"",
	"header_by_hash_base64 error.data":                                  "the base64 text is another hash's, so the first byte that is not hex differs",

	// Read-only: chaind takes no Cosmos transactions.
	"broadcast_tx_async result":          "refused: transactions enter as Ethereum transactions (eth_sendRawTransaction)",
	"broadcast_tx_async error":           "as broadcast_tx_async result",
	"broadcast_tx_sync result":           "as broadcast_tx_async result",
	"broadcast_tx_sync error":            "as broadcast_tx_async result",
	"broadcast_tx_sync_rejected result":  "as broadcast_tx_async result",
	"broadcast_tx_sync_rejected error":   "as broadcast_tx_async result",
	"broadcast_tx_commit result":         "as broadcast_tx_async result",
	"broadcast_tx_commit error":          "as broadcast_tx_async result",
	"check_tx result":                    "as broadcast_tx_async result",
	"check_tx error":                     "as broadcast_tx_async result",
	"broadcast_tx_commit_dup error.data": "as broadcast_tx_async result: the data says where to send transactions",
	"subscribe_http error.data":          "CometBFT gives no data; chaind's says subscriptions are served at /websocket",

	// The fixture chain, not chaind: the one-validator recording has no
	// absent vote, the fixture's block 2 has one; its validator set
	// records no keys, and serveChain gives the node no key.
	"* ...signatures[].signature":                 "an absent vote (block_id_flag 1) has a null signature, as CometBFT renders it (TestGolden's commit.json); the recording's one validator never missed one",
	"* result.validator_info.pub_key":             "serveChain gives the node no validator key",
	"validators result.validators[].pub_key":      "the fixture's validator set records no keys",
	"genesis result.genesis.validators[].pub_key": "as validators",
}

// loadCometGoldens reads every golden, by name.
func loadCometGoldens(t *testing.T) map[string]cometGolden {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cometGoldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cometGolden{}
	for _, f := range files {
		if filepath.Base(f) == "VERSIONS.json" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g cometGolden
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[g.Name] = g
	}
	if len(out) == 0 {
		t.Fatalf("no goldens in %s", cometGoldenDir)
	}
	return out
}

// translation maps the recorded chain's heights and hashes to the
// fixture's, so each question is asked of chaind about its own blocks.
type translation struct {
	strs map[string]string // whole string values
	subs [][2]string       // substrings (queries, URIs)
}

func (tr *translation) value(v any) any {
	switch x := v.(type) {
	case string:
		if s, ok := tr.strs[x]; ok {
			return s
		}
		for _, r := range tr.subs {
			x = strings.ReplaceAll(x, r[0], r[1])
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = tr.value(e)
		}
	case []any:
		for i, e := range x {
			x[i] = tr.value(e)
		}
	}
	return v
}

// chaindParams replace a case's parameters where the recorded ones name
// something only the kvstore app has.
func chaindParams() map[string]any {
	balance := hex.EncodeToString(protobuf.Marshal(&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: "achain"}))
	noVal := hex.EncodeToString(protobuf.Marshal(&query.QueryValidatorRequest{ValidatorAddr: query.Bech32(query.ValidatorPrefix, querytest.Addr(9))}))
	return map[string]any{
		"abci_query":          map[string]any{"path": "/cosmos.bank.v1beta1.Query/Balance", "data": balance},
		"abci_query_missing":  map[string]any{"path": "/cosmos.staking.v1beta1.Query/Validator", "data": noVal},
		"abci_query_bad_data": map[string]any{"path": "/cosmos.bank.v1beta1.Query/Balance", "data": "zz"},
		// chaind refuses broadcasts whatever the transaction.
	}
}

func TestCometGoldens(t *testing.T) {
	goldens := loadCometGoldens(t)
	c := fixture()
	url, s := serveChain(t, c)

	// The recorded chain's block with a transaction, its hash and the
	// transaction's; the fixture's block 3 and its first transaction.
	var rec struct {
		Result struct {
			Hash   string `json:"hash"`
			Height string `json:"height"`
		} `json:"result"`
	}
	if err := json.Unmarshal(goldens["broadcast_tx_commit"].Response, &rec); err != nil {
		t.Fatal(err)
	}
	recBlock := field(t, goldens["block"].Response, "result.block_id.hash").(string)
	b3, _ := c.BlockByNumber(3)
	raw0, err := query.CosmosTx(b3.Transactions()[0], sender(1))
	if err != nil {
		t.Fatal(err)
	}
	txHash, blockHash := query.CometHash(raw0), b3.Hash()
	b64 := func(h string) string { b, _ := hex.DecodeString(h); return base64.StdEncoding.EncodeToString(b) }
	tr := &translation{
		strs: map[string]string{rec.Result.Height: "3", b64(rec.Result.Hash): base64.StdEncoding.EncodeToString(txHash[:]),
			b64(recBlock): base64.StdEncoding.EncodeToString(blockHash[:]), recBlock: strings.ToUpper(hex.EncodeToString(blockHash[:]))},
		subs: [][2]string{{"=" + rec.Result.Height, "=3"}, {"0x" + rec.Result.Hash, "0x" + hex.EncodeToString(txHash[:])}},
	}
	override := chaindParams()
	used := map[string]bool{}

	// Every method served has a recorded answer to compare with.
	recorded := map[string]bool{}
	for _, g := range goldens {
		var req struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(g.Request, &req) == nil {
			recorded[req.Method] = true
		}
	}
	for _, m := range methodNames() {
		// broadcast_evidence needs real evidence to answer; chaind refuses
		// it as it refuses every broadcast.
		if !recorded[m] && m != "broadcast_evidence" {
			t.Errorf("no golden of %s: record one (testdata/comet0.38/record.sh)", m)
		}
	}

	var wsCases []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range goldens {
			if !yield(k) {
				return
			}
		}
	}) {
		g := goldens[name]
		if g.Transport == "ws" {
			wsCases = append(wsCases, name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			var got []byte
			var status int
			switch g.Transport {
			case "uri":
				var path string
				json.Unmarshal(g.Request, &path)
				got, status = httpGet(t, url+tr.value(path).(string))
			case "http":
				body := []byte(g.Request)
				var str string
				if json.Unmarshal(g.Request, &str) == nil {
					body = []byte(str) // recorded as a string: not JSON
				} else {
					var v any
					json.Unmarshal(g.Request, &v)
					if p, ok := override[name]; ok {
						v.(map[string]any)["params"] = p
					}
					body, _ = json.Marshal(tr.value(v))
				}
				got, status = httpPost(t, url, body)
			default:
				t.Fatalf("transport %q", g.Transport)
			}
			if status != g.Status {
				t.Errorf("%s: HTTP status %d, CometBFT's %d", name, status, g.Status)
			}
			var text string
			if json.Unmarshal(g.Response, &text) == nil {
				// Not JSON (recorded as a string): the same text.
				if string(got) != text {
					t.Errorf("%s: chaind answers %.200q, CometBFT %q", name, got, text)
				}
				return
			}
			compareComet(t, name, g.Response, got, used)
		})
	}
	t.Run("websocket", func(t *testing.T) { cometWSGoldens(t, c, s, url, goldens, wsCases, used) })

	if t.Failed() {
		return
	}
	for k, why := range cometDiffers {
		if !used[k] {
			t.Errorf("cometDiffers lists %q (%s), which no answer differs in any more", k, why)
		}
	}
}

// cometWSGoldens replays the WebSocket exchanges in the recorded order,
// with a new block (one transaction) made between the subscriptions and
// the unsubscriptions, as the recording's transactions were.
func cometWSGoldens(t *testing.T, c *chain, s *Server, url string, goldens map[string]cometGolden, cases []string, used map[string]bool) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { s.Run(stop); close(done) }()
	t.Cleanup(func() { close(stop); <-done })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)
	read := func() []byte {
		t.Helper()
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ask := func(name string) {
		g, ok := goldens[name]
		if !ok {
			t.Fatalf("no golden %s", name)
		}
		if err := conn.Write(ctx, websocket.MessageText, g.Request); err != nil {
			t.Fatal(err)
		}
		compareComet(t, name, g.Response, read(), used)
	}
	seen := map[string]bool{}
	for _, name := range []string{"ws_subscribe", "ws_subscribe_tx", "ws_subscribe_twice", "ws_subscribe_bad_query", "ws_status"} {
		ask(name)
		seen[name] = true
	}
	for !s.events.subscribed() {
		time.Sleep(time.Millisecond)
	}
	for {
		c.mu.Lock()
		n := len(c.subs)
		c.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.addBlock(-1, signedTx(1, 2, querytest.Addr(2), 1))
	compareComet(t, "ws_event_new_block", goldens["ws_event_new_block"].Response, read(), used)
	compareComet(t, "ws_event_tx", goldens["ws_event_tx"].Response, read(), used)
	seen["ws_event_new_block"], seen["ws_event_tx"] = true, true
	for _, name := range []string{"ws_unsubscribe", "ws_unsubscribe_unknown", "ws_unsubscribe_all"} {
		ask(name)
		seen[name] = true
	}
	for _, name := range cases {
		if !seen[name] {
			t.Errorf("WebSocket golden %s is not replayed", name)
		}
	}
}

func httpPost(t *testing.T, url string, body []byte) ([]byte, int) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, resp)
}

func httpGet(t *testing.T, url string) ([]byte, int) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, resp)
}

func readAll(t *testing.T, resp *http.Response) ([]byte, int) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, resp.StatusCode
}

// compareComet reports every difference between CometBFT's answer want
// and chaind's got that cometDiffers does not list.
func compareComet(t *testing.T, name string, want, got []byte, used map[string]bool) {
	t.Helper()
	w, err := querytest.DecodeJSON(want)
	if err != nil {
		t.Fatalf("%s: golden: %v", name, err)
	}
	g, err := querytest.DecodeJSON(got)
	if err != nil {
		t.Fatalf("%s: chaind's answer is not JSON: %v: %.300s", name, err, got)
	}
	var out []string
	for _, d := range cometShape.Diff("", w, g) {
		if k, ok := querytest.MatchKept(cometDiffers, "", name, d.Path); ok {
			used[k] = true
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: %s", name, d.Path, d.What))
	}
	if len(out) > 0 {
		t.Errorf("%d differences from CometBFT's answer:\n%s\nchaind answered: %.300s", len(out), strings.Join(out, "\n"), got)
	}
}

// cometShape compares with CometBFT's answers (querytest.Shape): strings
// by kind, a type and the protocol version exactly; an event map by its
// form only (its keys are the application's); an error's code and
// message exactly and its data with numbers and hex masked.
var cometShape = querytest.Shape{
	Them: "CometBFT",
	String: func(path, w, g string) string {
		if what := querytest.SameKind("CometBFT", w, g); what != "" {
			return what
		}
		if ((strings.HasSuffix(path, ".type") && !strings.HasSuffix(path, "events[].type")) || path == "jsonrpc") && w != g {
			return fmt.Sprintf("CometBFT answers %q, chaind %q", w, g)
		}
		return ""
	},
	Object: func(path string, w, g map[string]any) ([]querytest.Difference, bool) {
		switch path {
		case "result.events":
			// An event's attributes by "type.key": the application's own
			// names; each holds a list of strings.
			var out []querytest.Difference
			for _, k := range slices.Sorted(maps.Keys(g)) {
				l, ok := g[k].([]any)
				for _, e := range l {
					if _, isStr := e.(string); !isStr {
						ok = false
					}
				}
				if !ok {
					out = append(out, querytest.Difference{Path: path + "." + k, What: "not a list of strings"})
				}
			}
			return out, true
		case "error":
			return errorText(w, g), false
		}
		return nil, false
	},
}

// errorText compares an error's code and message exactly and its data
// with numbers and hex masked (they name this chain's heights and
// hashes).
func errorText(w, g map[string]any) []querytest.Difference {
	var out []querytest.Difference
	for _, k := range []string{"code", "message"} {
		if fmt.Sprint(w[k]) != fmt.Sprint(g[k]) {
			out = append(out, querytest.Difference{Path: "error." + k, What: fmt.Sprintf("CometBFT answers %v, chaind %v", w[k], g[k])})
		}
	}
	wd, _ := w["data"].(string)
	gd, _ := g["data"].(string)
	if maskNumbers(wd) != maskNumbers(gd) {
		out = append(out, querytest.Difference{Path: "error.data", What: fmt.Sprintf("CometBFT answers %q, chaind %q", wd, gd)})
	}
	return out
}

var numberText = regexp.MustCompile(`[0-9A-Fa-f]{16,}|-?[0-9]+`)

func maskNumbers(s string) string { return numberText.ReplaceAllString(s, "N") }
