package cometrpc

import (
	"time"

	"github.com/chaind/chaind/internal/query"
)

// A block's last_commit and evidence in CometBFT's JSON; query.LastCommit
// and the backend's Commits say where each value comes from.

type commitJSON struct {
	Height     i64         `json:"height"`
	Round      int32       `json:"round"`
	BlockID    blockIDJ    `json:"block_id"`
	Signatures []commitSig `json:"signatures"`
}

type commitSig struct {
	BlockIDFlag      int      `json:"block_id_flag"`
	ValidatorAddress hexBytes `json:"validator_address"`
	Timestamp        string   `json:"timestamp"`
	Signature        []byte   `json:"signature"`
}

// zeroTime is how CometBFT renders the time of an absent signature.
var zeroTime = time.Time{}.Format(time.RFC3339)

// lastCommitJSON renders c; nil or empty (a block that carries no commit)
// is CometBFT's empty commit of block 1, which clients read as none.
func lastCommitJSON(c *query.Commit) commitJSON {
	if c == nil {
		c = &query.Commit{}
	}
	out := commitJSON{Height: i64(c.Height), Round: c.Round, BlockID: blockIDJSON(c.BlockID), Signatures: make([]commitSig, len(c.Signatures))}
	for i, s := range c.Signatures {
		if s.BlockIDFlag != query.FlagCommit {
			out.Signatures[i] = commitSig{BlockIDFlag: int(s.BlockIDFlag), ValidatorAddress: hexBytes{}, Timestamp: zeroTime}
			continue
		}
		out.Signatures[i] = commitSig{BlockIDFlag: int(s.BlockIDFlag), ValidatorAddress: s.ValidatorAddress,
			Timestamp: rfc3339(s.Timestamp), Signature: s.Signature}
	}
	return out
}

// evidenceJSON renders a block's evidence as CometBFT's
// DuplicateVoteEvidence (query.Querier.evidence says where each value
// comes from).
func evidenceJSON(l query.EvidenceList) []any {
	out := []any{}
	vote := func(v *query.TMVote) map[string]any {
		return map[string]any{"type": int(v.Type), "height": i64(v.Height), "round": v.Round, "block_id": blockIDJSON(v.BlockID),
			"timestamp": rfc3339(v.Timestamp), "validator_address": hexBytes(v.ValidatorAddress), "validator_index": v.ValidatorIndex,
			"signature": v.Signature}
	}
	for _, e := range l.Evidence {
		d := e.DuplicateVoteEvidence
		if d == nil || d.VoteA == nil || d.VoteB == nil {
			continue
		}
		out = append(out, map[string]any{"type": "tendermint/DuplicateVoteEvidence", "value": map[string]any{
			"vote_a": vote(d.VoteA), "vote_b": vote(d.VoteB), "total_voting_power": i64(d.TotalVotingPower),
			"validator_power": i64(d.ValidatorPower), "timestamp": rfc3339(d.Timestamp)}})
	}
	return out
}
