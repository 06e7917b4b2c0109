package dev

import (
	"context"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// devNext are a --dev node's choices for the blocks it makes next: a fee
// recipient and a gas limit for all of them (hardhat_setCoinbase,
// evm_setBlockGasLimit), and a base fee and a
// PREVRANDAO for the next one alone. The one-shot choices are for the
// block on parent: once the head moves they no longer apply, so the pool,
// re-validated as a block commits, already sees the chain's own base fee
// again.
type devNext struct {
	coinbase *types.Address // nil: the validator's address
	gasLimit uint64         // 0: the proposer's target, 1/1024 a block
	parent   types.Hash
	baseFee  *uint256.Int
	randao   *types.Hash
}

// on is what was chosen for a block on parent.
func (x *devNext) on(parent types.Hash) chainview.Choices {
	nb := chainview.Choices{Coinbase: x.coinbase, GasLimit: x.gasLimit}
	if parent == x.parent {
		nb.BaseFee, nb.Random = x.baseFee, x.randao
	}
	return nb
}

// forBlockOn readies the one-shot choices for a block on parent, dropping
// any made for another parent.
func (x *devNext) forBlockOn(parent types.Hash) {
	if x.parent != parent {
		x.parent, x.baseFee, x.randao = parent, nil, nil
	}
}

// used drops the one-shot choices: their block is made.
func (x *devNext) used() { x.baseFee, x.randao = nil, nil }

// order is a mining order at time t; m.mu held. The choices for the
// block are read from the chain view as it is built (nextOn): until the
// order is done the miner is busy and no helper changes them.
func (m *devMiner) order(t uint64, force bool) bft.MineOrder {
	return bft.MineOrder{Time: t, Force: force}
}

// nextOn is what was chosen for the block on parent (the chain view's
// Choices).
func (m *devMiner) nextOn(parent types.Hash) chainview.Choices {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next.on(parent)
}

// SetCoinbase implements backend.DevNextBlock.
func (d *Tools) SetCoinbase(ctx context.Context, a types.Address) error {
	// Set while no block is being built, so that the next block built
	// takes it whole.
	return d.miner.quiet(ctx, func() error {
		d.miner.next.coinbase = &a
		return nil
	})
}

// Coinbase implements backend.DevNextBlock.
func (d *Tools) Coinbase() (types.Address, bool) {
	d.miner.mu.Lock()
	defer d.miner.mu.Unlock()
	if cb := d.miner.next.coinbase; cb != nil {
		return *cb, true
	}
	return types.Address{}, false
}

// SetNextBlockBaseFee implements backend.DevNextBlock.
func (d *Tools) SetNextBlockBaseFee(ctx context.Context, fee *uint256.Int) error {
	c := d.n.Chain
	err := d.miner.quiet(ctx, func() error {
		head := c.Head()
		// The chain's own next block (the view's would read the choices
		// under the lock quiet holds).
		if c.Config.NextBlockParams(head.HeaderRef(), &chain.Attributes{}).BaseFee == nil {
			return backend.ErrBaseFeeInactive
		}
		d.miner.next.forBlockOn(head.Hash())
		d.miner.next.baseFee = new(uint256.Int).Set(fee)
		return nil
	})
	if err == nil {
		d.n.refreshPool() // the pool admits by the next block's base fee
	}
	return err
}

// SetNextBlockRandao implements backend.DevNextBlock.
func (d *Tools) SetNextBlockRandao(ctx context.Context, r types.Hash) error {
	return d.miner.quiet(ctx, func() error {
		d.miner.next.forBlockOn(d.n.Chain.Head().Hash())
		d.miner.next.randao = &r
		return nil
	})
}

// SetBlockGasLimit implements backend.DevNextBlock.
func (d *Tools) SetBlockGasLimit(ctx context.Context, limit uint64) error {
	err := d.miner.quiet(ctx, func() error {
		d.miner.next.gasLimit = limit
		return nil
	})
	if err == nil {
		d.n.refreshPool() // the pool admits by the next block's gas limit
	}
	return err
}

// DropTransaction implements backend.DevNextBlock.
func (d *Tools) DropTransaction(ctx context.Context, h types.Hash) (bool, error) {
	dropped := false
	err := d.miner.quiet(ctx, func() error {
		dropped = d.n.Pool.Remove(h) == 1
		return nil
	})
	return dropped, err
}

// DropAllTransactions implements backend.DevNextBlock.
func (d *Tools) DropAllTransactions(ctx context.Context) error {
	return d.miner.quiet(ctx, func() error {
		d.n.Pool.Clear()
		return nil
	})
}
