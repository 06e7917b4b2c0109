package dev

import (
	"context"
	"errors"
	"fmt"
)

// ErrRollbackTooDeep is Rollback's error for more blocks than the chain
// has after its genesis.
var ErrRollbackTooDeep = errors.New("cannot roll back past the genesis block")

// Rollback implements backend.DevTools: the chain's last depth blocks are
// dropped, as anvil_rollback does; their transactions go back to the
// pool when they still apply, and snapshots of the dropped blocks go with
// them.
func (d *Tools) Rollback(ctx context.Context, depth uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.miner.pause(ctx); err != nil {
		return err
	}
	defer d.miner.resume()
	c := d.n.Chain
	head := c.Head().Number()
	if depth > head {
		return fmt.Errorf("%w: %d blocks asked, the head is block %d", ErrRollbackTooDeep, depth, head)
	}
	if depth == 0 {
		return nil
	}
	target := head - depth
	d.n.stopConsensusAndWait()
	err := d.n.View.Rewind(target)
	if rerr := d.n.startConsensus(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("roll back to block %d: %w", target, err)
	}
	b := c.Head()
	if err := d.n.View.UseHeadState(b.Hash(), b.Root()); err != nil {
		return fmt.Errorf("roll back to block %d: %w", target, err)
	}
	kept := d.snaps[:0]
	for _, s := range d.snaps {
		if s.number <= target {
			kept = append(kept, s)
		}
	}
	d.snaps = kept
	d.n.refreshPool()
	return nil
}
