package node

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/coder/websocket"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// scrape is one parsed /metrics answer: each family's type and samples.
type scrape struct {
	text    string
	types   map[string]string // family -> counter, gauge, histogram, summary
	samples []chainmetrics.Sample
}

func scrapeMetrics(t *testing.T, url string) *scrape {
	t.Helper()
	code, text := get(t, url)
	if code != 200 {
		t.Fatalf("%s: %d", url, code)
	}
	s := &scrape{text: text, types: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			s.types[f[2]] = f[3]
		}
	}
	var err error
	if s.samples, err = chainmetrics.ParseText(strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	return s
}

// value is the sum of the samples of name whose labels include want.
func (s *scrape) value(name string, want map[string]string) (v float64, found bool) {
next:
	for _, m := range s.samples {
		if m.Name != name {
			continue
		}
		for k, w := range want {
			if m.Labels[k] != w {
				continue next
			}
		}
		v, found = v+m.Value, true
	}
	return v, found
}

// promParse runs the Prometheus project's own text parser over text (a
// nested module, so the node's go.mod stays clean) and returns its one
// line per sample; it skips the test when the module cannot be built.
func promParse(t *testing.T, text string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go tool to build the Prometheus parser")
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = "../metrics/testdata/promcheck"
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "parse error") {
			t.Fatalf("Prometheus parser refused /metrics: %s\n%s", stderr.String(), text)
		}
		t.Skipf("SKIPPED: cannot build the Prometheus parser module (offline?): %v\n%s", err, stderr.String())
	}
	return string(out)
}

// metricsDevNode is a proof-of-stake chain of one validator, as --dev
// runs, with every listener on and metrics served.
func metricsDevNode(t *testing.T) (*Node, []*secp256k1.PrivateKey) {
	t.Helper()
	keys, err := hd.DevAccounts(hd.DevMnemonic, 2)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []types.Address
	for _, k := range keys {
		addrs = append(addrs, types.Address(crypto.PrivkeyToAddress(k)))
	}
	g := chain.DevGenesis(8118, addrs, uint64(time.Now().Unix()))
	vk, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{vk}, ""); err != nil {
		t.Fatal(err)
	}
	zero := 0
	n, err := New(Config{Genesis: g, HTTPPort: 0, WSPort: 0, Explorer: true, ExplorerPort: 0, RESTPort: &zero, GRPCPort: &zero,
		Validator: vk, BlockTime: 50 * time.Millisecond, Accounts: keys, Ops: OpsConfig{Metrics: true, MetricsPort: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, keys
}

// TestMetricsFamilies scrapes a dev node's /metrics after calls on every
// listener, a WebSocket held open and blocks with transactions, and
// checks each family operators need: present, of the right type, named
// with Prometheus's unit suffixes, with a plausible value. Every family
// must also follow the naming rules, and the Prometheus parser must read
// the whole answer.
func TestMetricsFamilies(t *testing.T) {
	n, keys := metricsDevNode(t)
	rpcURL := "http://" + n.Addr("http")
	postText(t, rpcURL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	postText(t, rpcURL, `{"jsonrpc":"2.0","id":2,"method":"eth_noSuchMethod"}`)
	postText(t, rpcURL+"/graphql", `{"query":"{ block { number } }"}`)
	get(t, rpcURL+"/health")
	get(t, "http://"+n.Addr("rest")+"/cosmos/base/tendermint/v1beta1/blocks/latest")
	get(t, "http://"+n.Addr("grpc")+"/") // HTTP/1.1 to the gRPC port: counted, whatever it answers
	if code, msg := grpcCall(t, n.Addr("grpc"), "/cosmos.base.tendermint.v1beta1.Service/GetSyncing", &query.GetSyncingRequest{}, &query.GetSyncingResponse{}); code != 0 {
		t.Fatalf("GetSyncing: %d %s", code, msg)
	}
	grpcCall(t, n.Addr("grpc"), "/cosmos.nope.v1.Query/Made-up", &query.GetSyncingRequest{}, &query.GetSyncingResponse{})
	get(t, "http://"+n.Addr("explorer")+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+n.Addr("ws"), &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	txs, err := devload.NewSigner(8118).Workload(devload.KindTransfer, keys[1], 0, 3, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if err := n.backend.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
	}
	waitNonce(t, n, devload.Address(keys[1]), 3)
	waitHead(t, n, n.Chain.Head().Number()+2) // blocks after the transactions, so their signing is counted
	head := float64(n.Chain.Head().Number())

	s := scrapeMetrics(t, "http://"+n.Addr("metrics")+"/metrics")
	any := map[string]string{}
	atLeast := func(min float64) func(float64) bool { return func(v float64) bool { return v >= min } }
	between := func(lo, hi float64) func(float64) bool { return func(v float64) bool { return v >= lo && v <= hi } }
	for _, tc := range []struct {
		family, typ string
		sample      string            // the sample checked (family, or family_count for a histogram)
		labels      map[string]string // labels the sample must have
		ok          func(float64) bool
	}{
		// process and Go runtime
		{"process_cpu_seconds_total", "counter", "", any, atLeast(0)},
		{"process_resident_memory_bytes", "gauge", "", any, atLeast(1 << 20)},
		{"process_virtual_memory_bytes", "gauge", "", any, atLeast(1 << 20)},
		{"process_open_fds", "gauge", "", any, atLeast(5)},
		{"process_max_fds", "gauge", "", any, atLeast(5)},
		{"process_start_time_seconds", "gauge", "", any, between(float64(time.Now().Add(-time.Hour).Unix()), float64(time.Now().Unix()+1))},
		{"go_goroutines", "gauge", "", any, atLeast(10)},
		{"go_threads", "gauge", "", any, atLeast(1)},
		{"go_memstats_heap_alloc_bytes", "gauge", "", any, atLeast(1 << 20)},
		{"go_memstats_alloc_bytes_total", "counter", "", any, atLeast(1 << 20)},
		{"go_gc_duration_seconds", "summary", "go_gc_duration_seconds_count", any, atLeast(0)},
		// listeners
		{"chaind_rpc_requests_total", "counter", "", map[string]string{"method": "eth_blockNumber", "outcome": "ok"}, atLeast(1)},
		{"chaind_rpc_requests_total", "counter", "", map[string]string{"method": "eth_chainId"}, atLeast(1)}, // over the WebSocket
		{"chaind_rpc_request_duration_seconds", "histogram", "chaind_rpc_request_duration_seconds_count", map[string]string{"method": "eth_blockNumber"}, atLeast(1)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "http", "api": "jsonrpc", "code": "200"}, atLeast(2)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "http", "api": "graphql"}, atLeast(1)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "http", "api": "health"}, atLeast(1)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "rest", "api": "rest"}, atLeast(1)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "grpc", "api": "grpc"}, atLeast(1)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "explorer", "api": "explorer", "code": "200"}, atLeast(1)},
		{"chaind_http_requests_total", "counter", "", map[string]string{"listener": "ws", "api": "websocket", "code": "101"}, atLeast(1)},
		{"chaind_http_request_duration_seconds", "histogram", "chaind_http_request_duration_seconds_count", map[string]string{"listener": "http", "api": "graphql"}, atLeast(1)},
		{"chaind_grpc_requests_total", "counter", "", map[string]string{"method": "/cosmos.base.tendermint.v1beta1.Service/GetSyncing", "code": "OK"}, between(1, 1)},
		{"chaind_grpc_requests_total", "counter", "", map[string]string{"method": "other", "code": "Unimplemented"}, between(1, 1)}, // a made-up name is no label value
		{"chaind_grpc_requests_total", "counter", "", map[string]string{"method": "other", "code": "http"}, between(1, 1)},          // HTTP/1.1, refused before gRPC
		{"chaind_grpc_request_duration_seconds", "histogram", "chaind_grpc_request_duration_seconds_count", map[string]string{"method": "/cosmos.base.tendermint.v1beta1.Service/GetSyncing"}, between(1, 1)},
		{"chaind_rpc_websocket_connections", "gauge", "", any, between(1, 1)},
		{"chaind_rpc_websocket_connections_total", "counter", "", any, between(1, 1)},
		// blocks
		{"chaind_head_number", "gauge", "", any, atLeast(head)},
		{"chaind_block_execution_seconds", "histogram", "chaind_block_execution_seconds_count", map[string]string{"source": "built"}, atLeast(head)},
		{"chaind_block_commit_seconds", "histogram", "chaind_block_commit_seconds_count", any, atLeast(head)},
		{"chaind_block_gas_used", "histogram", "chaind_block_gas_used_sum", any, atLeast(3 * 21000)},
		{"chaind_block_transactions", "histogram", "chaind_block_transactions_sum", any, between(3, 3)},
		{"chaind_head_gas_limit", "gauge", "", any, atLeast(1e6)},
		{"chaind_head_gas_used", "gauge", "", any, atLeast(0)},
		{"chaind_head_transactions", "gauge", "", any, atLeast(0)},
		// read caches
		{"chaind_cache_hits_total", "counter", "", map[string]string{"cache": "trie_nodes"}, atLeast(0)},
		{"chaind_cache_misses_total", "counter", "", map[string]string{"cache": "state_reads"}, atLeast(0)},
		{"chaind_cache_bytes", "gauge", "", map[string]string{"cache": "code"}, atLeast(0)},
		{"chaind_store_tables", "gauge", "", any, atLeast(0)},
		{"chaind_store_pinned_tables", "gauge", "", any, atLeast(0)},
		{"chaind_store_pinned_bytes", "gauge", "", any, atLeast(0)},
		// validator and consensus
		{"chaind_validator_signed_blocks_total", "counter", "", any, atLeast(1)},
		{"chaind_validator_missed_blocks_total", "counter", "", any, between(0, 0)}, // the sole validator signs every block
		{"chaind_validator_voting_power", "gauge", "", any, atLeast(1)},
		{"chaind_validator_set_voting_power", "gauge", "", any, atLeast(1)},
		{"chaind_validator_set_size", "gauge", "", any, between(1, 1)},
		{"chaind_consensus_rounds_total", "counter", "", any, atLeast(head)},
		{"chaind_consensus_timeouts_total", "counter", "", any, atLeast(0)},
		// sync (a node off the network is its own highest head)
		{"chaind_sync_syncing", "gauge", "", any, between(0, 0)},
		{"chaind_sync_lag_blocks", "gauge", "", any, between(0, 0)},
		{"chaind_sync_highest_block", "gauge", "", any, atLeast(head)},
		{"chaind_p2p_peers", "gauge", "", any, between(0, 0)},
		// pool
		{"chaind_txpool_pending", "gauge", "", any, atLeast(0)},
		{"chaind_txpool_queued", "gauge", "", any, atLeast(0)},
		{"chaind_txpool_bytes", "gauge", "", any, atLeast(0)},
		{"chaind_txpool_subscriber_dropped_total", "counter", "", any, atLeast(0)},
	} {
		if got := s.types[tc.family]; got != tc.typ {
			t.Errorf("%s: type %q, want %q", tc.family, got, tc.typ)
			continue
		}
		sample := tc.sample
		if sample == "" {
			sample = tc.family
		}
		v, found := s.value(sample, tc.labels)
		if !found || !tc.ok(v) {
			t.Errorf("%s%v = %v (found %v): implausible", sample, tc.labels, v, found)
		}
	}
	// An unknown method is no label value of its own: a client cannot
	// grow the table; it counts as other.
	if _, found := s.value("chaind_rpc_requests_total", map[string]string{"method": "eth_noSuchMethod"}); found {
		t.Error("an unknown method got its own label value")
	}
	if v, _ := s.value("chaind_rpc_requests_total", map[string]string{"method": "other", "outcome": "error"}); v != 1 {
		t.Errorf("unknown methods counted as other: %v, want 1", v)
	}
	checkNaming(t, s)
	promParse(t, s.text)
}

// checkNaming holds every family to Prometheus's naming rules: a valid
// name with the node's prefix (or the client's go_ and process_), _total
// on counters and only on them, base units (seconds, bytes) as suffixes,
// and no reserved label name.
func checkNaming(t *testing.T, s *scrape) {
	t.Helper()
	valid := regexp.MustCompile(`^(chaind|go|process)_[a-z0-9_]+$`)
	badUnit := regexp.MustCompile(`_(milliseconds|ms|microseconds|nanoseconds|kb|mb|kib|mib|minutes|hours)(_|$)`)
	timeWord := regexp.MustCompile(`(duration|latency|_time(_|$)|pause)`)
	for name, typ := range s.types {
		if !valid.MatchString(name) {
			t.Errorf("%s: not a chaind_, go_ or process_ name", name)
		}
		if total := strings.HasSuffix(name, "_total"); total != (typ == "counter") {
			t.Errorf("%s: a %s; _total is for counters and every counter has it", name, typ)
		}
		if badUnit.MatchString(name) {
			t.Errorf("%s: not in base units (seconds, bytes)", name)
		}
		if timeWord.MatchString(name) && !strings.Contains(name, "_seconds") {
			t.Errorf("%s: a time without _seconds", name)
		}
	}
	for _, m := range s.samples {
		for k := range m.Labels {
			if strings.HasPrefix(k, "__") || (k == "le" && !strings.HasSuffix(m.Name, "_bucket")) || (k == "quantile" && s.types[m.Name] != "summary") {
				t.Errorf("%s: reserved label %q", m.Name, k)
			}
		}
	}
}

// dashboardPath is the Grafana dashboard shipped for these families.
const dashboardPath = "../../docs/grafana/chaind.json"

// TestGrafanaDashboard: every metric an expression of the shipped
// dashboard reads exists in a dev node's scrape, so no panel is empty
// because of a name.
func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	exprs := dashboardExprs(t, raw)
	if len(exprs) < 20 {
		t.Fatalf("%d expressions in the dashboard", len(exprs))
	}
	n, _ := metricsDevNode(t)
	waitHead(t, n, 2)
	s := scrapeMetrics(t, "http://"+n.Addr("metrics")+"/metrics")
	have := map[string]bool{}
	for name, typ := range s.types {
		have[name] = true
		if typ == "histogram" || typ == "summary" {
			have[name+"_sum"], have[name+"_count"] = true, true
		}
		if typ == "histogram" {
			have[name+"_bucket"] = true
		}
	}
	metric := regexp.MustCompile(`\b(?:chaind|go|process)_[a-z0-9_]+\b`)
	for _, e := range exprs {
		names := metric.FindAllString(e, -1)
		if len(names) == 0 {
			t.Errorf("expression reads no chaind metric: %s", e)
		}
		for _, name := range names {
			if !have[name] {
				t.Errorf("dashboard reads %s, which the node does not export (in %s)", name, e)
			}
		}
	}
}

// dashboardExprs collects the "expr" of every target of every panel,
// rows' nested panels included.
func dashboardExprs(t *testing.T, raw []byte) []string {
	t.Helper()
	var dash struct {
		Title  string           `json:"title"`
		Panels []map[string]any `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var out []string
	var walk func(ps []any)
	walk = func(ps []any) {
		for _, p := range ps {
			pm, _ := p.(map[string]any)
			if targets, ok := pm["targets"].([]any); ok {
				for _, tg := range targets {
					if e, ok := tg.(map[string]any)["expr"].(string); ok {
						out = append(out, e)
					}
				}
			}
			if sub, ok := pm["panels"].([]any); ok {
				walk(sub)
			}
		}
	}
	ps := make([]any, len(dash.Panels))
	for i, p := range dash.Panels {
		ps[i] = p
	}
	walk(ps)
	return out
}

// On a p2p network the node counts its peers and the bytes it exchanged
// with them by topic, and knows the highest head among them.
func TestP2PMetrics(t *testing.T) {
	pn := newP2PNet(t, 2)
	pn.startValidator(0)
	pn.startValidator(1)
	waitHeight(t, pn.nodes[0], 3, 60*time.Second)
	var b strings.Builder
	pn.nodes[0].Metrics().WriteTo(&b)
	samples, err := chainmetrics.ParseText(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := &scrape{text: b.String(), samples: samples}
	head := float64(pn.nodes[0].Chain.Head().Number())
	for _, tc := range []struct {
		name   string
		labels map[string]string
		ok     func(float64) bool
	}{
		{"chaind_p2p_peers", nil, func(v float64) bool { return v == 1 }},
		{"chaind_p2p_sent_bytes_total", map[string]string{"topic": "vote"}, func(v float64) bool { return v > 0 }},
		{"chaind_p2p_received_bytes_total", map[string]string{"topic": "vote"}, func(v float64) bool { return v > 0 }},
		{"chaind_p2p_sent_bytes_total", map[string]string{"topic": "status"}, func(v float64) bool { return v > 0 }},
		{"chaind_sync_highest_block", nil, func(v float64) bool { return v >= head }},
		{"chaind_sync_lag_blocks", nil, func(v float64) bool { return v >= 0 && v < 1e6 }},
	} {
		if v, found := s.value(tc.name, tc.labels); !found || !tc.ok(v) {
			t.Errorf("%s%v = %v (found %v): implausible\n%s", tc.name, tc.labels, v, found, b.String())
		}
	}
}

// A block that records this validator as absent from its parent's
// certificate counts as missed; one that does not, as signed; a block
// whose parent's set leaves the validator out counts as neither.
func TestCountSigning(t *testing.T) {
	n, _ := metricsDevNode(t)
	waitHead(t, n, 3)
	n.stopConsensusAndWait() // only the blocks below are counted from here
	me := types.Address(crypto.AddressOf(n.cfg.Validator))
	stranger := types.Address{0x99}
	at := func(num uint64, absent ...types.Address) *types.Block {
		d := pos.ConsensusData{Absent: absent}
		return types.NewBlockWithHeader(&types.Header{Number: num, Extra: d.Encode()})
	}
	for _, tc := range []struct {
		name           string
		me             types.Address
		b              *types.Block
		signed, missed float64
	}{
		{"signed", me, at(3), 1, 0},
		{"someone else absent", me, at(3, stranger), 1, 0},
		{"absent", me, at(3, stranger, me), 0, 1},
		{"block 1: the genesis has no certificate", me, at(1, me), 0, 0},
		{"not in the set", stranger, at(3, stranger), 0, 0},
	} {
		s0, m0 := n.chainm.Signed(), n.chainm.Missed()
		n.chainm.CountSigning(tc.me, tc.b)
		s1, m1 := n.chainm.Signed(), n.chainm.Missed()
		if s1-s0 != tc.signed || m1-m0 != tc.missed {
			t.Errorf("%s: signed +%v missed +%v, want +%v +%v", tc.name, s1-s0, m1-m0, tc.signed, tc.missed)
		}
	}
}
