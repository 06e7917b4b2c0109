package dev

import (
	"context"
)

// SetChainID implements backend.DevTools (anvil_setChainId): the blocks
// after the head, and calls on the head's state, take chain ID id; the
// head and the blocks before it keep theirs, so re-executing or tracing
// them gives what it gave when they were made (chain.Config.ChainIDAt).
// The change is stored with the chain. It waits for no block to be in the
// making, and then moves the pool onto the new ID: transactions signed
// for the old one are refused from now on, and pending ones are dropped by
// the next block. The validator keeps signing its consensus messages for
// the genesis's ID, the network's identity, which nothing outside the node
// sees.
func (d *Tools) SetChainID(ctx context.Context, id uint64) error {
	err := d.miner.quiet(ctx, func() error { return d.n.Chain.SetChainID(id) })
	if err == nil {
		d.n.refreshPool()
	}
	return err
}

// chainID is the chain ID of the next block: what eth_chainId answers.
func (d *Tools) chainID() uint64 {
	return d.n.Chain.Config.ChainIDAt(d.n.Chain.Head().Number() + 1)
}
