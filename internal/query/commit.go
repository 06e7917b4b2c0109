package query

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// Blocks as CometBFT renders them: the commit a block carries for its
// parent, and the header hashes CometBFT computes, each from what chaind
// holds.
//
//   - last_commit: the certificate of the parent the block commits to
//     (backend.Commits), every precommit it holds — the LastCommit the
//     liveness accounting reads — one entry per member of the parent's
//     validator set in set order, absent members flagged so. chaind's
//     precommits carry no time of their own: each signature is given the
//     block's time, which is what CometBFT's BFT time makes of them (the
//     block time is the median of the commit's times). Signatures are
//     CometBFT's 64-byte secp256k1 form, R || S: the recovery byte V
//     chaind records after them is left out, since the validator's
//     address names the key.
//   - last_commit_hash: CometBFT's Commit.Hash of exactly the last_commit
//     rendered — the Merkle root of each signature entry's protobuf
//     encoding (tendermint.types.CommitSig) — so a client that checks the
//     header against the commit finds them agree. A block whose parent has
//     no recorded certificate (block 1, the genesis's child; a chain run
//     without a consensus engine) carries CometBFT's empty commit of the
//     first block (height 0, no block ID, no signatures), whose hash is
//     the Merkle root of nothing, sha256 of nothing. (The Ethereum header
//     commits to the same certificate differently: its parent beacon root
//     is keccak256 of the certificate's encoding.)
//   - data_hash: CometBFT's rule over the block data served — the Merkle
//     root (RFC 6962, sha256) of the sha256 of each TxRaw.
//   - validators_hash, next_validators_hash: the Merkle root of the set
//     deciding the block (and the next one), each member as its 20-byte
//     address and 8-byte big-endian voting power; CometBFT hashes the
//     members' public keys, which the sets chaind keeps do not record.
//   - consensus_hash: CometBFT's rule, sha256 of HashedParams{block
//     max_bytes, block max_gas}: the block size bound and the block's gas
//     limit.
//   - evidence_hash: the Merkle root of the double-sign evidence the
//     block carries, each piece in its encoding in the header's consensus
//     data.
//   - last_block_id.part_set_header / block_id parts: the block's network
//     encoding (RLP) cut in 64 KiB parts, as CometBFT cuts its blocks, and
//     their Merkle root.
//   - last_results_hash stays the receipts root and app_hash the state
//     root: the Ethereum header's commitments to the same things.

// BlockIDFlag is tendermint.types.BlockIDFlag.
type BlockIDFlag int32

func (BlockIDFlag) EnumDescriptor() (string, []string) {
	return "tendermint.types.BlockIDFlag",
		[]string{"BLOCK_ID_FLAG_UNKNOWN", "BLOCK_ID_FLAG_ABSENT", "BLOCK_ID_FLAG_COMMIT", "BLOCK_ID_FLAG_NIL"}
}

// The flags of a commit's entries.
const (
	FlagAbsent BlockIDFlag = 1
	FlagCommit BlockIDFlag = 2
)

// CommitSig is one validator's entry in a Commit.
type CommitSig struct {
	BlockIDFlag      BlockIDFlag `pb:"1,block_id_flag"`
	ValidatorAddress []byte      `pb:"2,validator_address"`
	Timestamp        time.Time   `pb:"3,timestamp"`
	Signature        []byte      `pb:"4,signature"`
}

func (CommitSig) ProtoName() string { return "tendermint.types.CommitSig" }

// Commit is the precommits that decided a block.
type Commit struct {
	Height     int64       `pb:"1,height"`
	Round      int32       `pb:"2,round"`
	BlockID    BlockID     `pb:"3,block_id"`
	Signatures []CommitSig `pb:"4,signatures"`
}

func (Commit) ProtoName() string { return "tendermint.types.Commit" }

// PartSize is the size of a block part, CometBFT's.
const PartSize = 64 << 10

// MerkleRoot is CometBFT's merkle.HashFromByteSlices (RFC 6962 with
// sha256): sha256 of nothing for no items, sha256(0x00 || item) for a
// leaf, sha256(0x01 || left || right) for a node, split at the largest
// power of two below the count.
func MerkleRoot(items [][]byte) []byte {
	switch len(items) {
	case 0:
		h := sha256.Sum256(nil)
		return h[:]
	case 1:
		h := sha256.Sum256(append([]byte{0}, items[0]...))
		return h[:]
	}
	k := 1
	for k*2 < len(items) {
		k *= 2
	}
	l, r := MerkleRoot(items[:k]), MerkleRoot(items[k:])
	h := sha256.Sum256(append(append([]byte{1}, l...), r...))
	return h[:]
}

// blockID names a block as CometBFT does: its hash, and the part set of
// its encoding.
func blockID(b *types.Block) *BlockID {
	enc := b.EncodeRLP()
	var parts [][]byte
	for len(enc) > PartSize {
		parts, enc = append(parts, enc[:PartSize]), enc[PartSize:]
	}
	parts = append(parts, enc)
	hash := b.Hash()
	return &BlockID{Hash: hash[:], PartSetHeader: PartSetHeader{Total: uint32(len(parts)), Hash: MerkleRoot(parts)}}
}

// validatorsHash is the Merkle root of the set deciding height; nil when
// no set is known for it.
func (q *Querier) validatorsHash(height uint64) []byte {
	if q.b.Consensus == nil {
		return nil
	}
	set, err := q.b.Consensus.ConsensusValidators(max(height, 1))
	if err != nil {
		return nil
	}
	items := make([][]byte, len(set))
	for i, v := range set {
		items[i] = binary.BigEndian.AppendUint64(append([]byte(nil), v.Address[:]...), uint64(v.VotingPower))
	}
	return MerkleRoot(items)
}

// hashedParams is tendermint.types.HashedParams, what consensus_hash
// hashes.
type hashedParams struct {
	BlockMaxBytes int64 `pb:"1,block_max_bytes"`
	BlockMaxGas   int64 `pb:"2,block_max_gas"`
}

func (hashedParams) ProtoName() string { return "tendermint.types.HashedParams" }

func (q *Querier) consensusHash(gasLimit uint64) []byte {
	h := sha256.Sum256(protobuf.Marshal(hashedParams{BlockMaxBytes: q.b.BlockMaxBytes, BlockMaxGas: int64(gasLimit)}))
	return h[:]
}

// evidence renders the double-sign evidence block n carries (none on a
// chain without validators), and its Merkle root as the header's
// evidence_hash.
func (q *Querier) evidence(n uint64) (EvidenceList, []byte, error) {
	out := EvidenceList{Evidence: []Evidence{}}
	if q.b.Commits == nil {
		return out, MerkleRoot(nil), nil
	}
	evs, err := q.b.Commits.Evidence(n)
	if errors.Is(err, backend.ErrStakingDisabled) {
		return out, MerkleRoot(nil), nil
	}
	if err != nil {
		return out, nil, err
	}
	items := make([][]byte, len(evs))
	for i, e := range evs {
		items[i] = e.Encoded
		d := &DuplicateVoteEvidence{}
		index := int32(-1)
		if set, err := q.b.Consensus.ConsensusValidators(e.A.Height); err == nil {
			for j, v := range set {
				d.TotalVotingPower += v.VotingPower
				if v.Address == e.A.Validator {
					index, d.ValidatorPower = int32(j), v.VotingPower
				}
			}
		}
		if b, err := q.b.Blocks.BlockByNumber(e.A.Height); err == nil {
			d.Timestamp = q.BlockTime(b.HeaderRef())
		}
		vote := func(v backend.EvidenceVote) *TMVote {
			out := &TMVote{Type: SignedMsgType(v.Type), Height: int64(v.Height), Round: v.Round, Timestamp: d.Timestamp,
				ValidatorAddress: v.Validator[:], ValidatorIndex: index, Signature: cometSig(v.Signature)}
			if v.BlockHash != (types.Hash{}) {
				out.BlockID.Hash = v.BlockHash[:]
			}
			return out
		}
		d.VoteA, d.VoteB = vote(e.A), vote(e.B)
		out.Evidence = append(out.Evidence, Evidence{DuplicateVoteEvidence: d})
	}
	return out, MerkleRoot(items), nil
}

// cometSig is a recorded signature (R || S || V) in CometBFT's secp256k1
// form, R || S.
func cometSig(sig []byte) []byte {
	if len(sig) == 65 {
		return sig[:64]
	}
	return sig
}

// LastCommit renders the commit block b carries for its parent: for a
// block that carries none (the genesis block, block 1, a chain without
// certificates) the empty commit CometBFT gives its first block (height
// 0, no block ID, no signatures), which clients read as none.
func (q *Querier) LastCommit(b *types.Block) (*Commit, error) {
	if q.b.Commits == nil || b.Number() < 2 {
		return &Commit{}, nil
	}
	c, err := q.b.Commits.LastCommit(b.Number())
	if errors.Is(err, backend.ErrNotFound) || errors.Is(err, backend.ErrStakingDisabled) {
		return &Commit{}, nil
	}
	if err != nil {
		return nil, err
	}
	parent, err := q.b.Blocks.BlockByNumber(b.Number() - 1)
	if err != nil {
		return nil, err
	}
	return renderCommit(c, parent, q.BlockTime(b.HeaderRef())), nil
}

// SeenCommit renders the commit that decided block b as this node stored
// it: for the head, the certificate it was decided with, which no block
// carries yet — CometBFT's seen commit, which its commit method serves for
// the latest height (canonical false). nil when the node keeps none (the
// genesis block, a chain without certificates). No later block's time
// exists to stand for the precommits' times, so they get b's own.
func (q *Querier) SeenCommit(b *types.Block) (*Commit, error) {
	if q.b.Commits == nil || b.Number() < 1 {
		return nil, nil
	}
	c, err := q.b.Commits.SeenCommit(b.Number())
	if errors.Is(err, backend.ErrNotFound) || errors.Is(err, backend.ErrStakingDisabled) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return renderCommit(c, b, q.BlockTime(b.HeaderRef())), nil
}

// renderCommit is c, the certificate deciding block decided, in
// CometBFT's shape, each signature given the time at.
func renderCommit(c *backend.Commit, decided *types.Block, at time.Time) *Commit {
	out := &Commit{Height: int64(c.Height), Round: c.Round, BlockID: *blockID(decided), Signatures: make([]CommitSig, len(c.Signatures))}
	for i, s := range c.Signatures {
		if s.Signature == nil {
			out.Signatures[i] = CommitSig{BlockIDFlag: FlagAbsent}
			continue
		}
		out.Signatures[i] = CommitSig{BlockIDFlag: FlagCommit, ValidatorAddress: s.Validator[:], Timestamp: at, Signature: cometSig(s.Signature)}
	}
	return out
}

// Empty reports whether c is the empty commit of a block that carries none
// (LastCommit).
func (c *Commit) Empty() bool { return c == nil || c.Height == 0 && len(c.Signatures) == 0 }

// CommitHash is CometBFT's Commit.Hash (types/block.go): the Merkle root of
// the protobuf encoding of each signature entry, absent ones included
// (their zero time encodes as year 1, as gogoproto's does). It is the
// header's last_commit_hash, computed from the commit rendered beside it.
func CommitHash(c *Commit) []byte {
	var sigs []CommitSig
	if c != nil {
		sigs = c.Signatures
	}
	items := make([][]byte, len(sigs))
	for i := range sigs {
		items[i] = protobuf.Marshal(sigs[i])
	}
	return MerkleRoot(items)
}
