package ethbackend

import (
	"context"

	"github.com/chaind/chaind/internal/types"
)

// SetSentHook installs f to run after every transaction the pool accepts
// from a client: a development node that automines waits there until the
// transaction is in a block, as Hardhat Network does, so a test reads its
// effects right after sending. Its error (no block can be built) is the
// send's answer, never a hang. Set before serving.
func (b *Backend) SetSentHook(f func(ctx context.Context, tx *types.Transaction) error) { b.sent = f }

func (b *Backend) afterSend(ctx context.Context, tx *types.Transaction) error {
	if b.sent != nil {
		return b.sent(ctx, tx)
	}
	return nil
}
