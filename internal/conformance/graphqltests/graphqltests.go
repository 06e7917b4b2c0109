// Package graphqltests runs hive's GraphQL suite (EIP-1767): it imports a
// folder's genesis and chain into a fresh in-memory node, posts every
// case's query to /graphql in file order and judges the answer as hive
// does: the HTTP status must match; a matching non-200 status passes
// without a look at the body; otherwise the body must equal one of the
// recorded responses as a JSON value.
package graphqltests

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/node"
)

// heldOut are cases whose recorded answer depends on a case that is not
// in the folder, so no node can reproduce it from the folder alone. They
// are keyed by the SHA-256 of the case file (a changed file runs again)
// and reported as skipped with the reason, never as passed.
var heldOut = map[string]string{
	// 35_graphql_pending.json expects one pending transaction with nonce
	// 0x32 and gas 0xfffff: the contract creation that hive's case
	// 34_eth_sendRawTransaction_contractCreation sends just before it
	// (without case 34 nothing is pending at all). Even with case 34 the
	// recorded answer is not an Ethereum node's: the sender's nonce at the
	// head is 0x22, so nonce 0x32 waits behind a gap and cannot be in a
	// pending block, and it records 0x5208 as the estimate for a contract
	// creation, a pre-Homestead cost, where the pending block follows
	// Cancun.
	"451d417ba69796ed87a3a471f0a352ade088f3724211774c7d225e48218f3598": "expects case 34's contract creation (nonce 0x32, behind a nonce gap: the sender is at 0x22) in the pending block, with a pre-Homestead gas estimate",
}

type testCase struct {
	Request    string            `json:"request"`
	Responses  []json.RawMessage `json:"responses"`
	StatusCode int               `json:"statusCode"`
}

// Run runs the cases of dir (init/testGenesis.json,
// init/testBlockchain.blocks and testcases/*.json).
func Run(dir string, args []string, rep *conformance.Report) error {
	fs := flag.NewFlagSet("graphql", flag.ContinueOnError)
	runRe := fs.String("run", "", "only cases whose file name matches this regexp")
	if err := conformance.ParseFlags(fs, args); err != nil {
		return err
	}
	re, err := regexp.Compile(*runRe)
	if err != nil {
		return err
	}
	g, err := chain.LoadGenesis(filepath.Join(dir, "init", "testGenesis.json"))
	if err != nil {
		return err
	}
	// Hive runs go-ethereum with --rpc.allow-unprotected-txs: two cases
	// send pre-EIP-155 transactions (its chain ID is 1).
	n, err := node.New(node.Config{Genesis: g, HTTPPort: -1, WSPort: -1, ClientVersion: "chaind/conformance", AllowUnprotectedTxs: true})
	if err != nil {
		return err
	}
	defer n.Close()
	if _, err := n.ImportFile(filepath.Join(dir, "init", "testBlockchain.blocks"), nil); err != nil {
		return fmt.Errorf("import testBlockchain.blocks: %w", err)
	}
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()

	files, err := filepath.Glob(filepath.Join(dir, "testcases", "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no cases in %s", filepath.Join(dir, "testcases"))
	}
	sort.Strings(files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if !re.MatchString(name) {
			continue
		}
		runCase(srv.URL+"/graphql", f, name, rep)
	}
	return nil
}

func runCase(url, path, name string, rep *conformance.Report) {
	raw, err := os.ReadFile(path)
	if err != nil {
		rep.Fail(name, "cannot read case: %v", err)
		return
	}
	sum := sha256.Sum256(raw)
	if why, ok := heldOut[hex.EncodeToString(sum[:])]; ok {
		rep.Skip(name, why)
		return
	}
	var tc testCase
	if err := json.Unmarshal(raw, &tc); err != nil {
		rep.Fail(name, "cannot parse case: %v", err)
		return
	}
	body, _ := json.Marshal(map[string]string{"query": tc.Request})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		rep.Fail(name, "request: %v", err)
		return
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != tc.StatusCode {
		rep.Fail(name, "HTTP status %d, want %d\n  body: %.600s", resp.StatusCode, tc.StatusCode, got)
		return
	}
	if tc.StatusCode != http.StatusOK {
		rep.Pass(name) // hive does not look at the body of an expected error
		return
	}
	var diffs []string
	for i, want := range tc.Responses {
		d := Diff(want, got)
		if d == "" {
			rep.Pass(name)
			return
		}
		diffs = append(diffs, fmt.Sprintf("response %d: %s", i, d))
	}
	rep.Fail(name, "body matches none of the %d recorded responses:\n  %s", len(tc.Responses), strings.Join(diffs, "\n  "))
}

// Diff compares an expected and an actual body as JSON values and
// describes the first difference, or returns "" when they are equal.
func Diff(want, got []byte) string {
	var w, g any
	if err := decode(want, &w); err != nil {
		return "recorded response is not JSON: " + err.Error()
	}
	if err := decode(got, &g); err != nil {
		return fmt.Sprintf("body is not JSON: %v: %.300s", err, got)
	}
	return diff(w, g, "$")
}

func decode(b []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func diff(want, got any, path string) string {
	show := func(v any) string {
		b, _ := json.Marshal(v)
		if len(b) > 300 {
			return string(b[:300]) + "…"
		}
		return string(b)
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %s: want %s, got %s", path, show(want), show(got))
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("at %s.%s: missing, want %s", path, k, show(w[k]))
			}
			if d := diff(w[k], gv, path+"."+k); d != "" {
				return d
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("at %s.%s: unexpected %s", path, k, show(g[k]))
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("at %s: want %s, got %s", path, show(want), show(got))
		}
		for i := range w {
			if d := diff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Sprintf("at %s: want %s, got %s", path, show(want), show(got))
	}
	return ""
}
