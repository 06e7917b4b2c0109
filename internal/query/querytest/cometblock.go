package querytest

import (
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/chaind/chaind/internal/query"
)

// CometLastCommit reads a block in CometBFT's JSON (the "block" of the
// RPC's block result: a real node's recording, or chaind's answer): its
// last_commit's signatures as a query.Commit, and the header's
// last_commit_hash, so a test can check the one is the hash of the other
// (query.CommitHash).
func CometLastCommit(block []byte) (*query.Commit, string, error) {
	var b struct {
		Header struct {
			LastCommitHash string `json:"last_commit_hash"`
		} `json:"header"`
		LastCommit struct {
			Signatures []struct {
				Flag      int       `json:"block_id_flag"`
				Address   string    `json:"validator_address"`
				Timestamp time.Time `json:"timestamp"`
				Signature []byte    `json:"signature"`
			} `json:"signatures"`
		} `json:"last_commit"`
	}
	if err := json.Unmarshal(block, &b); err != nil {
		return nil, "", err
	}
	c := &query.Commit{}
	for _, s := range b.LastCommit.Signatures {
		addr, err := hex.DecodeString(s.Address)
		if err != nil {
			return nil, "", err
		}
		c.Signatures = append(c.Signatures, query.CommitSig{BlockIDFlag: query.BlockIDFlag(s.Flag), ValidatorAddress: addr, Timestamp: s.Timestamp, Signature: s.Signature})
	}
	return c, b.Header.LastCommitHash, nil
}
