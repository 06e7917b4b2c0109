package bft

import (
	"context"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// Miner decides when a development chain makes blocks and with which
// timestamps: automatic mining of pooled transactions, mining at an
// interval, blocks made on request (evm_mine), a clock moved forward. The
// chain application consults it instead of its block time, so the one
// block producer stays consensus; the Miner only says when.
type Miner interface {
	// Await blocks until a block is due and says how to make it. retry
	// reports that the previous order made no block (none of the pending
	// transactions applied): an unforced block is then due only once the
	// pool has changed.
	Await(ctx context.Context, retry bool) (MineOrder, error)
	// Done reports the outcome of an order: the block proposed (nil if
	// none) or the error that kept it from being built.
	Done(o MineOrder, proposed *types.Block, err error)
}

// MineOrder is one block the Miner asks for.
type MineOrder struct {
	Time uint64 // the block's timestamp; 0 with TimeMs 0 is the wall clock
	// TimeMs, when set, is the block's time in milliseconds instead: on a
	// chain that records it the block may share its parent's second.
	TimeMs uint64
	Force  bool // made even when it carries no transaction
	// The development node's choices for the block (fee recipient, base
	// fee, PREVRANDAO) are read from the chain view when it is built: the
	// Miner holds back every change to them while an order runs.
}

// proposeMined is Propose under a Miner.
func (a *ChainApp) proposeMined(ctx context.Context, height uint64) (consensus.Value, error) {
	retry := false
	for {
		o, err := a.cfg.Miner.Await(ctx, retry)
		if err != nil {
			return consensus.Value{}, err
		}
		if o.Time == 0 && o.TimeMs == 0 {
			o.TimeMs = uint64(time.Now().UnixMilli())
		}
		built, parentCert, err := a.build(height, o)
		if err != nil {
			a.cfg.Miner.Done(o, nil, err)
			return consensus.Value{}, err
		}
		if len(built.Block.Transactions()) == 0 && !o.Force {
			a.cfg.Miner.Done(o, nil, nil)
			retry = true
			continue
		}
		a.keepBuilt(built, parentCert)
		a.cfg.Miner.Done(o, built.Block, nil)
		return EncodeValue(built.Block, parentCert), nil
	}
}
