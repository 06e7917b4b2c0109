package node

import (
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// poolHead describes the next block to the pool.
func poolHead(c *chain.Chain) (txpool.Head, error) { return poolHeadAt(c, c.Head()) }

// poolHeadAt describes the block after head to the pool.
func poolHeadAt(c *chain.Chain, head *types.Block) (txpool.Head, error) {
	h := head.HeaderRef()
	cfg := c.Config
	next, t := h.Number+1, h.Time+1
	st, err := c.StateAt(c.StateRoot(h))
	if err != nil {
		return txpool.Head{}, err
	}
	ph := txpool.Head{
		Signer:   cfg.Signer(next, t),
		Fork:     cfg.Fork(next, t),
		GasLimit: h.GasLimit,
		State:    st,
	}
	if cfg.IsLondon(next) {
		ph.BaseFee = cfg.CalcBaseFee(h)
	}
	if ph.Fork >= forks.Cancun {
		bc := cfg.Blob(next, t)
		ph.MaxBlobs = bc.Max
		if h.ExcessBlobGas != nil {
			ph.BlobBaseFee = bc.BaseFee(bc.ExcessBlobGas(ph.Fork, *h.ExcessBlobGas, *h.BlobGasUsed, h.BaseFee))
		} else {
			ph.BlobBaseFee = bc.BaseFee(0)
		}
	}
	return ph, nil
}

// nextPoolHead is poolHead with a --dev node's base fee chosen for the
// next block.
func (n *Node) nextPoolHead() (txpool.Head, error) {
	head := n.Chain.Head()
	ph, err := poolHeadAt(n.Chain, head)
	if err != nil || n.dev == nil || ph.BaseFee == nil {
		return ph, err
	}
	if fee := n.dev.NextOn(head.Hash()).BaseFee; fee != nil {
		ph.BaseFee = fee
	}
	return ph, nil
}

// restorePool puts the pool's saved transactions back, validated against
// the head's state.
func (n *Node) restorePool(saved txpool.Saved) {
	n.resetMu.Lock()
	defer n.resetMu.Unlock()
	head := n.Chain.Head().Hash()
	ph, err := n.nextPoolHead()
	if err != nil {
		n.log.Error("pool restore", "err", err)
		return
	}
	n.Pool.Restore(saved, ph)
	n.poolAt = head
}

// refreshPool re-validates the pool against the head's state even when
// the head block is the same (its state changed, or the chain was
// rewound to it).
func (n *Node) refreshPool() {
	n.resetMu.Lock()
	n.poolAt = types.Hash{}
	n.resetMu.Unlock()
	n.resetPool()
}
