package consensus

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// SignPrefix separates consensus signatures from every other use of a
// validator key: no transaction, personal message or other protocol
// digest starts with these bytes.
const SignPrefix = "chaind/consensus/v1"

// msgProposal is the type byte of a proposal in signed bytes; votes use
// their VoteType (1 and 2).
const msgProposal = 0x20

// ErrBadSignature is returned when a signature does not recover to the
// claimed signer.
var ErrBadSignature = errors.New("consensus: bad signature")

// signDigest is keccak256(SignPrefix || rlp([chainID, type, height, round,
// blockHash, validRound+1])). Votes sign validRound+1 = 0.
func signDigest(chainID uint64, typ byte, height uint64, round int32, id types.Hash, validRound int32) types.Hash {
	var b rlp.Buffer
	l := b.List()
	b.WriteUint64(chainID)
	b.WriteUint64(uint64(typ))
	b.WriteUint64(height)
	b.WriteUint64(uint64(round))
	b.WriteBytes(id[:])
	b.WriteUint64(uint64(int64(validRound) + 1))
	b.ListEnd(l)
	return crypto.Keccak256([]byte(SignPrefix), b.Bytes())
}

// VoteDigest is the digest a validator signs for v.
func VoteDigest(chainID uint64, v Vote) types.Hash {
	return signDigest(chainID, byte(v.Type), v.Height, v.Round, v.ID, -1)
}

// ProposalDigest is the digest a proposer signs for p. It covers the
// value's hash, not its bytes: the application checks that they match.
func ProposalDigest(chainID uint64, p Proposal) types.Hash {
	return signDigest(chainID, msgProposal, p.Height, p.Round, p.Value.ID, p.ValidRound)
}

// Signer signs votes and proposals with one validator key.
type Signer struct {
	chainID uint64
	key     *secp256k1.PrivateKey
	addr    types.Address
}

// NewSigner parses a 32-byte secp256k1 private key.
func NewSigner(chainID uint64, key []byte) (*Signer, error) {
	k, err := crypto.ToPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Signer{chainID: chainID, key: k, addr: crypto.PrivkeyToAddress(k)}, nil
}

// Address is the validator address of the key.
func (s *Signer) Address() types.Address { return s.addr }

// ChainID is the chain the signer signs for.
func (s *Signer) ChainID() uint64 { return s.chainID }

// SignVote sets v.Validator and v.Signature.
func (s *Signer) SignVote(v *Vote) {
	v.Validator = s.addr
	sig := crypto.Sign(VoteDigest(s.chainID, *v), s.key)
	v.Signature = sig[:]
}

// SignProposal sets p.Proposer and p.Signature.
func (s *Signer) SignProposal(p *Proposal) {
	p.Proposer = s.addr
	sig := crypto.Sign(ProposalDigest(s.chainID, *p), s.key)
	p.Signature = sig[:]
}

// VerifyVote checks that v is signed by v.Validator for chainID.
func VerifyVote(chainID uint64, v Vote) error {
	return verify(VoteDigest(chainID, v), v.Signature, v.Validator)
}

// VerifyProposal checks that p is signed by p.Proposer for chainID.
func VerifyProposal(chainID uint64, p Proposal) error {
	return verify(ProposalDigest(chainID, p), p.Signature, p.Proposer)
}

func verify(digest types.Hash, sig []byte, want types.Address) error {
	if len(sig) != 65 {
		return fmt.Errorf("%w: length %d", ErrBadSignature, len(sig))
	}
	got, err := crypto.RecoverAddress(digest, sig)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	if got != want {
		return fmt.Errorf("%w: signed by %x, not %x", ErrBadSignature, got, want)
	}
	return nil
}

// SigCache remembers signatures that verified, so that one message
// delivered to many cores in one process is checked once. It holds at
// most a given number of entries and starts over when full. Not safe for
// concurrent use.
type SigCache struct {
	max int
	ok  map[sigEntry]struct{}
}

type sigEntry struct {
	digest types.Hash
	sig    [65]byte
	signer types.Address
}

// NewSigCache returns a cache of at most size entries.
func NewSigCache(size int) *SigCache {
	return &SigCache{max: max(size, 1), ok: make(map[sigEntry]struct{})}
}

// verify is the package's verify, remembering successes. A nil cache just
// verifies.
func (c *SigCache) verify(digest types.Hash, sig []byte, want types.Address) error {
	if c == nil || len(sig) != 65 {
		return verify(digest, sig, want)
	}
	k := sigEntry{digest, [65]byte(sig), want}
	if _, ok := c.ok[k]; ok {
		return nil
	}
	if err := verify(digest, sig, want); err != nil {
		return err
	}
	if len(c.ok) >= c.max {
		clear(c.ok)
	}
	c.ok[k] = struct{}{}
	return nil
}
