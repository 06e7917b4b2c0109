package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// TestBenchLoadOutput: bench rpc and bench graphql print the checked first
// answer, one line a run and, with more than one run, the medians; an
// answer that fails the protocol's check after the first makes the exit
// code 1 and is quoted.
func TestBenchLoadOutput(t *testing.T) {
	// good answers the first request of a server well, the rest as bad
	// says.
	serve := func(good, bad string, failAfterFirst bool) string {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			if n.Add(1) > 1 && failAfterFirst {
				io.WriteString(w, bad)
				return
			}
			io.WriteString(w, good)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	const lat = `\d+\.\d{3}ms`
	result := `\d+ requests in \d+\.\ds: \d+ req/s  p50 ` + lat + `  p99 ` + lat + `  max ` + lat + `  errors %s  \(p90 ` + lat + `  p99\.9 ` + lat + `\)`
	rpcOK := `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`
	rpcErr := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}`
	gqlOK := `{"data":{"block":{"number":"0x1"}}}`
	gqlErr := `{"errors":[{"message":"boom"}]}`
	load := []string{"--conns", "2", "--duration", "50ms", "--warmup", "0"}
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		lines []string // regexps, one a line of standard output
	}{
		{"rpc", append([]string{"bench", "rpc", "--url", serve(rpcOK, "", false), "--runs", "3"}, load...), 0, []string{
			`^eth_blockNumber \[\] -> "0x2a"$`,
			`^run 1: ` + sprintf(result, "0") + `$`,
			`^run 2: ` + sprintf(result, "0") + `$`,
			`^run 3: ` + sprintf(result, "0") + `$`,
			`^median of 3: ` + sprintf(result, "0") + `$`,
		}},
		{"graphql", append([]string{"bench", "graphql", "--url", serve(gqlOK, "", false) + "/graphql", "--query", "{ block { number } }", "--runs", "2"}, load...), 0, []string{
			`^\{ block \{ number \} \} -> \{"data":\{"block":\{"number":"0x1"\}\}\}$`,
			`^run 1: ` + sprintf(result, "0") + `$`,
			`^run 2: ` + sprintf(result, "0") + `$`,
			`^median of 2: ` + sprintf(result, "0") + `$`,
		}},
		{"rpc, errors", append([]string{"bench", "rpc", "--url", serve(rpcOK, rpcErr, true)}, load...), 1, []string{
			`^eth_blockNumber \[\] -> "0x2a"$`,
			`^run 1: ` + sprintf(result, `[1-9]\d*`) + regexp.QuoteMeta(` (first: answer `+rpcErr+`)`) + `$`,
		}},
		{"graphql, errors", append([]string{"bench", "graphql", "--url", serve(gqlOK, gqlErr, true), "--query", "{ block { number } }"}, load...), 1, []string{
			`^\{ block \{ number \} \} -> `,
			`^run 1: ` + sprintf(result, `[1-9]\d*`) + regexp.QuoteMeta(` (first: answer `+gqlErr+`)`) + `$`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runChaind(t, tc.args...)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if code != tc.code || len(lines) != len(tc.lines) {
				t.Fatalf("exit %d with %d lines, want %d with %d\nstdout:\n%s\nstderr:\n%s", code, len(lines), tc.code, len(tc.lines), out, errOut)
			}
			for i, re := range tc.lines {
				if !regexp.MustCompile(re).MatchString(lines[i]) {
					t.Errorf("line %d %q does not match %s", i+1, lines[i], re)
				}
			}
		})
	}
}

func sprintf(format, errs string) string { return strings.Replace(format, "%s", errs, 1) }
