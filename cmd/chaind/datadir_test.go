package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/store"
)

// TestDatadirRefusals: every command that opens a data directory refuses
// a missing one, one another process holds and one of another chain the
// same way: one line on standard error naming the cause, and its exit
// code.
func TestDatadirRefusals(t *testing.T) {
	dir := t.TempDir()
	g1, g3 := filepath.Join(dir, "g1.json"), filepath.Join(dir, "g3.json")
	for _, a := range [][]string{{"--out", g1}, {"--accounts", "3", "--out", g3}} {
		if code, _, errOut := runChaind(t, append([]string{"dev-genesis"}, a...)...); code != 0 {
			t.Fatalf("dev-genesis %v: exit %d: %s", a, code, errOut)
		}
	}
	// g4 is g1's block 0 under another chain ID (which is not part of the
	// genesis hash).
	g4 := filepath.Join(dir, "g4.json")
	{
		raw, err := os.ReadFile(g1)
		if err != nil {
			t.Fatal(err)
		}
		var spec map[string]any
		if err := json.Unmarshal(raw, &spec); err != nil {
			t.Fatal(err)
		}
		spec["config"].(map[string]any)["chainId"] = 77
		if raw, err = json.Marshal(spec); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(g4, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	held, other := filepath.Join(dir, "held"), filepath.Join(dir, "other")
	rlp := filepath.Join(dir, "chain.rlp")
	for _, args := range [][]string{
		{"init", "--genesis", g1, "--datadir", held},
		{"init", "--genesis", g1, "--datadir", other},
		{"export", "--datadir", other, "--from", "0", rlp},
	} {
		if code, _, errOut := runChaind(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	// This test process holds the directory, as a running node would.
	kv, err := store.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	locked := fmt.Sprintf("in use by process %d", os.Getpid())
	missing := filepath.Join(dir, "missing")
	noPorts := []string{"--http.port", "-1", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1"}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"export missing", []string{"export", "--datadir", missing, rlp}, 1, "chaind export: no chain in " + missing},
		{"export locked", []string{"export", "--datadir", held, rlp}, 1, "chaind export: store: data directory " + held + " is " + locked},
		{"import missing", []string{"import", "--datadir", missing, rlp}, 2, "chaind import: --genesis is required for an empty data directory"},
		{"import locked", []string{"import", "--genesis", g1, "--datadir", held, rlp}, 1, "chaind import: open data directory: store: data directory " + held + " is " + locked},
		{"import locked, stored genesis", []string{"import", "--datadir", held, rlp}, 1, "chaind import: store: data directory " + held + " is " + locked},
		{"import other chain", []string{"import", "--genesis", g3, "--datadir", other, rlp}, 1, "chaind import: data directory holds a different chain: stored genesis"},
		{"init locked", []string{"init", "--genesis", g1, "--datadir", held}, 1, "chaind init: store: data directory " + held + " is " + locked},
		{"init other chain", []string{"init", "--genesis", g3, "--datadir", other}, 1, "chaind init: data directory holds a different chain: stored genesis"},
		{"repair missing", []string{"repair", "--datadir", missing}, 1, "chaind repair: open " + missing + "/LOCK: no such file or directory"},
		{"repair locked", []string{"repair", "--datadir", held}, 1, "chaind repair: store: data directory " + held + " is " + locked},
		{"run locked", append([]string{"--datadir", held}, noPorts...), 1, "chaind: open data directory: store: data directory " + held + " is " + locked},
		{"init other chain ID", []string{"init", "--genesis", g4, "--datadir", other}, 1, "chaind init: data directory holds a different chain: stored chain ID"},
		{"run other chain ID", append([]string{"--genesis", g4, "--datadir", other}, noPorts...), 2, "chaind: --genesis " + g4 + " is genesis"},
		{"run other chain", append([]string{"--genesis", g3, "--datadir", other}, noPorts...), 2, "chaind: --genesis " + g3 + " is genesis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runChaind(t, tc.args...)
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
				if !strings.HasPrefix(l, "time=") { // log lines of a node being set up
					lines = append(lines, l)
				}
			}
			if code != tc.code || len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one line starting %q", code, errOut, tc.code, tc.want)
			}
		})
	}
	// Nothing was made where nothing was.
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a refused command left %s behind: %v", missing, err)
	}
}
