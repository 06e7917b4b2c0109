package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
)

// The scale genesis, written as it is generated, is the dev genesis plus
// the generated accounts and the token with its holders.
func TestWriteScaleGenesis(t *testing.T) {
	dev, err := buildDev(devFlags{accounts: 2, balance: "10", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.json")
	if err := writeScaleGenesis(path, dev.Genesis, 5, 3); err != nil {
		t.Fatal(err)
	}
	g, err := chain.LoadGenesis(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Alloc) != len(dev.Genesis.Alloc)+5+1 {
		t.Fatalf("%d allocations, want %d", len(g.Alloc), len(dev.Genesis.Alloc)+6)
	}
	for _, a := range scaleAddrs(5) {
		if b := g.Alloc[a].Balance; b.Uint64() != 1e15 {
			t.Fatalf("%s: balance %d", a, b.Uint64())
		}
	}
	for a, acc := range dev.Genesis.Alloc {
		if b := g.Alloc[a].Balance; b.Cmp(&acc.Balance.Int) != 0 {
			t.Fatalf("dev account %s lost its balance", a)
		}
	}
	if tok := g.Alloc[devload.TokenAddress]; len(tok.Storage) != 3 || len(tok.Code) == 0 {
		t.Fatalf("token: %d slots, %d bytes of code", len(tok.Storage), len(tok.Code))
	}
}

// geth's side of the scale genesis keeps geth's fork schedule and its own
// allocation entries, takes chaind's chain ID, gas limit, timestamp and
// allocation (chaind's entry wins for an address both have), and gets the
// same generated accounts and token.
func TestGethScaleGenesis(t *testing.T) {
	dev, err := buildDev(devFlags{accounts: 2, balance: "10", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// geth 1.16.9's `geth --dev dumpgenesis`, its allocation cut to
	// ecrecover and the beacon roots contract, whose code is replaced by a
	// marker to see whose entry wins.
	dump, err := os.ReadFile(filepath.Join("testdata", "geth-dev-dumpgenesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := gethScaleHead(dump, dev.Genesis)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.json")
	if err := writeScaleAlloc(path, head, 5, 3); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Config struct {
			ChainID      uint64          `json:"chainId"`
			OsakaTime    *uint64         `json:"osakaTime"`
			BlobSchedule json.RawMessage `json:"blobSchedule"`
		} `json:"config"`
		GasLimit  string                                `json:"gasLimit"`
		Timestamp string                                `json:"timestamp"`
		Alloc     map[string]map[string]json.RawMessage `json:"alloc"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if g.Config.ChainID != dev.Genesis.Config.ChainID || g.Config.OsakaTime == nil || len(g.Config.BlobSchedule) == 0 {
		t.Fatalf("config: chain %d (want %d), osakaTime %v, blobSchedule %s", g.Config.ChainID, dev.Genesis.Config.ChainID, g.Config.OsakaTime, g.Config.BlobSchedule)
	}
	if g.GasLimit != devload.Hex(uint64(dev.Genesis.GasLimit)) || g.Timestamp != devload.Hex(uint64(dev.Genesis.Timestamp)) {
		t.Fatalf("gasLimit %s, timestamp %s", g.GasLimit, g.Timestamp)
	}
	if _, ok := g.Alloc["0x0000000000000000000000000000000000000001"]; !ok {
		t.Fatal("geth's own allocation entry (ecrecover) is missing")
	}
	for a := range dev.Genesis.Alloc {
		if _, ok := g.Alloc[strings.ToLower(a.Hex())]; !ok {
			t.Fatalf("chaind's allocation %s is missing", a)
		}
	}
	// The beacon roots contract is in both; chaind's entry is kept.
	beacon := g.Alloc["0x000f3df6d732807ef1319fb7b8bb8522d0beac02"]
	if string(beacon["code"]) == `"0xgeth"` {
		t.Fatal("geth's entry won over chaind's for the beacon roots contract")
	}
	for _, a := range scaleAddrs(5) {
		if _, ok := g.Alloc[a.Hex()]; !ok {
			t.Fatalf("generated account %s is missing", a)
		}
	}
	if tok := g.Alloc[devload.TokenAddress.Hex()]; tok == nil || !strings.Contains(string(tok["storage"]), devload.TokenSlot(scaleAddress(2)).Hex()) {
		t.Fatalf("token: %v", tok)
	}
	if _, err := gethScaleHead([]byte(`{"alloc":{}}`), dev.Genesis); err == nil {
		t.Fatal("a dump without a config was accepted")
	}
}

// The cache figures of a round are the hit rates of the lookups between
// two /metrics pages, and the pinned blocks the second names.
func TestCacheCounts(t *testing.T) {
	page := func(nodeHits, nodeMisses, blockHits, blockMisses int) string {
		return fmt.Sprintf(`# TYPE chaind_cache_hits_total counter
chaind_cache_hits_total{cache="trie_nodes"} %d
chaind_cache_hits_total{cache="store_blocks"} %d
chaind_cache_hits_total{cache="state_reads"} 7
# TYPE chaind_cache_misses_total counter
chaind_cache_misses_total{cache="trie_nodes"} %d
chaind_cache_misses_total{cache="store_blocks"} %d
chaind_cache_misses_total{cache="state_reads"} 1
# TYPE chaind_cache_bytes gauge
chaind_cache_bytes{cache="trie_nodes"} 2097152
# TYPE chaind_store_pinned_bytes gauge
chaind_store_pinned_bytes 1048576
chaind_store_pinned_tables 3
chaind_store_tables 4
`, nodeHits, blockHits, nodeMisses, blockMisses)
	}
	serve := func(text string) cacheCounts {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, text) }))
		defer srv.Close()
		return readCacheCounts(srv.URL)
	}
	was, now := serve(page(10, 5, 100, 100)), serve(page(13, 6, 101, 101))
	want := "trie_nodes 75.0% of 4 (2.0 MiB), state_reads -, code -, store_blocks 50.0% of 2 (0.0 MiB), pinned 1.0 MiB in 3 tables"
	if got := now.since(was); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := cacheCounts(nil).since(was); got != "metrics unreadable" {
		t.Fatalf("no page: %s", got)
	}
}
