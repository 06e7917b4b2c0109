package stakebackend

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
)

// Commits returns the reader of the certificates and evidence blocks
// carry, for the CometBFT RPC's last_commit and evidence.
func (n *Backend) Commits() backend.Commits { return commits{n} }

// commits implements backend.Commits over the chain's stored
// certificates: the one stored for block n-1 is the one block n commits to
// (Chain.CommitDecided replaces a block's certificate with its child's),
// which holds every precommit for n-1 that reached n's proposer — the
// certificate the absent list of block n, and so the liveness penalties,
// are derived from.
type commits struct{ n *Backend }

func (c commits) LastCommit(num uint64) (*backend.Commit, error) {
	ch := c.n.Chain
	if pos.Of(ch) == nil {
		return nil, backend.ErrStakingDisabled
	}
	if num < 2 {
		return nil, fmt.Errorf("%w: block %d carries no commit", backend.ErrNotFound, num)
	}
	blk, err := ch.BlockByNumber(num)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d", backend.ErrNotFound, num)
	}
	enc, err := ch.Certificate(num - 1)
	if errors.Is(err, chain.ErrNotFound) {
		return nil, fmt.Errorf("%w: no certificate stored for block %d", backend.ErrNotFound, num-1)
	}
	if err != nil {
		return nil, err
	}
	// The stored certificate is the one the block commits to unless the
	// block predates certificates in headers; say so rather than show
	// another.
	root := pos.CertRoot(enc)
	if r := blk.Header().ParentBeaconRoot; r == nil || *r != root {
		return nil, fmt.Errorf("%w: block %d does not commit to the stored certificate of block %d", backend.ErrNotFound, num, num-1)
	}
	return c.decode(num-1, enc, root)
}

func (c commits) SeenCommit(num uint64) (*backend.Commit, error) {
	ch := c.n.Chain
	if pos.Of(ch) == nil {
		return nil, backend.ErrStakingDisabled
	}
	if num == 0 {
		return nil, fmt.Errorf("%w: the genesis block is decided by no commit", backend.ErrNotFound)
	}
	blk, err := ch.BlockByNumber(num)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d", backend.ErrNotFound, num)
	}
	enc, err := ch.Certificate(num)
	if errors.Is(err, chain.ErrNotFound) {
		return nil, fmt.Errorf("%w: no certificate stored for block %d", backend.ErrNotFound, num)
	}
	if err != nil {
		return nil, err
	}
	out, err := c.decode(num, enc, pos.CertRoot(enc))
	if err != nil {
		return nil, err
	}
	// A certificate of another block at this height (one a rewound chain
	// left) is not this block's.
	if out.Height != num || out.BlockHash != blk.Hash() {
		return nil, fmt.Errorf("%w: the certificate stored for block %d decides %s at height %d", backend.ErrNotFound, num, out.BlockHash, out.Height)
	}
	return out, nil
}

// decode renders the certificate enc of block height with the members of
// that height's validator set in set order.
func (c commits) decode(height uint64, enc []byte, root types.Hash) (*backend.Commit, error) {
	cert, err := consensus.DecodeCertificate(enc)
	if err != nil {
		return nil, err
	}
	src := c.n.Validators()
	if src == nil {
		return nil, fmt.Errorf("%w: this node runs no consensus engine", backend.ErrUnavailable)
	}
	set, err := src.ValidatorSet(height)
	if err != nil {
		return nil, fmt.Errorf("%w: validator set of height %d: %v", backend.ErrNotFound, height, err)
	}
	out := &backend.Commit{Height: cert.Height, Round: cert.Round, BlockHash: cert.BlockHash, Root: root}
	k := 0
	for i, v := range set.Validators() {
		s := backend.CommitSig{Validator: v.Address, Power: v.Power}
		if i/8 < len(cert.Signers) && cert.Signers[i/8]&(1<<(i%8)) != 0 && k < len(cert.Signatures) {
			s.Signature = cert.Signatures[k]
			k++
		}
		out.Signatures = append(out.Signatures, s)
	}
	return out, nil
}

func (c commits) Evidence(num uint64) ([]backend.DoubleSignEvidence, error) {
	ch := c.n.Chain
	if pos.Of(ch) == nil {
		return nil, backend.ErrStakingDisabled
	}
	if num == 0 {
		return nil, nil // the genesis block's extra data is the genesis's own
	}
	blk, err := ch.BlockByNumber(num)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d", backend.ErrNotFound, num)
	}
	cd, err := pos.DecodeConsensusData(blk.HeaderRef().Extra)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", num, err)
	}
	out := make([]backend.DoubleSignEvidence, 0, len(cd.Evidence))
	for _, ev := range cd.Evidence {
		out = append(out, backend.DoubleSignEvidence{A: evidenceVote(ev.A), B: evidenceVote(ev.B), Encoded: ev.Encode()})
	}
	return out, nil
}

func evidenceVote(v consensus.Vote) backend.EvidenceVote {
	return backend.EvidenceVote{Type: uint8(v.Type), Height: v.Height, Round: v.Round, BlockHash: v.ID, Validator: v.Validator, Signature: v.Signature}
}
