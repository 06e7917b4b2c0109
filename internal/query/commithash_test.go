package query_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// TestCommitHashRecorded checks CommitHash against a real CometBFT v0.38
// block (cometrpc's recorded golden): the header's last_commit_hash is the
// hash of the last_commit beside it.
func TestCommitHashRecorded(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "cometrpc", "testdata", "comet0.38", "block.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Response struct {
			Result struct {
				Block json.RawMessage `json:"block"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	c, want, err := querytest.CometLastCommit(g.Response.Result.Block)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Signatures) == 0 || want == "" {
		t.Fatal("the recorded block has no last_commit to check against")
	}
	if got := fmt.Sprintf("%X", query.CommitHash(c)); got != want {
		t.Errorf("CommitHash %s, the recorded header's last_commit_hash %s", got, want)
	}
}

// TestCommitHashAbsentAndEmpty: an absent entry encodes its zero time as
// year 1 (seconds -62135596800, as gogoproto's non-nullable stdtime does),
// and the empty commit of a block that carries none hashes to the Merkle
// root of nothing, as CometBFT's first block's last_commit_hash.
func TestCommitHashAbsentAndEmpty(t *testing.T) {
	if got := fmt.Sprintf("%X", query.CommitHash(&query.Commit{})); got != "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855" {
		t.Errorf("empty commit hash %s", got)
	}
	if !bytes.Equal(query.CommitHash(nil), query.CommitHash(&query.Commit{})) {
		t.Error("a nil commit is rendered empty, so it hashes as the empty commit")
	}
	// 08 01 (flag ABSENT), 1a 0b (timestamp, 11 bytes) 08 + ten-byte
	// varint of -62135596800.
	want, _ := hex.DecodeString("08011a0b0880" + "92b8c398feffffff01")
	absent := query.CommitSig{BlockIDFlag: query.FlagAbsent}
	sig, _ := base64.StdEncoding.DecodeString("R1N+BYNmTs/MH8Gtw/eZHLSBKr6CMyDzdvfaAFMkbdzdkQGq0n5NG4JWAzSTBd3N/MNWnDDjXU9GrOoEk8jmCw==")
	signed := query.CommitSig{BlockIDFlag: query.FlagCommit, ValidatorAddress: make([]byte, 20), Timestamp: time.Unix(5, 0), Signature: sig}
	c := &query.Commit{Height: 4, Signatures: []query.CommitSig{absent, signed}}
	got := query.CommitHash(c)
	if want := query.MerkleRoot([][]byte{want, encodeSigned(signed)}); !bytes.Equal(got, want) {
		t.Errorf("CommitHash %X, want %X", got, want)
	}
}

// encodeSigned is a signed entry's encoding written out by hand.
func encodeSigned(s query.CommitSig) []byte {
	b := []byte{0x08, 0x02, 0x12, 20}
	b = append(b, s.ValidatorAddress...)
	b = append(b, 0x1a, 0x02, 0x08, byte(s.Timestamp.Unix()))
	b = append(b, 0x22, byte(len(s.Signature)))
	return append(b, s.Signature...)
}
