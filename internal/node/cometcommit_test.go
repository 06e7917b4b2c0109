package node

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
)

// A proof-of-stake node's CometBFT RPC answers commit at the head from
// the certificate the head was decided with — signed by the validator, not
// canonical, as CometBFT serves its seen commit — and renders block times
// to the millisecond its consensus data records.
func TestCometRPCHeadCommit(t *testing.T) {
	keys := devload.Keys("node-test", 2)
	g := devload.GenesisWithToken(8118, keys, uint64(time.Now().Unix())-5)
	if err := pos.SetDevStaking(g, keys[:1], ""); err != nil {
		t.Fatal(err)
	}
	zero := 0
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0], Accounts: keys[1:],
		BlockTime: 250 * time.Millisecond, CometRPCPort: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	waitHead(t, n, 3)

	resp, err := http.Post("http://"+n.Addr("cometrpc"), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"commit"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result struct {
			SignedHeader struct {
				Header struct{ Height, Time string }
				Commit struct {
					Height     string
					Signatures []struct {
						BlockIDFlag int    `json:"block_id_flag"`
						Signature   string `json:"signature"`
					}
				}
			} `json:"signed_header"`
			Canonical bool
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	sh := r.Result.SignedHeader
	h, _ := strconv.ParseUint(sh.Header.Height, 10, 64)
	if r.Result.Canonical || sh.Commit.Height != sh.Header.Height || len(sh.Commit.Signatures) != 1 {
		t.Fatalf("commit at the head: %+v", r.Result)
	}
	if s := sh.Commit.Signatures[0]; s.BlockIDFlag != 2 {
		t.Fatalf("the validator's precommit is missing: %+v", s)
	} else if sig, _ := base64.StdEncoding.DecodeString(s.Signature); len(sig) != 64 {
		t.Fatalf("signature of %d bytes", len(sig))
	}
	b, err := n.Chain.BlockByNumber(h)
	if err != nil {
		t.Fatal(err)
	}
	ms := pos.TimeMs(b.HeaderRef())
	if want := time.UnixMilli(int64(ms)).UTC().Format(time.RFC3339Nano); sh.Header.Time != want {
		t.Errorf("block %d time %s, want %s (its %d ms)", h, sh.Header.Time, want, ms)
	}
}
