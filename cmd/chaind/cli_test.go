package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runChaind runs the test binary as chaind with args and returns its exit
// code, standard output and standard error.
func runChaind(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asChaindEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestEveryCommandHelpAndBadFlags: for every subcommand, --help prints its
// usage on standard output and exits 0; a bad flag or a bad number is one
// line on standard error naming the command, and exit 2.
func TestEveryCommandHelpAndBadFlags(t *testing.T) {
	invocations := map[string][]string{
		"run": {}, "bench": {"startup"}, "evm": {"run"}, "conformance": {},
	}
	for _, c := range commands {
		prefix := append([]string{c.name}, invocations[c.name]...)
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runChaind(t, append(prefix, "--help")...)
			if code != 0 || !strings.Contains(out, "usage:") || errOut != "" {
				t.Errorf("%v --help: exit %d, stdout %q, stderr %q", prefix, code, out, errOut)
			}
			code, _, errOut = runChaind(t, append(prefix, "--no-such-flag")...)
			if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.HasPrefix(errOut, "chaind") {
				t.Errorf("%v --no-such-flag: exit %d, stderr %q (want 2 and one line)", prefix, code, errOut)
			}
		})
	}
	// Commands that dispatch on a second word: each of those words too.
	var nested [][]string
	for _, b := range []string{"startup", "idle", "dev", "rpc", "graphql", "devnet"} {
		nested = append(nested, []string{"bench", b})
	}
	for kind := range runners {
		nested = append(nested, []string{"conformance", kind, "."})
	}
	for _, prefix := range nested {
		t.Run(strings.Join(prefix[:2], "_"), func(t *testing.T) {
			code, out, errOut := runChaind(t, append(prefix, "--help")...)
			if code != 0 || out == "" || errOut != "" {
				t.Errorf("%v --help: exit %d, stdout %q, stderr %q", prefix, code, out, errOut)
			}
			code, _, errOut = runChaind(t, append(prefix, "--no-such-flag")...)
			if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.HasPrefix(errOut, "chaind") {
				t.Errorf("%v --no-such-flag: exit %d, stderr %q (want 2 and one line)", prefix, code, errOut)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--validators", "0"}, "--validators must be"},
		{[]string{"bench", "graphql", "--runs", "0"}, "must be positive"},
		{[]string{"bench", "rpc", "--warmup", "-1s"}, "--warmup must not be negative"},
		{[]string{"testnet", "--validators", "0", "--out", "x"}, "--validators must be"},
		{[]string{"testnet", "--sentry", "--out", "x"}, "--sentry needs at least one full node"},
		{[]string{"devnet", "--sentry"}, "--sentry needs at least one full node"},
		{[]string{"devnet", "--sentry", "--full", "1", "--in-process"}, "--sentry needs processes"},
		{[]string{"top", "--interval", "0s"}, "--interval must be positive"},
		{[]string{"wallet-config", "--http.port", "70000"}, "ports must be"},
		{[]string{"--dev", "--p2p.peers", "127.0.0.1:1"}, "takes no p2p flags"},
		{[]string{"--p2p.pex=false", "--p2p.bootnodes", "127.0.0.1:1"}, "--p2p.bootnodes needs peer exchange"},
		{[]string{"--p2p.peers", "127.0.0.1:1", "--p2p.private-peers", "abc"}, "--p2p.private-peers: p2p: node ID \"abc\" is not 40 hex digits"},
		{[]string{"--limits.batch", "0"}, "--limits.batch must be positive"},
		{[]string{"sim", "--byzantine", "7"}, "--byzantine must be"},
		{[]string{"sim", "--drop", "1.5"}, "--drop must be"},
		{[]string{"sim", "--torn-crashes", "-1"}, "--torn-crashes must not"},
		{[]string{"devnet", "--validators", "0"}, "--validators must be"},
		{[]string{"devnet", "--block-time", "-1s"}, "--block-time must not be negative"},
		{[]string{"bench", "startup", "--runs", "0"}, "--runs must be at least 1"},
		{[]string{"bench", "rpc", "--conns", "0"}, "must be positive"},
		{[]string{"bench", "dev", "--senders", "0"}, "--senders must be at least 1"},
		{[]string{"bench", "nope"}, "unknown benchmark"},
		{[]string{"export", "--datadir", "x", "--from", "5", "--to", "2", "out.rlp"}, "--to must not be below --from"},
		{[]string{"evm", "run", "--gas", "0"}, "--gas must be positive"},
		{[]string{"evm", "run", "--code", "00", "--cpuprofile", "x.prof"}, "--cpuprofile needs --bench"},
		{[]string{"--http.port", "70000"}, "--http.port must be"},
		{[]string{"--block-time", "-2s"}, "--block-time must not be negative"},
		{[]string{"--dev", "--public", "--rpc.allow-unprotected-txs"}, "--rpc.allow-unprotected-txs is never allowed with --public"},
		{[]string{"--gas-limit", "10"}, "--gas-limit must be"},
		{[]string{"--block-time", "soon"}, "invalid value"},
		{[]string{"stray"}, "unknown command"},
		{[]string{"version", "extra"}, "unexpected argument"},
		{[]string{"conformance", "nokind", "."}, "unknown kind"},
	} {
		code, _, errOut := runChaind(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestHelpListsNodeFlags: chaind --help shows the commands and the node's
// own flags, bare chaind being the node.
func TestHelpListsNodeFlags(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, _ := runChaind(t, args...)
		for _, want := range []string{"commands:", "devnet", "-dev", "-http.port", "-datadir"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("chaind %v: exit %d, output lacks %q", args, code, want)
			}
		}
	}
}

// TestConfigErrorsNameTheSource: a bad value from a config file or the
// environment names the file or variable, the key, and the form wanted.
func TestConfigErrorsNameTheSource(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		env  string
		want []string
	}{
		{[]string{"--config", write("a.json", `{"block-time": 5}`)}, "", []string{"a.json", `"block-time"`, `"5s"`}},
		{[]string{"--config", write("b.json", "{\n \"http.port\": 1,\n oops}")}, "", []string{"b.json", "line 3"}},
		{[]string{"--config", write("c.json", `{"nope": 1}`)}, "", []string{"c.json", `unknown flag "nope"`}},
		{nil, "CHAIND_GAS_LIMIT=lots", []string{"CHAIND_GAS_LIMIT", "non-negative whole number"}},
	} {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, tc.args...)
		cmd.Env = append(os.Environ(), asChaindEnv+"=1")
		if tc.env != "" {
			cmd.Env = append(cmd.Env, tc.env)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%v %s: %v, want exit 2", tc.args, tc.env, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%v %s: %q lacks %q", tc.args, tc.env, errb.String(), w)
			}
		}
	}
}
