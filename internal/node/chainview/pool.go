package chainview

import (
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/txpool"
)

// PoolHead describes the next block on the head to the pool: the signer,
// fork, gas limit, base fee and blob fee of NextBlockParams (a development
// node's base fee among them) and the head's state as the view reads it.
func (v *View) PoolHead() (txpool.Head, error) {
	h := v.chain.Head().HeaderRef()
	st, err := v.State(h)
	if err != nil {
		return txpool.Head{}, err
	}
	nb := v.NextBlockParams(h, nil)
	ph := txpool.Head{Signer: nb.Signer, Fork: nb.Fork, GasLimit: nb.GasLimit, State: st, BaseFee: nb.BaseFee}
	if nb.Fork >= forks.Cancun {
		ph.MaxBlobs, ph.BlobBaseFee = nb.Blob.Max, nb.BlobBaseFee
	}
	return ph, nil
}
