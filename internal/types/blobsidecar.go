package types

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/rlp"
)

// A blob transaction travels between a client and a node (and between
// pools) in its network form, which wraps the transaction with what its
// versioned hashes commit to:
//
//	0x03 || rlp([tx_payload, blobs, commitments, proofs])          version 0 (EIP-4844)
//	0x03 || rlp([tx_payload, 1, blobs, commitments, cell_proofs])  version 1 (EIP-7594, Osaka)
//
// where tx_payload is the list a block holds after the type byte. Only
// that inner transaction enters a block, and only it is hashed.

// Sizes of the blob sidecar's parts.
const (
	BlobSize          = 4096 * 32 // 4096 field elements of 32 bytes
	KZGCommitmentSize = 48        // a compressed G1 point
	KZGProofSize      = 48
	CellProofsPerBlob = 128 // EIP-7594: one proof per cell of the extended blob
)

// Wrapper versions of the network form.
const (
	SidecarBlobProofs byte = 0 // one KZG proof per blob
	SidecarCellProofs byte = 1 // CellProofsPerBlob proofs per blob
)

// Errors of the network form.
var (
	ErrSidecarShape   = errors.New("malformed blob sidecar")
	ErrSidecarVersion = errors.New("unknown blob sidecar version")
)

// BlobSidecar is what a blob transaction's network form carries besides
// the transaction.
type BlobSidecar struct {
	Version     byte
	Blobs       [][]byte
	Commitments [][]byte
	Proofs      [][]byte
}

// DecodePooledTx decodes a transaction as a client sends it: the canonical
// binary form of any transaction, or a blob transaction in its network
// form, whose sidecar is returned (nil for the canonical form).
func DecodePooledTx(b []byte) (*Transaction, *BlobSidecar, error) {
	if len(b) < 2 || b[0] != BlobTxType {
		tx, err := DecodeTx(b)
		return tx, nil, err
	}
	outer, err := splitOneList(b[1:])
	if err != nil {
		return nil, nil, decodeErr("blob transaction", err)
	}
	kind, _, _, err := rlp.Split(outer)
	if err != nil {
		return nil, nil, decodeErr("blob transaction", err)
	}
	if kind != rlp.List {
		// The canonical form: the payload's first field is the chain ID.
		tx, err := DecodeTx(b)
		return tx, nil, err
	}
	payload, rest, err := rlp.SplitRaw(outer)
	if err != nil {
		return nil, nil, decodeErr("blob transaction", err)
	}
	tx, err := DecodeTx(append([]byte{BlobTxType}, payload...))
	if err != nil {
		return nil, nil, err
	}
	sc := &BlobSidecar{Version: SidecarBlobProofs}
	if k, v, after, err := rlp.Split(rest); err == nil && k != rlp.List && len(v) <= 1 {
		// Only the versioned form has a small integer here; blobs are
		// long strings inside a list.
		if len(v) == 0 || v[0] != SidecarCellProofs {
			return nil, nil, fmt.Errorf("%w: %x", ErrSidecarVersion, v)
		}
		sc.Version, rest = SidecarCellProofs, after
	}
	if sc.Blobs, rest, err = splitFixedList(rest, BlobSize, "blobs"); err != nil {
		return nil, nil, err
	}
	if sc.Commitments, rest, err = splitFixedList(rest, KZGCommitmentSize, "commitments"); err != nil {
		return nil, nil, err
	}
	if sc.Proofs, rest, err = splitFixedList(rest, KZGProofSize, "proofs"); err != nil {
		return nil, nil, err
	}
	if len(rest) != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after the proofs", ErrSidecarShape, len(rest))
	}
	return tx, sc, nil
}

// splitFixedList reads a list of byte strings of exactly size bytes each.
func splitFixedList(b []byte, size int, what string) (items [][]byte, rest []byte, err error) {
	content, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrSidecarShape, what, err)
	}
	for len(content) > 0 {
		var s []byte
		if s, content, err = rlp.SplitString(content); err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %v", ErrSidecarShape, what, err)
		}
		if len(s) != size {
			return nil, nil, fmt.Errorf("%w: %s: item of %d bytes, want %d", ErrSidecarShape, what, len(s), size)
		}
		items = append(items, s)
	}
	return items, rest, nil
}

// EncodePooledTx returns the network form of a blob transaction with its
// sidecar.
func EncodePooledTx(tx *Transaction, sc *BlobSidecar) []byte {
	bin, _ := tx.MarshalBinary()
	payload := bin[1:]
	list := func(items [][]byte) []byte {
		var c []byte
		for _, it := range items {
			c = rlp.AppendString(c, it)
		}
		return append(rlp.AppendListHeader(nil, len(c)), c...)
	}
	content := append([]byte(nil), payload...)
	if sc.Version != SidecarBlobProofs {
		content = rlp.AppendUint64(content, uint64(sc.Version))
	}
	content = append(content, list(sc.Blobs)...)
	content = append(content, list(sc.Commitments)...)
	content = append(content, list(sc.Proofs)...)
	out := append([]byte{BlobTxType}, rlp.AppendListHeader(nil, len(content))...)
	return append(out, content...)
}
