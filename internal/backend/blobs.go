package backend

import (
	"context"

	"github.com/chaind/chaind/internal/types"
)

// BlobPool takes blob transactions in their network form.
type BlobPool interface {
	// SendPooledTransaction is SendTransaction for a transaction sent with
	// its blob sidecar (nil for any other transaction): the blobs are
	// verified against the versioned hashes and kept until inclusion.
	SendPooledTransaction(ctx context.Context, tx *types.Transaction, sc *types.BlobSidecar) error
}
