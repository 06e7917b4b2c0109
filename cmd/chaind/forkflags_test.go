package main

import (
	"strings"
	"testing"
)

// TestForkFlags: the fork flags are checked before anything starts (exit
// 2, one line), and an upstream that cannot be reached is a one-line error
// with exit 1.
func TestForkFlags(t *testing.T) {
	off := []string{"--http.port", "-1", "--ws.port", "-1", "--explorer.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--fork-url", "http://127.0.0.1:1"}, 2, "--fork-url needs --dev"},
		{[]string{"--dev", "--fork-block", "5"}, 2, "--fork-block needs --fork-url"},
		{[]string{"--dev", "--fork-url", "ftp://example.org"}, 2, "want an http:// or https://"},
		{[]string{"--dev", "--fork-url", "http://127.0.0.1:1", "--fork-block", "soon"}, 2, "--fork-block \"soon\""},
		{[]string{"--dev", "--fork-url", "http://127.0.0.1:1", "--fork-block", "0x10"}, 1, "unreachable"},
	} {
		code, _, errOut := runChaind(t, append(tc.args, off...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	code, out, _ := runChaind(t, "--help")
	if code != 0 || !strings.Contains(out, "-fork-url") || !strings.Contains(out, "-fork-block") {
		t.Errorf("chaind --help does not list the fork flags (exit %d)", code)
	}
}
