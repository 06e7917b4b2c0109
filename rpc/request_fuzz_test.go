package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

// fuzzServer is a server with methods shaped like the Ethereum ones (fixed
// and open arity, a failing one, a large result) and no chain behind it, so
// FuzzHandleMessage exercises the request decoder, batching and dispatch.
func fuzzServer() *Server {
	s := NewServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.BatchLimit = 20
	s.ResponseLimit = 4 << 10
	s.Register("echo", 0, -1, func(_ context.Context, p Params) (any, error) { return p, nil })
	s.Register("pair", 1, 2, func(_ context.Context, p Params) (any, error) {
		var a quantity
		if err := p.Decode(0, &a); err != nil {
			return nil, err
		}
		var b string
		if _, err := p.Optional(1, &b); err != nil {
			return nil, err
		}
		return []any{a, b}, nil
	})
	s.Register("fail", 0, 0, func(context.Context, Params) (any, error) { return nil, errors.New("nonce too low") })
	s.Register("big", 0, 1, func(_ context.Context, p Params) (any, error) {
		var n uint16
		p.Optional(0, &n)
		return strings.Repeat("x", int(n)), nil
	})
	return s
}

// wantResponse checks one response object: JSON-RPC 2.0, an id, and exactly
// one of result and error; an error has a code and a message and is never
// the internal error a recovered panic or an unencodable result produces.
func wantResponse(t *testing.T, raw json.RawMessage) (id json.RawMessage) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("response is not an object: %v: %s", err, raw)
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		t.Fatalf("jsonrpc = %s: %s", m["jsonrpc"], raw)
	}
	id, ok := m["id"]
	if !ok {
		t.Fatalf("response without id: %s", raw)
	}
	_, hasResult := m["result"]
	e, hasError := m["error"]
	if hasResult == hasError {
		t.Fatalf("want exactly one of result and error: %s", raw)
	}
	if hasError {
		var eo struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(e, &eo); err != nil || eo.Code == 0 || eo.Message == "" {
			t.Fatalf("malformed error object: %s", raw)
		}
		if eo.Code == CodeInternal {
			t.Fatalf("internal error (a recovered panic or an unencodable result): %s", raw)
		}
	}
	for k := range m {
		switch k {
		case "jsonrpc", "id", "result", "error":
		default:
			t.Fatalf("unexpected member %q: %s", k, raw)
		}
	}
	return id
}

// expectsReply reports whether a single request object must be answered: it
// is not a well-formed notification (which is answered with nothing).
func expectsReply(msg []byte) bool {
	var r map[string]json.RawMessage
	if json.Unmarshal(msg, &r) != nil {
		return true // malformed: answered with an error
	}
	_, hasID := r["id"]
	if hasID {
		return true
	}
	var req request
	if json.Unmarshal(msg, &req) != nil || req.JSONRPC != "2.0" || req.Method == "" {
		return true // invalid request: answered even without an id
	}
	return false
}

func FuzzRequestDecoder(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,"a",null,{"b":[]}]}`,
		`{"jsonrpc":"2.0","id":"x","method":"pair","params":["0x10"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"pair","params":["0x10","s",null,null]}`,
		`{"jsonrpc":"2.0","id":3,"method":"pair","params":[16]}`,
		`{"jsonrpc":"2.0","id":4,"method":"pair","params":{"a":1}}`,
		`{"jsonrpc":"2.0","id":5,"method":"pair"}`,
		`{"jsonrpc":"2.0","id":6,"method":"fail"}`,
		`{"jsonrpc":"2.0","id":7,"method":"big","params":[5000]}`,
		`{"jsonrpc":"2.0","id":null,"method":"nope"}`,
		`{"jsonrpc":"2.0","method":"echo"}`,
		`{"jsonrpc":"1.0","id":1,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":{},"method":"echo"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":-0.5,"method":1}`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"echo"},1,[],"x"]`,
		`[{"jsonrpc":"2.0","id":1,"method":"big","params":[3000]},{"jsonrpc":"2.0","id":2,"method":"big","params":[3000]}]`,
		`[{"jsonrpc":"2.0","method":"echo"}]`,
		`[]`, `[1]`, `[[]]`, `{}`, `null`, `"x"`, `1`, ``, ` `, `{"jsonrpc":"2.0",`, "\x00", `{"id":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":"\ud800"}`,
		`{"jsonrpc":"2.0","id":1,"method":"echo","method":"fail"}`,
	} {
		f.Add([]byte(seed))
	}
	s := fuzzServer()
	f.Fuzz(func(t *testing.T, msg []byte) {
		out := s.HandleMessage(context.Background(), msg)
		trimmed := bytes.TrimSpace(msg)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			var items []json.RawMessage
			isBatch := json.Unmarshal(trimmed, &items) == nil && len(items) > 0 && len(items) <= s.BatchLimit
			if !isBatch {
				if out == nil {
					t.Fatalf("no answer to a malformed, empty or oversized batch %q", msg)
				}
				wantResponse(t, out)
				return
			}
			replies := 0
			for _, it := range items {
				if expectsReply(it) {
					replies++
				}
			}
			if replies == 0 {
				if out != nil {
					t.Fatalf("answer to a batch of notifications %q: %s", msg, out)
				}
				return
			}
			var got []json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("batch answer is not an array: %v: %s", err, out)
			}
			if len(got) != replies {
				t.Fatalf("%d answers to a batch needing %d: %q -> %s", len(got), replies, msg, out)
			}
			for _, r := range got {
				wantResponse(t, r)
			}
			return
		}
		if !expectsReply(trimmed) {
			if out != nil {
				t.Fatalf("answer to a notification %q: %s", msg, out)
			}
			return
		}
		if out == nil {
			t.Fatalf("no answer to %q", msg)
		}
		id := wantResponse(t, out)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(trimmed, &req) == nil && req.ID != nil && validID(req.ID) && string(id) != "null" {
			var a, b any
			json.Unmarshal(req.ID, &a)
			json.Unmarshal(id, &b)
			if a != b {
				t.Fatalf("id %s answered as %s", req.ID, id)
			}
		}
	})
}

// quantity decodes itself from a hex string, as the Ethereum parameter
// types do.
type quantity uint64

func (q *quantity) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if !strings.HasPrefix(s, "0x") {
		return errors.New("hex string without 0x prefix")
	}
	n, err := strconv.ParseUint(s[2:], 16, 64)
	*q = quantity(n)
	return err
}
