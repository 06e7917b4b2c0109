package ethapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// BlockRef is a block parameter: a number or tag, or (EIP-1898) a hash.
type BlockRef struct {
	Tag              string // "latest", "earliest", "pending", "safe", "finalized" or ""
	Number           uint64
	Hash             *types.Hash
	RequireCanonical bool
}

var (
	errHexPrefix = errors.New("hex string without 0x prefix")
	errHexEmpty  = errors.New("hex string \"0x\"")
)

// UnmarshalJSON accepts "latest"-style tags, hex quantities, 32-byte block
// hashes and the EIP-1898 object forms.
func (r *BlockRef) UnmarshalJSON(input []byte) error {
	*r = BlockRef{} // callers decode over a default ("latest"); nothing of it may survive
	if len(input) > 0 && input[0] == '{' {
		var obj struct {
			BlockNumber      *string     `json:"blockNumber"`
			BlockHash        *types.Hash `json:"blockHash"`
			RequireCanonical bool        `json:"requireCanonical"`
		}
		if err := json.Unmarshal(input, &obj); err != nil {
			return err
		}
		switch {
		case obj.BlockHash != nil && obj.BlockNumber != nil:
			return errors.New("cannot specify both BlockHash and BlockNumber, choose one or the other")
		case obj.BlockHash != nil:
			r.Hash, r.RequireCanonical = obj.BlockHash, obj.RequireCanonical
			return nil
		case obj.BlockNumber != nil:
			return r.parse(*obj.BlockNumber)
		}
		return errors.New("block parameter object needs blockHash or blockNumber")
	}
	var s string
	if err := json.Unmarshal(input, &s); err != nil {
		return err
	}
	return r.parse(s)
}

func (r *BlockRef) parse(s string) error {
	switch s {
	case "latest", "earliest", "pending", "safe", "finalized":
		r.Tag = s
		return nil
	}
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return errHexPrefix
	}
	if len(s) == 66 {
		h, err := types.HexToHash(s)
		if err != nil {
			return err
		}
		r.Hash = &h
		return nil
	}
	n, err := parseQuantity(s)
	if err != nil {
		return err
	}
	r.Number = n
	return nil
}

// parseQuantity reads a strict JSON-RPC QUANTITY: 0x, no leading zeros.
func parseQuantity(s string) (uint64, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, errHexPrefix
	}
	d := s[2:]
	if d == "" {
		return 0, errHexEmpty
	}
	if len(d) > 1 && d[0] == '0' {
		return 0, errors.New("hex number with leading zero digits")
	}
	if len(d) > 16 {
		return 0, errors.New("hex number > 64 bits")
	}
	var n uint64
	for _, c := range d {
		var v uint64
		switch {
		case c >= '0' && c <= '9':
			v = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v = uint64(c-'A') + 10
		default:
			return 0, errors.New("invalid hex string")
		}
		n = n<<4 | v
	}
	return n, nil
}

// Quantity is a strict QUANTITY parameter.
type Quantity uint64

// UnmarshalJSON implements json.Unmarshaler.
func (q *Quantity) UnmarshalJSON(input []byte) error {
	var s string
	if err := json.Unmarshal(input, &s); err != nil {
		return err
	}
	n, err := parseQuantity(s)
	*q = Quantity(n)
	return err
}

// latestRef is the default block parameter.
var latestRef = BlockRef{Tag: "latest"}

// resolve finds the block a reference names; a nil block with a nil error
// means it does not exist (methods answer null).
func resolve(b backend.Blocks, ref BlockRef) (*types.Block, error) {
	if ref.Hash != nil {
		blk, err := b.BlockByHash(*ref.Hash)
		if errors.Is(err, backend.ErrNotFound) {
			return nil, nil
		}
		if err == nil && ref.RequireCanonical && b.CanonicalHash(blk.Number()) != blk.Hash() {
			return nil, fmt.Errorf("hash %s is not currently canonical", ref.Hash)
		}
		return blk, err
	}
	switch ref.Tag {
	case "latest", "pending", "safe", "finalized":
		// A BFT chain's head is final: safe and finalized are the head.
		return b.Head(), nil
	case "earliest":
		return orNil(b.BlockByNumber(0))
	}
	return orNil(b.BlockByNumber(ref.Number))
}

func orNil(blk *types.Block, err error) (*types.Block, error) {
	if errors.Is(err, backend.ErrNotFound) {
		return nil, nil
	}
	return blk, err
}

// resolveState is resolve for methods that read state: an unknown block is
// an error there, as go-ethereum reports it.
func resolveState(b backend.Blocks, ref BlockRef) (*types.Block, error) {
	blk, err := resolve(b, ref)
	if err != nil {
		return nil, err
	}
	if blk == nil {
		if ref.Hash != nil {
			return nil, errors.New("header for hash not found")
		}
		return nil, errors.New("header not found")
	}
	return blk, nil
}
