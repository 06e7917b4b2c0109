// Command record runs a one-validator CometBFT v0.38 node with the
// kvstore app built into cometbft, makes a few transactions, and records
// its RPC's answers — JSON-RPC over HTTP, the URI (GET) form and
// WebSocket subscriptions — to every method chaind's cometrpc serves,
// and to the bad requests clients make (a height above the head, an
// unknown hash, a bad query, a bad page...), one golden file per case in
// -out. cometrpc's TestCometGoldens compares chaind's answers with them
// field by field.
//
//	go run . -cometbft $(go env GOPATH)/bin/cometbft -out ..
//
// (../record.sh installs cometbft v0.38.26 and runs this.)
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// Golden is one recorded exchange, the format cometrpc's test reads.
type Golden struct {
	Name      string          `json:"name"`
	Note      string          `json:"note"`
	Transport string          `json:"transport"`        // "http" (JSON-RPC POST), "uri" (GET) or "ws"
	Request   json.RawMessage `json:"request"`          // the body sent, or the URI as a JSON string
	Response  json.RawMessage `json:"response"`         // the answer as received (text that is not JSON as a string)
	Status    int             `json:"status,omitempty"` // the HTTP status (http, uri)
}

var (
	bin = flag.String("cometbft", "", "the cometbft v0.38 binary")
	out = flag.String("out", "..", "where the golden files go")
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *bin == "" {
		log.Fatal("record: -cometbft is needed")
	}
	work, err := os.MkdirTemp("", "cometgold-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	n, err := start(work)
	if err != nil {
		log.Fatal(err)
	}
	defer n.stop()
	if err := record(n); err != nil {
		log.Fatalf("record: %v (node log in %s)", err, filepath.Join(work, "node.log"))
	}
}

type node struct {
	rpc  string // http://127.0.0.1:port
	cmd  *exec.Cmd
	home string
}

func (n *node) stop() {
	n.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		n.cmd.Process.Kill()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start writes a one-validator home (cometbft init), points it at the
// built-in kvstore app and free loopback ports, and starts the node.
func start(work string) (*node, error) {
	home := filepath.Join(work, "home")
	if b, err := exec.Command(*bin, "init", "--home", home).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("init: %v: %s", err, b)
	}
	rpcPort, err := freePort()
	if err != nil {
		return nil, err
	}
	p2pPort, err := freePort()
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(home, "config", "config.toml")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return nil, err
	}
	cfg := string(b)
	for _, r := range [][2]string{
		{`proxy_app = "tcp://127.0.0.1:26658"`, `proxy_app = "kvstore"`},
		{`laddr = "tcp://127.0.0.1:26657"`, fmt.Sprintf(`laddr = "tcp://127.0.0.1:%d"`, rpcPort)},
		{`laddr = "tcp://0.0.0.0:26656"`, fmt.Sprintf(`laddr = "tcp://127.0.0.1:%d"`, p2pPort)},
		{`log_level = "info"`, `log_level = "*:error"`},
		{`timeout_commit = "1s"`, `timeout_commit = "500ms"`},
		{`moniker = "`, `moniker = "cometgold" # was "`},
	} {
		if !strings.Contains(cfg, r[0]) {
			return nil, fmt.Errorf("%s: no line %s to set", cfgPath, r[0])
		}
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(work, "node.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(*bin, "start", "--home", home)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	n := &node{rpc: fmt.Sprintf("http://127.0.0.1:%d", rpcPort), cmd: cmd, home: home}
	if err := n.waitHeight(2, 60*time.Second); err != nil {
		n.stop()
		return nil, err
	}
	return n, nil
}

func (n *node) post(body []byte) (json.RawMessage, error) {
	resp, err := http.Post(n.rpc, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("HTTP %d: not JSON: %.200s", resp.StatusCode, b)
	}
	return b, nil
}

// call makes one JSON-RPC call and returns its result (an error answer
// is an error).
func (n *node) call(method string, params any) (json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	b, err := n.post(body)
	if err != nil {
		return nil, err
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, err
	}
	if len(env.Error) > 0 {
		return nil, fmt.Errorf("%s: %s", method, env.Error)
	}
	return env.Result, nil
}

func (n *node) height() (int64, error) {
	r, err := n.call("status", map[string]any{})
	if err != nil {
		return 0, err
	}
	var st struct {
		SyncInfo struct {
			Height string `json:"latest_block_height"`
		} `json:"sync_info"`
	}
	if err := json.Unmarshal(r, &st); err != nil {
		return 0, err
	}
	return strconv.ParseInt(st.SyncInfo.Height, 10, 64)
}

func (n *node) waitHeight(h int64, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		got, err := n.height()
		if err == nil && got >= h {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("height %d not reached in %v (last: %d, %v)", h, d, got, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// recorder writes the goldens.
type recorder struct {
	n     *node
	names map[string]bool
}

func (r *recorder) save(g Golden) {
	if r.names[g.Name] {
		log.Fatalf("record: two cases named %s", g.Name)
	}
	r.names[g.Name] = true
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, g.Name+".json"), buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// rpc records one JSON-RPC POST of method with params.
func (r *recorder) rpc(name, note, method string, params any) json.RawMessage {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return r.raw(name, note, body)
}

// raw records one POST of body as it is. An answer that is not JSON
// (CometBFT answers a notification with an empty body) is recorded as a
// JSON string of its text.
func (r *recorder) raw(name, note string, body []byte) json.RawMessage {
	hr, err := http.Post(r.n.rpc, "application/json", bytes.NewReader(body))
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	resp, err := io.ReadAll(hr.Body)
	hr.Body.Close()
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	if !json.Valid(resp) {
		resp, _ = json.Marshal(string(resp))
	}
	req := json.RawMessage(body)
	if !json.Valid(body) {
		req, _ = json.Marshal(string(body))
	}
	r.save(Golden{Name: name, Note: note, Transport: "http", Request: req, Response: resp, Status: hr.StatusCode})
	return resp
}

// uri records one GET of the URI form.
func (r *recorder) uri(name, note, path string) {
	resp, err := http.Get(r.n.rpc + path)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	if !json.Valid(b) {
		b, _ = json.Marshal(string(b))
	}
	req, _ := json.Marshal(path)
	r.save(Golden{Name: name, Note: note, Transport: "uri", Request: req, Response: b, Status: resp.StatusCode})
}

// wsClient reads a WebSocket connection's messages: answers by id, and
// the events of each subscription in order.
type wsClient struct {
	c  *websocket.Conn
	mu sync.Mutex
	// answers by request id; events by the subscription's id.
	answers map[string]json.RawMessage
	events  map[string][]json.RawMessage
	err     error
}

func dialWS(ctx context.Context, rpc string) (*wsClient, error) {
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(rpc, "http")+"/websocket", nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(16 << 20)
	w := &wsClient{c: c, answers: map[string]json.RawMessage{}, events: map[string][]json.RawMessage{}}
	go func() {
		for {
			_, b, err := c.Read(ctx)
			w.mu.Lock()
			if err != nil {
				w.err = err
				w.mu.Unlock()
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result struct {
					Query string `json:"query"`
				} `json:"result"`
			}
			json.Unmarshal(b, &m)
			if m.Result.Query != "" {
				w.events[string(m.ID)] = append(w.events[string(m.ID)], b)
			} else {
				w.answers[string(m.ID)] = b
			}
			w.mu.Unlock()
		}
	}()
	return w, nil
}

// ask sends body and waits for the answer to id.
func (w *wsClient) ask(ctx context.Context, id string, body []byte) (json.RawMessage, error) {
	if err := w.c.Write(ctx, websocket.MessageText, body); err != nil {
		return nil, err
	}
	return w.wait(ctx, func() (json.RawMessage, bool) { a, ok := w.answers[id]; return a, ok })
}

func (w *wsClient) wait(ctx context.Context, f func() (json.RawMessage, bool)) (json.RawMessage, error) {
	for {
		w.mu.Lock()
		v, ok := f()
		err := w.err
		w.mu.Unlock()
		if ok {
			return v, nil
		}
		if err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (r *recorder) ws(ctx context.Context, w *wsClient, name, note, id, method string, params any) json.RawMessage {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	resp, err := w.ask(ctx, strconv.Quote(id), body)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	r.save(Golden{Name: name, Note: note, Transport: "ws", Request: body, Response: resp})
	return resp
}

func b64hex(h string) string {
	b, err := hex.DecodeString(h)
	if err != nil {
		log.Fatalf("hash %q: %v", h, err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func field(raw json.RawMessage, path ...string) string {
	var v any
	json.Unmarshal(raw, &v)
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

func record(n *node) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	r := &recorder{n: n, names: map[string]bool{}}
	tx := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

	// Subscriptions first, so the events of the transactions below
	// reach them.
	w, err := dialWS(ctx, n.rpc)
	if err != nil {
		return err
	}
	defer w.c.CloseNow()
	r.ws(ctx, w, "ws_subscribe", "subscribe to NewBlock: the answer", "sub-block", "subscribe", map[string]any{"query": "tm.event='NewBlock'"})
	r.ws(ctx, w, "ws_subscribe_tx", "subscribe to Tx: the answer", "sub-tx", "subscribe", map[string]any{"query": "tm.event='Tx'"})
	r.ws(ctx, w, "ws_subscribe_twice", "the same subscription again", "sub-again", "subscribe", map[string]any{"query": "tm.event='Tx'"})
	r.ws(ctx, w, "ws_subscribe_bad_query", "subscribe with a query that does not parse", "sub-bad", "subscribe", map[string]any{"query": "tm.event='NewBlock' AND"})
	r.ws(ctx, w, "ws_status", "an ordinary method over WebSocket", "st", "status", map[string]any{})

	// Transactions: kvstore takes key=value.
	commit := r.rpc("broadcast_tx_commit", "a transaction committed", "broadcast_tx_commit", map[string]any{"tx": tx("name=satoshi")})
	txHash := field(commit, "result", "hash")
	h, err := strconv.ParseInt(field(commit, "result", "height"), 10, 64)
	if err != nil || txHash == "" {
		return fmt.Errorf("broadcast_tx_commit: no height or hash in %s", commit)
	}
	r.rpc("broadcast_tx_sync", "a transaction checked and pooled", "broadcast_tx_sync", map[string]any{"tx": tx("k2=v2")})
	r.rpc("broadcast_tx_async", "a transaction pooled unchecked", "broadcast_tx_async", map[string]any{"tx": tx("k3=v3")})
	r.rpc("broadcast_tx_sync_rejected", "a transaction the app refuses (code 1)", "broadcast_tx_sync", map[string]any{"tx": tx("novalue")})
	r.rpc("check_tx", "check_tx of a good transaction", "check_tx", map[string]any{"tx": tx("k4=v4")})
	r.rpc("broadcast_tx_commit_dup", "a transaction already in the cache", "broadcast_tx_commit", map[string]any{"tx": tx("name=satoshi")})

	// Let the chain move on past h, so h has a canonical commit and the
	// events of h reached the subscribers.
	if err := n.waitHeight(h+2, 30*time.Second); err != nil {
		return err
	}
	hs := strconv.FormatInt(h, 10)
	block := r.rpc("block", "a block with a transaction", "block", map[string]any{"height": hs})
	blockHash := field(block, "result", "block_id", "hash")
	r.rpc("block_latest", "block without a height: the head", "block", map[string]any{})
	r.rpc("block_by_hash", "block_by_hash of that block", "block_by_hash", map[string]any{"hash": b64hex(blockHash)})
	unknown := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32))
	r.rpc("block_by_hash_unknown", "block_by_hash of no block", "block_by_hash", map[string]any{"hash": unknown})
	r.rpc("block_by_hash_bad", "block_by_hash of a hash that is not base64", "block_by_hash", map[string]any{"hash": "not base64!"})
	r.rpc("block_results", "the results of that block", "block_results", map[string]any{"height": hs})
	r.rpc("blockchain", "block metas 1 to h", "blockchain", map[string]any{"minHeight": "1", "maxHeight": hs})
	r.rpc("blockchain_bad_range", "min above max", "blockchain", map[string]any{"minHeight": hs, "maxHeight": "1"})
	r.rpc("commit", "the canonical commit of h", "commit", map[string]any{"height": hs})
	r.rpc("commit_latest", "the head's commit (not canonical yet)", "commit", map[string]any{})
	r.rpc("header", "the header of h", "header", map[string]any{"height": hs})
	// header_by_hash's hash is HexBytes in CometBFT (hex in JSON), where
	// block_by_hash's is []byte (base64).
	r.rpc("header_by_hash", "header_by_hash of h's hash (hex)", "header_by_hash", map[string]any{"hash": blockHash})
	r.rpc("header_by_hash_unknown", "header_by_hash of no block", "header_by_hash", map[string]any{"hash": strings.Repeat("AB", 32)})
	r.rpc("header_by_hash_base64", "header_by_hash given base64, as block_by_hash takes it", "header_by_hash", map[string]any{"hash": b64hex(blockHash)})
	r.rpc("validators", "the validators at h", "validators", map[string]any{"height": hs})
	r.rpc("validators_bad_page", "a page past the last", "validators", map[string]any{"height": hs, "page": "5"})
	r.rpc("consensus_params", "the consensus params at h", "consensus_params", map[string]any{"height": hs})
	r.rpc("genesis", "the genesis document", "genesis", map[string]any{})
	r.rpc("genesis_chunked", "the genesis, chunk 0", "genesis_chunked", map[string]any{"chunk": "0"})
	r.rpc("genesis_chunked_bad", "a chunk past the last", "genesis_chunked", map[string]any{"chunk": "9"})
	r.rpc("tx", "the committed transaction by hash", "tx", map[string]any{"hash": b64hex(txHash)})
	r.rpc("tx_unknown", "a hash of no transaction", "tx", map[string]any{"hash": unknown})
	r.rpc("tx_search", "transactions at h", "tx_search", map[string]any{"query": "tx.height=" + hs})
	r.rpc("tx_search_none", "a search matching nothing", "tx_search", map[string]any{"query": "tx.height=1"})
	r.rpc("tx_search_bad_query", "a query that does not parse", "tx_search", map[string]any{"query": "tx.height=="})
	r.rpc("tx_search_bad_page", "a page past the last", "tx_search", map[string]any{"query": "tx.height=" + hs, "page": "3"})
	r.rpc("block_search", "blocks at h", "block_search", map[string]any{"query": "block.height=" + hs})
	r.rpc("block_search_bad_query", "a query that does not parse", "block_search", map[string]any{"query": "block.height>>"})
	r.rpc("unconfirmed_txs", "the pool", "unconfirmed_txs", map[string]any{})
	r.rpc("num_unconfirmed_txs", "the pool's size", "num_unconfirmed_txs", map[string]any{})
	r.rpc("health", "health", "health", map[string]any{})
	r.rpc("status", "status", "status", map[string]any{})
	r.rpc("net_info", "net_info", "net_info", map[string]any{})
	r.rpc("abci_info", "abci_info", "abci_info", map[string]any{})
	r.rpc("abci_query", "a key the app has", "abci_query", map[string]any{"path": "", "data": hex.EncodeToString([]byte("name"))})
	r.rpc("abci_query_missing", "a key the app does not have", "abci_query", map[string]any{"path": "", "data": hex.EncodeToString([]byte("nokey"))})
	r.rpc("abci_query_bad_data", "data that is not hex", "abci_query", map[string]any{"path": "", "data": "zz"})

	// Errors of every kind.
	r.rpc("block_height_high", "a height above the head", "block", map[string]any{"height": "100000"})
	r.rpc("block_height_zero", "height 0", "block", map[string]any{"height": "0"})
	r.rpc("block_height_negative", "a negative height", "block", map[string]any{"height": "-1"})
	r.rpc("block_height_text", "a height that is not a number", "block", map[string]any{"height": "abc"})
	r.rpc("block_positional", "positional params", "block", []any{hs})
	r.rpc("method_unknown", "a method that does not exist", "no_such_method", map[string]any{})
	r.rpc("subscribe_http", "subscribe over HTTP", "subscribe", map[string]any{"query": "tm.event='NewBlock'"})
	r.raw("parse_error", "a body that is not JSON", []byte(`{"jsonrpc":"2.0","id":1,"method":`))
	r.raw("batch", "a batch of two calls", []byte(`[{"jsonrpc":"2.0","id":1,"method":"health"},{"jsonrpc":"2.0","id":2,"method":"header","params":{"height":"`+hs+`"}}]`))
	r.raw("no_id", "a call without an id (a notification)", []byte(`{"jsonrpc":"2.0","method":"health"}`))

	// The URI form.
	r.uri("uri_block", "GET /block?height=h", "/block?height="+hs)
	r.uri("uri_tx", "GET /tx?hash=0x...", "/tx?hash=0x"+txHash)
	r.uri("uri_block_height_high", "GET with a height above the head", "/block?height=100000")
	r.uri("uri_unknown", "GET of a method that does not exist", "/no_such_method")

	// The events the subscriptions received: the NewBlock of h (which
	// holds the transaction) and the transaction's Tx event.
	ev, err := w.wait(ctx, func() (json.RawMessage, bool) {
		for _, e := range w.events[`"sub-block"`] {
			if strings.Contains(string(e), `"height":"`+hs+`"`) {
				return e, true
			}
		}
		return nil, false
	})
	if err != nil {
		return fmt.Errorf("NewBlock event of %d: %w", h, err)
	}
	r.save(Golden{Name: "ws_event_new_block", Note: "the NewBlock event of h", Transport: "ws", Request: json.RawMessage(`null`), Response: ev})
	ev, err = w.wait(ctx, func() (json.RawMessage, bool) {
		e := w.events[`"sub-tx"`]
		if len(e) == 0 {
			return nil, false
		}
		return e[0], true
	})
	if err != nil {
		return fmt.Errorf("Tx event: %w", err)
	}
	r.save(Golden{Name: "ws_event_tx", Note: "the Tx event of the committed transaction", Transport: "ws", Request: json.RawMessage(`null`), Response: ev})
	r.ws(ctx, w, "ws_unsubscribe", "unsubscribe from Tx", "unsub", "unsubscribe", map[string]any{"query": "tm.event='Tx'"})
	r.ws(ctx, w, "ws_unsubscribe_unknown", "unsubscribe from a query not subscribed", "unsub-none", "unsubscribe", map[string]any{"query": "tm.event='Tx'"})
	r.ws(ctx, w, "ws_unsubscribe_all", "unsubscribe from everything", "unsub-all", "unsubscribe_all", map[string]any{})

	ver, err := exec.Command(*bin, "version").Output()
	if err != nil {
		return err
	}
	info, err := n.call("abci_info", map[string]any{})
	if err != nil {
		return err
	}
	meta := map[string]any{
		"cometbft":       strings.TrimSpace(string(ver)),
		"app":            "kvstore (built into cometbft: proxy_app = \"kvstore\")",
		"abci_info":      info,
		"recorded":       time.Now().UTC().Format(time.RFC3339),
		"recorder_go":    runtime.Version(),
		"height_with_tx": h,
		"cases":          len(r.names),
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "VERSIONS.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	log.Printf("record: %d cases recorded in %s (cometbft %s, block %d holds the transaction)", len(r.names), *out, strings.TrimSpace(string(ver)), h)
	return nil
}
