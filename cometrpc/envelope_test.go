package cometrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// quickRequest reads the requests cosmjs sends and gives up on every
// other shape, leaving it to encoding/json.
func TestQuickRequest(t *testing.T) {
	cases := []struct {
		body string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":12,"method":"abci_query","params":{"path":"/cosmos.bank.v1beta1.Query/Balance","data":"0a2c","prove":false}}`, true},
		{` { "jsonrpc" : "2.0" , "id" : "x" , "method" : "status" } `, true},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":null}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":5}}`, true},
		{`{"jsonrpc":"2.0","method":"health"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":["5"]}`, false},         // positional
		{`{"jsonrpc":"2.0","id":1,"Method":"block"}`, false},                        // case-folded key
		{`{"jsonrpc":"2.0","id":1,"method":"block","extra":1}`, false},              // unknown key
		{`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, false},               // duplicate
		{`{"jsonrpc":"2.0","id":1,"method":"b\u006c"}`, false},                      // escape
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"h":{"x":1}}}`, false}, // nested
		{`{"jsonrpc":"2.0","id":01,"method":"block"}`, false},                       // bad number
		{`{"jsonrpc":"2.0","id":1,"method":"block"} x`, false},                      // trailing text
		{`{"jsonrpc":"2.0","id":1,"method":"block"`, false},                         // cut short
	}
	for _, tc := range cases {
		_, _, ok := quickRequest([]byte(tc.body))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.body, ok, tc.ok)
		}
		if ok {
			checkQuick(t, []byte(tc.body))
		}
	}
}

// checkQuick fails unless encoding/json reads body as quickRequest did.
func checkQuick(t *testing.T, body []byte) {
	t.Helper()
	req, p, ok := quickRequest(body)
	if !ok {
		return
	}
	var want request
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("%s: quickRequest read what encoding/json refuses: %v", body, err)
	}
	wp, err := objectParams(want.Method, want.Params)
	if err != nil {
		t.Fatalf("%s: quickRequest read params objectParams refuses: %v", body, err)
	}
	if req.JSONRPC != want.JSONRPC || req.Method != want.Method || !bytes.Equal(req.ID, want.ID) {
		t.Fatalf("%s: read %q %q %s, encoding/json %q %q %s", body, req.JSONRPC, req.Method, req.ID, want.JSONRPC, want.Method, want.ID)
	}
	if len(p) != len(wp) {
		t.Fatalf("%s: params %v, encoding/json's %v", body, p, wp)
	}
	for k, v := range wp {
		if !bytes.Equal(p[k], v) {
			t.Fatalf("%s: param %s = %s, encoding/json's %s", body, k, p[k], v)
		}
		// The string fast path reads what encoding/json reads.
		var ws string
		if json.Unmarshal(v, &ws) == nil {
			if gs, err := p.stringParam(k); err != nil || gs != ws {
				t.Fatalf("%s: %s read as %q (%v), encoding/json %q", body, k, gs, err, ws)
			}
		}
	}
}

func FuzzQuickRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":12,"method":"abci_query","params":{"path":"/p","data":"0a","height":"0","prove":false}}`,
		`{"jsonrpc":"2.0","id":"a","method":"status","params":{}}`,
		`{"jsonrpc":"2.0","method":"health","params":null}`,
		`{"id":-1.5e3,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":true}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkQuick(t, body) })
}
