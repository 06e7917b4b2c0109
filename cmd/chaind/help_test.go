package main

import (
	"flag"
	"strings"
	"testing"
)

// chaind devnet --help says how to kill a node and restart it alone.
func TestDevnetHelpSaysHowToRestartANode(t *testing.T) {
	code, out, _ := runChaind(t, "devnet", "--help")
	if code != 0 {
		t.Fatalf("chaind devnet --help: exit %d", code)
	}
	for _, want := range []string{"kill -9", "restarts that node alone", "chaind --config OUT/validator3/config.json", "syncing", "-validators"} {
		if !strings.Contains(out, want) {
			t.Errorf("chaind devnet --help does not say %q:\n%s", want, out)
		}
	}
}

// TestHelpListsEveryNodeFlag: chaind --help shows every flag a node
// parses (the p2p flags the README relies on included).
func TestHelpListsEveryNodeFlag(t *testing.T) {
	code, out, _ := runChaind(t, "--help")
	if code != 0 {
		t.Fatalf("chaind --help: exit %d", code)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "-"); ok {
			listed[strings.Fields(f)[0]] = true
		}
	}
	fs, _, _ := nodeFlags()
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !listed[f.Name] {
			t.Errorf("chaind --help does not list --%s", f.Name)
		}
	})
	if n == 0 || !listed["p2p.peers"] {
		t.Fatalf("no node flags, or no --p2p.peers, in chaind --help:\n%s", out)
	}
}
