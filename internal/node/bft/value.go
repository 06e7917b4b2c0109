package bft

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// A value the validators decide is rlp([block, certificate of the parent]).
// The block's ParentBeaconRoot is keccak256 of that certificate (zero on
// top of the genesis block, which has none), so block h+1 commits to the
// proof that block h was decided, and anyone holding the chain can check
// every block's finality without the validators' help.

// EncodeValue returns the consensus value of a block and its parent's
// certificate (nil on top of the genesis block).
func EncodeValue(b *types.Block, parentCert []byte) consensus.Value {
	var buf rlp.Buffer
	l := buf.List()
	buf.WriteRaw(b.EncodeRLP())
	buf.WriteBytes(parentCert)
	buf.ListEnd(l)
	return consensus.Value{ID: b.Hash(), Data: buf.Bytes()}
}

// DecodeValue splits a value into its block and parent certificate and
// checks that the value's ID is the block's hash.
func DecodeValue(v consensus.Value) (*types.Block, []byte, error) {
	content, rest, err := rlp.SplitList(v.Data)
	if err != nil || len(rest) != 0 {
		return nil, nil, errors.New("bft: malformed value")
	}
	_, _, after, err := rlp.Split(content)
	if err != nil {
		return nil, nil, fmt.Errorf("bft: malformed value: %w", err)
	}
	b, err := types.DecodeBlock(content[:len(content)-len(after)])
	if err != nil {
		return nil, nil, err
	}
	cert, rest, err := rlp.SplitString(after)
	if err != nil || len(rest) != 0 {
		return nil, nil, errors.New("bft: malformed parent certificate")
	}
	if b.Hash() != v.ID {
		return nil, nil, errors.New("bft: value id is not the block hash")
	}
	if len(cert) == 0 {
		cert = nil
	}
	return b, cert, nil
}
