package txpool

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm/precompile/kzg"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
)

// Rejections of blob sidecars.
var (
	ErrMissingSidecar  = errors.New("blob transaction without its blobs: send it in its network form (blobs, commitments and proofs)")
	ErrUnexpectedBlobs = errors.New("blobs sent with a transaction that is not a blob transaction")
	ErrSidecarCount    = errors.New("blob sidecar does not match the transaction's blob hashes")
	ErrSidecarHash     = errors.New("blob commitment does not match its versioned hash")
	ErrSidecarProof    = errors.New("invalid blob proof")
	ErrSidecarVersion  = errors.New("blob sidecar version not valid at this fork")
)

// VerifySidecar checks that sc is what tx's versioned hashes commit to:
// one blob and one commitment per hash, each commitment hashing to its
// versioned hash, and every proof valid. Before Osaka the proofs are one
// KZG proof per blob (wrapper version 0); from Osaka they are the
// EIP-7594 cell proofs (version 1). A transaction that is not a blob
// transaction must come without a sidecar.
func VerifySidecar(tx *types.Transaction, sc *types.BlobSidecar, fork forks.Fork) error {
	if tx.Type() != types.BlobTxType {
		if sc != nil {
			return ErrUnexpectedBlobs
		}
		return nil
	}
	if sc == nil {
		return ErrMissingSidecar
	}
	hashes := tx.BlobHashes()
	if len(sc.Blobs) != len(hashes) || len(sc.Commitments) != len(hashes) {
		return fmt.Errorf("%w: %d hashes, %d blobs, %d commitments", ErrSidecarCount, len(hashes), len(sc.Blobs), len(sc.Commitments))
	}
	for i, c := range sc.Commitments {
		if types.Hash(kzg.VersionedHash(c)) != hashes[i] {
			return fmt.Errorf("%w: blob %d", ErrSidecarHash, i)
		}
	}
	want := types.SidecarBlobProofs
	if fork >= forks.Osaka {
		want = types.SidecarCellProofs
	}
	if sc.Version != want {
		return fmt.Errorf("%w: version %d, %v takes version %d", ErrSidecarVersion, sc.Version, fork, want)
	}
	if sc.Version == types.SidecarCellProofs {
		if len(sc.Proofs) != types.CellProofsPerBlob*len(hashes) {
			return fmt.Errorf("%w: %d cell proofs for %d blobs", ErrSidecarCount, len(sc.Proofs), len(hashes))
		}
		// Every cell of every blob, in one batch: the cells are computed
		// from the blobs, so the proofs are checked against the blobs.
		if err := kzg.VerifyCellProofs(sc.Blobs, sc.Commitments, sc.Proofs); err != nil {
			return fmt.Errorf("%w: %v", ErrSidecarProof, err)
		}
		return nil
	}
	if len(sc.Proofs) != len(hashes) {
		return fmt.Errorf("%w: %d proofs for %d blobs", ErrSidecarCount, len(sc.Proofs), len(hashes))
	}
	for i := range sc.Blobs {
		if err := kzg.VerifyBlobProof(sc.Blobs[i], sc.Commitments[i], sc.Proofs[i]); err != nil {
			return fmt.Errorf("%w: blob %d: %v", ErrSidecarProof, i, err)
		}
	}
	return nil
}

// Sidecar returns the blobs of a pooled blob transaction; false when the
// transaction is not pooled (included transactions lose theirs).
func (p *Pool) Sidecar(h types.Hash) (*types.BlobSidecar, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	e, ok := p.all[h]
	if !ok || e.sidecar == nil {
		return nil, false
	}
	return e.sidecar, true
}
