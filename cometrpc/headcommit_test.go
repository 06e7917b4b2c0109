package cometrpc

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// commit at the head serves the certificate the head was decided with
// (CometBFT's seen commit), not canonical, with its signatures; an
// earlier block's is the canonical one its child carries.
func TestCommitAtHead(t *testing.T) {
	f := querytest.New(3)
	url := serve(t, f)
	head := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"commit"}`)
	if head.Error != nil {
		t.Fatal(head.Error)
	}
	sigs, _ := field(t, head.Result, "signed_header.commit.signatures").([]any)
	if len(sigs) != 3 || field(t, head.Result, "canonical") != false || field(t, head.Result, "signed_header.commit.height") != "2" {
		t.Fatalf("head commit: %s", head.Result)
	}
	// The fixture's first member is absent, the others signed.
	if s := sigs[1].(map[string]any); s["block_id_flag"] != 2.0 || s["signature"] == nil || sigs[0].(map[string]any)["block_id_flag"] != 1.0 {
		t.Fatalf("signatures %v", sigs)
	}
	hash := f.Head().Hash()
	if got := field(t, head.Result, "signed_header.commit.block_id.hash"); got != strings.ToUpper(hex.EncodeToString(hash[:])) {
		t.Errorf("commit names block %v, want the head %x", got, hash)
	}
	one := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"commit","params":{"height":"1"}}`)
	if sigs, _ := field(t, one.Result, "signed_header.commit.signatures").([]any); len(sigs) != 3 || field(t, one.Result, "canonical") != true {
		t.Fatalf("block 1: %s", one.Result)
	}
}

// Block times carry the milliseconds chaind's consensus data records:
// the header's, the commit signatures', and status's latest_block_time.
func TestMillisecondTimes(t *testing.T) {
	f := querytest.New(3)
	base := uint64(querytest.Base.UnixMilli())
	f.TimeMs = map[uint64]uint64{1: base + 2_125, 2: base + 4_250}
	url := serve(t, f)
	for _, tc := range []struct{ body, path, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"2"}}`, "block.header.time", "2025-01-02T03:04:09.25Z"},
		{`{"jsonrpc":"2.0","id":1,"method":"header","params":{"height":"1"}}`, "header.time", "2025-01-02T03:04:07.125Z"},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "sync_info.latest_block_time", "2025-01-02T03:04:09.25Z"},
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, "sync_info.earliest_block_time", "2025-01-02T03:04:05Z"},
	} {
		r := post(t, url, tc.body)
		if r.Error != nil {
			t.Fatal(r.Error)
		}
		if got := field(t, r.Result, tc.path); got != tc.want {
			t.Errorf("%s: %s = %v, want %s", tc.body, tc.path, got, tc.want)
		}
	}
	// Precommits carry no time of their own: each gets the time of the
	// block that carries them.
	r := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"2"}}`)
	sigs, _ := field(t, r.Result, "block.last_commit.signatures").([]any)
	if len(sigs) < 2 || sigs[1].(map[string]any)["timestamp"] != "2025-01-02T03:04:09.25Z" {
		t.Errorf("last_commit signatures %v", sigs)
	}
}

// last_commit_hash is the hash of the last_commit rendered beside it
// (CometBFT's Commit.Hash), the same in block, header, blockchain and the
// commit of the parent's child; block 1 carries the empty commit, whose
// hash is sha256 of nothing.
func TestLastCommitHash(t *testing.T) {
	f := querytest.New(3)
	f.AddBlock()
	f.AddBlock()
	url := serve(t, f)
	chain := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"blockchain","params":{"minHeight":"1","maxHeight":"4"}}`)
	metas, _ := field(t, chain.Result, "block_metas").([]any)
	if len(metas) != 4 {
		t.Fatalf("blockchain: %s", chain.Result)
	}
	for n := 1; n <= 4; n++ {
		block := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"%d"}}`, n))
		var b struct {
			Block json.RawMessage `json:"block"`
		}
		if err := json.Unmarshal(block.Result, &b); err != nil {
			t.Fatal(err)
		}
		c, blockHash, err := querytest.CometLastCommit(b.Block)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 && len(c.Signatures) != 0 || n > 1 && len(c.Signatures) != 3 {
			t.Fatalf("block %d: last_commit %s", n, b.Block)
		}
		want := fmt.Sprintf("%X", query.CommitHash(c))
		if n == 1 && want != "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855" {
			t.Errorf("block 1's empty commit hashes to %s", want)
		}
		header := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"header","params":{"height":"%d"}}`, n))
		commit := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"commit","params":{"height":"%d"}}`, n))
		for what, got := range map[string]any{
			"block":      blockHash,
			"header":     field(t, header.Result, "header.last_commit_hash"),
			"commit":     field(t, commit.Result, "signed_header.header.last_commit_hash"),
			"blockchain": metas[4-n].(map[string]any)["header"].(map[string]any)["last_commit_hash"],
		} {
			if got != want {
				t.Errorf("block %d: %s's last_commit_hash %v, want %s (the hash of its last_commit)", n, what, got, want)
			}
		}
	}
}
