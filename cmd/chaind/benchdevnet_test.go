package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBenchDevnet: chaind bench devnet, small — two validator processes,
// a few idle blocks, a few under a light load — prints both phases with
// the load's transactions committed, and a line per validator with its
// misses and its missed_blocks_counter as the chain reported it.
func TestBenchDevnet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a devnet of processes")
	}
	code, out, errOut := runChaind(t, "bench", "devnet", "--validators", "2", "--block-time", "200ms",
		"--idle", "3", "--blocks", "10", "--rate", "100", "--senders", "4", "--log-level", "warn")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	phase := regexp.MustCompile(`(?m)^(idle|load) +(\d+) +(\d+) +(\d+) `)
	got := map[string][]string{}
	for _, m := range phase.FindAllStringSubmatch(out, -1) {
		got[m[1]] = m[2:]
	}
	if len(got["idle"]) == 0 || len(got["load"]) == 0 {
		t.Fatalf("no idle and load lines:\n%s", out)
	}
	if n, _ := strconv.Atoi(got["load"][1]); n == 0 {
		t.Errorf("no transaction committed under load:\n%s", out)
	}
	if n, _ := strconv.Atoi(got["idle"][1]); n != 0 {
		t.Errorf("%d transactions in idle blocks:\n%s", n, out)
	}
	validator := regexp.MustCompile(`(?m)^validator\d +0x[0-9a-fA-F]{40} +\d+ \( *[\d.]+%\) +\d+ \( *[\d.]+%\) +\d+$`)
	if n := len(validator.FindAllString(out, -1)); n != 2 {
		t.Errorf("%d validator lines with misses and a missed_blocks_counter, want 2:\n%s", n, out)
	}
	if !strings.Contains(out, "committed tx/s") || !strings.Contains(out, "node CPU") {
		t.Errorf("no tx/s or CPU figures:\n%s", out)
	}
}
