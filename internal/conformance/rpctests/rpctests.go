// Package rpctests runs the execution-apis JSON-RPC conformance cases
// (hive's rpc-compat format): it loads genesis.json and chain.rlp of a
// folder into a fresh in-memory node, replays every .io exchange over HTTP
// in lexical order and compares each response with the recorded one as
// JSON values.
package rpctests

import (
	"bufio"
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

// newerSpecFields are fields a later version of the execution-apis
// specification added to objects. A node follows the newer specification,
// so when comparing with an older snapshot whose expected object lacks one
// of these, the field is ignored. The list is explicit on purpose: no
// other extra field is ever forgiven.
var newerSpecFields = map[string]bool{
	"blockTimestamp": true, // logs carry their block's timestamp (execution-apis after 2025-01)
	// Block objects carry totalDifficulty: the JSON-RPC specification's
	// block object lists it and older tools read it, while go-ethereum,
	// which recorded the vectors, stopped serving it. The one field a node
	// adds beyond the recordings on purpose.
	"totalDifficulty": true,
}

// newerSpecErrorCodes are error codes a later version of the execution-apis
// specification changed, by method: old code -> new code. A node follows
// the newer specification, so when an older snapshot expects the old code
// for that method, the new one is accepted instead. Explicit on purpose:
// no other code is ever forgiven.
var newerSpecErrorCodes = map[string]map[int64]int64{
	// An invalid storage key is invalid params (-32602) in the newest
	// snapshot; the Cancun-era one recorded go-ethereum's old -32000.
	"eth_getStorageAt": {-32000: -32602},
}

// staleVectors are cases whose recorded response contradicts the chain the
// same folder ships, so no correct node can reproduce them. They are keyed
// by the SHA-256 of the .io file, so a corrected file runs again, and are
// reported as skipped with the reason, never as passed.
var staleVectors = map[string]string{
	// eth_feeHistory/fee-history.io of the Cancun-era snapshot expects
	// blobGasUsedRatio 0.5 for block 2 and a next blob base fee of 2, but
	// block 2 of its chain.rlp carries no blob transaction (its header's
	// blobGasUsed is 0x0, as eth_getBlockByNumber/get-block-n.io records),
	// no block of that chain holds more than one blob, and every excess
	// blob gas is 0.
	"dc974c413dfafc9f455b927c5c55c6125e7ac2b487b35c14cce882c7aa0b7e66": "recorded response contradicts chain.rlp: block 2 has blobGasUsed 0 (see get-block-n.io), the case expects blobGasUsedRatio 0.5",
}

// Run runs the cases below dir (a folder with genesis.json, chain.rlp and
// <method>/<case>.io files).
func Run(dir string, args []string, rep *conformance.Report) error {
	fs := flag.NewFlagSet("rpc", flag.ContinueOnError)
	runRe := fs.String("run", "", "only cases whose method/case path matches this regexp")
	if err := conformance.ParseFlags(fs, args); err != nil {
		return err
	}
	re, err := regexp.Compile(*runRe)
	if err != nil {
		return err
	}
	g, err := chain.LoadGenesis(filepath.Join(dir, "genesis.json"))
	if err != nil {
		return err
	}
	n, err := node.New(node.Config{Genesis: g, HTTPPort: -1, WSPort: -1, ClientVersion: "chaind/conformance"})
	if err != nil {
		return err
	}
	defer n.Close()
	if _, err := n.ImportFile(filepath.Join(dir, "chain.rlp"), nil); err != nil {
		return fmt.Errorf("import chain.rlp: %w", err)
	}
	if want, ok := headFromFCU(filepath.Join(dir, "headfcu.json")); ok && n.Chain.Head().Hash().Hex() != want {
		return fmt.Errorf("imported head %s differs from headfcu.json's %s", n.Chain.Head().Hash(), want)
	}
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()

	files, err := conformance.FilesWithSuffix(dir, ".io")
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".io")
		if !re.MatchString(name) {
			continue
		}
		runCase(srv.URL, f, name, rep)
	}
	return nil
}

func headFromFCU(path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var fcu struct {
		Params []struct {
			HeadBlockHash string `json:"headBlockHash"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &fcu) != nil || len(fcu.Params) == 0 {
		return "", false
	}
	return strings.ToLower(fcu.Params[0].HeadBlockHash), true
}

type exchange struct{ req, resp string }

func parseIO(path string) (exchanges []exchange, speconly bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "//"):
			if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(line, "//")), "speconly:") {
				speconly = true
			}
		case strings.HasPrefix(line, ">>"):
			exchanges = append(exchanges, exchange{req: strings.TrimSpace(line[2:])})
		case strings.HasPrefix(line, "<<"):
			if len(exchanges) == 0 || exchanges[len(exchanges)-1].resp != "" {
				return nil, false, fmt.Errorf("response without request")
			}
			exchanges[len(exchanges)-1].resp = strings.TrimSpace(line[2:])
		}
	}
	return exchanges, speconly, sc.Err()
}

func runCase(url, path, name string, rep *conformance.Report) {
	if raw, err := os.ReadFile(path); err == nil {
		sum := sha256.Sum256(raw)
		if why, ok := staleVectors[hex.EncodeToString(sum[:])]; ok {
			rep.Skip(name, why)
			return
		}
	}
	exs, speconly, err := parseIO(path)
	if err != nil {
		rep.Fail(name, "cannot read case: %v", err)
		return
	}
	for i, ex := range exs {
		resp, err := http.Post(url, "application/json", strings.NewReader(ex.req))
		if err != nil {
			rep.Fail(name, "request %d: %v", i, err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if speconly {
			// Only the result schema applies, and it is not shipped; but
			// no result schema admits an error object or a body that is
			// not JSON, so those fail without it.
			if why := SchemaOnlyMismatch(ex.resp, body); why != "" {
				rep.Fail(name, "exchange %d: %s", i, why)
				return
			}
			continue // the state change of the request still happens
		}
		if diff := Compare(newerSpecResponse(ex.req, ex.resp), body); diff != "" {
			rep.Fail(name, "exchange %d: %s", i, diff)
			return
		}
	}
	if speconly {
		rep.Skip(name, "speconly: only a schema check applies and the OpenRPC schema is not shipped with the vectors")
		return
	}
	rep.Pass(name)
}

// SchemaOnlyMismatch judges a response to a speconly exchange as far as
// that is possible without the method's schema: when a result was
// recorded, the response must be a JSON-RPC object with a result and no
// error. It returns "" when nothing can be said against the response.
func SchemaOnlyMismatch(expected string, actual []byte) string {
	var want map[string]json.RawMessage
	if json.Unmarshal([]byte(expected), &want) != nil {
		return "" // nothing recorded to hold the response to
	}
	if _, ok := want["result"]; !ok {
		return ""
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(actual, &got); err != nil {
		return fmt.Sprintf("response is not a JSON object: %v: %.200s", err, actual)
	}
	if e, ok := got["error"]; ok && string(e) != "null" {
		return fmt.Sprintf("error %.300s where the case records a result", e)
	}
	if _, ok := got["result"]; !ok {
		return fmt.Sprintf("no result in %.300s", actual)
	}
	return ""
}

// newerSpecResponse returns the expected response with an error code the
// newer specification changed for the request's method replaced by the new
// code; any other response is returned as it is.
func newerSpecResponse(req, resp string) string {
	var r struct {
		Method string `json:"method"`
	}
	if json.Unmarshal([]byte(req), &r) != nil || newerSpecErrorCodes[r.Method] == nil {
		return resp
	}
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(resp))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return resp
	}
	e, ok := obj["error"].(map[string]any)
	if !ok {
		return resp
	}
	num, ok := e["code"].(json.Number)
	if !ok {
		return resp
	}
	code, err := num.Int64()
	if err != nil {
		return resp
	}
	if to, ok := newerSpecErrorCodes[r.Method][code]; ok {
		e["code"] = to
		if out, err := json.Marshal(obj); err == nil {
			return string(out)
		}
	}
	return resp
}

// Compare compares an expected and an actual response as JSON values with
// hive's rules: when both carry an error object, its message is not
// compared. It returns "" when they match, else a short description.
func Compare(expected string, actual []byte) string {
	var want, got any
	if err := json.Unmarshal([]byte(expected), &want); err != nil {
		return "expected response is not JSON: " + err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(actual))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		return fmt.Sprintf("response is not JSON: %v: %.200s", err, actual)
	}
	wdec := json.NewDecoder(strings.NewReader(expected))
	wdec.UseNumber()
	wdec.Decode(&want)
	if path, ok := equal(want, got, "$"); !ok {
		return fmt.Sprintf("differs at %s\n  want %.400s\n  got  %.400s", path, expected, actual)
	}
	return ""
}

func equal(want, got any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		we, wok := w["error"].(map[string]any)
		ge, gok := g["error"].(map[string]any)
		if wok && gok {
			we, ge = without(we, "message"), without(ge, "message")
			if p, ok := equal(any(we), any(ge), path+".error"); !ok {
				return p, false
			}
		}
		for k, wv := range w {
			if k == "error" && wok && gok {
				continue
			}
			gv, ok := g[k]
			if !ok {
				return path + "." + k + " (missing)", false
			}
			if p, ok := equal(wv, gv, path+"."+k); !ok {
				return p, false
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok && !newerSpecFields[k] {
				return path + "." + k + " (unexpected)", false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path + " (length)", false
		}
		for i := range w {
			if p, ok := equal(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(want, got)
}

func without(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
