package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

// startAsChaind starts the test binary as chaind with args and every
// listener but JSON-RPC HTTP off.
func startAsChaind(t *testing.T, args ...string) *devload.Proc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.Setenv(asChaindEnv, "1")
	defer os.Unsetenv(asChaindEnv)
	args = append(args, "--http.port", "0", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1")
	p, err := devload.Start(exe, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(5 * time.Second) })
	return p
}

// allowedOrigin is the Access-Control-Allow-Origin a node answers a
// browser's preflight from origin with.
func allowedOrigin(t *testing.T, url, origin string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodOptions, url, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("Access-Control-Allow-Origin")
}

// TestDevCORS: a --dev node answers browsers of any origin unless
// --http.corsdomain says otherwise; a node without --dev answers none by
// default.
func TestDevCORS(t *testing.T) {
	const origin = "http://localhost:3000"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dev"}, origin},
		{[]string{"--dev", "--http.corsdomain", "https://app.example"}, ""},
		{[]string{"--network", "test"}, ""},
		{[]string{"--network", "test", "--http.corsdomain", origin}, origin},
	} {
		p := startAsChaind(t, tc.args...)
		if got := allowedOrigin(t, p.URL, origin); got != tc.want {
			t.Errorf("%v: Access-Control-Allow-Origin %q, want %q", tc.args, got, tc.want)
		}
		p.Stop(5 * time.Second)
	}
}

// TestBareChaindExplains: chaind with no genesis, key or peers says what
// it is doing and points at --dev.
func TestBareChaindExplains(t *testing.T) {
	p := startAsChaind(t)
	log := p.Log()
	for _, want := range []string{"makes no blocks", "chaind --dev", "chainId=8118"} {
		if !strings.Contains(log, want) {
			t.Errorf("bare chaind log lacks %q:\n%s", want, log)
		}
	}
}

// TestJSONLogFormat: with --log.format json every line the node logs on
// standard error is one JSON object with time, level and msg.
func TestJSONLogFormat(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--dev", "--log.format", "json", "--block-time", "50ms", "--http.port", "0",
		"--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1")
	cmd.Env = append(os.Environ(), asChaindEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	seen := map[string]bool{}
	for lines := 0; sc.Scan() && lines < 200; lines++ {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("line %d is not a JSON object: %q", lines, sc.Text())
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := obj[k]; !ok {
				t.Fatalf("line %q lacks %q", sc.Text(), k)
			}
		}
		seen[obj["msg"].(string)] = true
		if seen["listening"] && seen["block"] {
			return
		}
	}
	t.Fatalf("no listening and block lines among the first lines (seen %v)", seen)
}
