package dev

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chaind/chaind/internal/types"
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
	return d.rollback(ctx, depth)
}

// rollback is Rollback with d.mu held.
func (d *Tools) rollback(ctx context.Context, depth uint64) error {
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

// Reorg implements backend.DevTools: the chain's last depth blocks are
// replaced by as many new ones, as anvil_reorg does. New block i holds
// txs[i] (none when absent) and nothing else; a transaction the pool
// refuses is left out, as anvil leaves out one that does not apply. The
// pool is left as it was before, so the replaced blocks' transactions
// are gone unless sent again.
func (d *Tools) Reorg(ctx context.Context, depth uint64, txs map[uint64][]*types.Transaction) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	saved := d.n.Pool.Save()
	// Neither automine nor interval mining makes a block of its own
	// between the new ones.
	m := d.miner
	var automine bool
	var lo, hi time.Duration
	m.with(func(m *devMiner) {
		automine, lo, hi = m.automine, m.intervalMin, m.intervalMax
		m.automine, m.intervalMin, m.intervalMax, m.interval = false, 0, 0, 0
	})
	defer m.with(func(m *devMiner) {
		m.automine, m.intervalMin, m.intervalMax = automine, lo, hi
		m.nextInterval()
		m.last = m.now()
	})
	if err := d.rollback(ctx, depth); err != nil {
		return err
	}
	for i := range depth {
		err := m.quiet(ctx, func() error {
			d.n.Pool.Clear()
			for _, tx := range txs[i] {
				d.n.Pool.Add(tx) // refused: left out (see above)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if _, err := m.mine(ctx, []uint64{0}); err != nil {
			return fmt.Errorf("reorg block %d of %d: %w", i+1, depth, err)
		}
	}
	d.n.restorePool(saved)
	return nil
}
