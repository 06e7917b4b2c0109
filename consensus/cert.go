package consensus

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// ErrCertificate wraps every reason a commit certificate is rejected.
var ErrCertificate = errors.New("consensus: invalid commit certificate")

// Certificate proves that a block was decided: precommits for its hash at
// one round from validators holding more than two thirds of the power of
// the height's validator set. Block h+1 commits to the certificate of
// block h. Signers is a bitmap over the validator set in address order
// (bit i of byte i/8, least significant first); Signatures holds one
// 65-byte signature per set bit, in validator order.
type Certificate struct {
	Height     uint64
	Round      int32
	BlockHash  types.Hash
	Signers    []byte
	Signatures [][]byte
}

// NewCertificate builds the certificate of a decision from its signed
// precommits. Votes for other values, heights or rounds and unsigned votes
// are skipped; it fails if what is left is not a quorum.
func NewCertificate(vals *ValidatorSet, height uint64, round int32, blockHash types.Hash, precommits []Vote) (*Certificate, error) {
	n := vals.Len()
	sigs := make([][]byte, n)
	var power int64
	for _, v := range precommits {
		if v.Type != Precommit || v.Height != height || v.Round != round || v.ID != blockHash || len(v.Signature) != 65 {
			continue
		}
		i, ok := vals.Index(v.Validator)
		if !ok || sigs[i] != nil {
			continue
		}
		sigs[i] = v.Signature
		power += vals.vals[i].Power
	}
	if !vals.HasQuorum(power) {
		return nil, fmt.Errorf("%w: signed power %d of %d is not a quorum", ErrCertificate, power, vals.TotalPower())
	}
	c := &Certificate{Height: height, Round: round, BlockHash: blockHash, Signers: make([]byte, (n+7)/8)}
	for i, sig := range sigs {
		if sig != nil {
			c.Signers[i/8] |= 1 << (i % 8)
			c.Signatures = append(c.Signatures, sig)
		}
	}
	return c, nil
}

// VerifyCertificate checks c against the validator set of its height: the
// height and block are the expected ones, every signature is a precommit
// of the validator its bit names, and the signers hold a quorum. It is a
// pure function of its arguments.
func VerifyCertificate(chainID uint64, vals *ValidatorSet, height uint64, blockHash types.Hash, c *Certificate) error {
	if c.Height != height || c.BlockHash != blockHash {
		return fmt.Errorf("%w: for %d/%x, want %d/%x", ErrCertificate, c.Height, c.BlockHash[:4], height, blockHash[:4])
	}
	if c.Round < 0 {
		return fmt.Errorf("%w: negative round", ErrCertificate)
	}
	n := vals.Len()
	if len(c.Signers) != (n+7)/8 {
		return fmt.Errorf("%w: bitmap of %d bytes for %d validators", ErrCertificate, len(c.Signers), n)
	}
	if n%8 != 0 && c.Signers[len(c.Signers)-1]>>(n%8) != 0 {
		return fmt.Errorf("%w: bits set beyond the validator set", ErrCertificate)
	}
	count := 0
	for _, b := range c.Signers {
		count += bits.OnesCount8(b)
	}
	if count != len(c.Signatures) {
		return fmt.Errorf("%w: %d signers but %d signatures", ErrCertificate, count, len(c.Signatures))
	}
	var power int64
	k := 0
	for i := range n {
		if c.Signers[i/8]&(1<<(i%8)) == 0 {
			continue
		}
		v := Vote{Type: Precommit, Height: height, Round: c.Round, ID: blockHash, Validator: vals.vals[i].Address, Signature: c.Signatures[k]}
		k++
		if err := VerifyVote(chainID, v); err != nil {
			return fmt.Errorf("%w: validator %d: %v", ErrCertificate, i, err)
		}
		power += vals.vals[i].Power
	}
	if !vals.HasQuorum(power) {
		return fmt.Errorf("%w: signed power %d of %d is not a quorum", ErrCertificate, power, vals.TotalPower())
	}
	return nil
}

// Encode returns rlp([height, round, blockHash, signers, [sig, ...]]).
func (c *Certificate) Encode() []byte {
	var b rlp.Buffer
	l := b.List()
	b.WriteUint64(c.Height)
	b.WriteUint64(uint64(c.Round))
	b.WriteBytes(c.BlockHash[:])
	b.WriteBytes(c.Signers)
	sl := b.List()
	for _, s := range c.Signatures {
		b.WriteBytes(s)
	}
	b.ListEnd(sl)
	b.ListEnd(l)
	return b.Bytes()
}

// DecodeCertificate parses Certificate.Encode output. It checks the shape
// only; VerifyCertificate checks the content.
func DecodeCertificate(enc []byte) (*Certificate, error) {
	c := &Certificate{}
	d := newDecoder(enc)
	c.Height = d.uint64()
	c.Round = d.round0()
	d.fixed(c.BlockHash[:])
	c.Signers = d.bytes()
	for _, raw := range d.items() {
		s, rest, err := rlp.SplitString(raw)
		if err != nil || len(rest) != 0 || len(s) != 65 {
			return nil, fmt.Errorf("%w: certificate signature", ErrMalformed)
		}
		c.Signatures = append(c.Signatures, bytes.Clone(s))
	}
	if err := d.finish(); err != nil {
		return nil, fmt.Errorf("consensus: certificate: %w", err)
	}
	return c, nil
}
