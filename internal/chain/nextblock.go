package chain

import (
	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// NextBlock is what the child of a parent will be, as far as the parent,
// the config and a proposer's choices decide it before execution. It is
// the one derivation of the next block's parameters: the header a builder
// makes (NextHeader), the pool's admission rules, the fee methods
// (eth_gasPrice, eth_feeHistory, eth_blobBaseFee...) and the pending block
// all read it, so none of them can disagree with the block that follows.
type NextBlock struct {
	Number, Time uint64
	Fork         forks.Fork
	Signer       types.Signer
	GasLimit     uint64
	Coinbase     types.Address
	Random       types.Hash
	// BaseFee is the EIP-1559 base fee; nil before London.
	BaseFee *uint256.Int
	// Blob is the blob schedule in force (zero before Cancun);
	// ExcessBlobGas and BlobBaseFee are nil before Cancun.
	Blob          evm.BlobConfig
	ExcessBlobGas *uint64
	BlobBaseFee   *uint256.Int
}

// NextBlockParams derives the child of parent under the proposer's
// choices a. An a.Time not after the parent's (zero among them) is the
// earliest the child may have, one second after its parent; a.GasLimit 0 keeps the parent's; a.BaseFee and
// a.DevGasLimit, when set, replace the base fee and the gas limit the
// parent gives (a development chain's choices, see Attributes).
func (c *Config) NextBlockParams(parent *types.Header, a *Attributes) NextBlock {
	nb := NextBlock{Number: parent.Number + 1, Time: a.Time, GasLimit: parent.GasLimit, Coinbase: a.Coinbase, Random: a.Random}
	if a.TimeMs != 0 { // the engine orders the milliseconds (BuildBlock)
		nb.Time = max(a.TimeMs/1000, parent.Time)
	} else if nb.Time <= parent.Time {
		nb.Time = parent.Time + 1
	}
	switch {
	case a.DevGasLimit != 0:
		nb.GasLimit = a.DevGasLimit
	case a.GasLimit != 0:
		nb.GasLimit = nextGasLimit(parent.GasLimit, a.GasLimit)
	}
	nb.Fork = c.Fork(nb.Number, nb.Time)
	nb.Signer = c.Signer(nb.Number, nb.Time)
	if nb.Fork >= forks.London {
		if a.BaseFee != nil {
			nb.BaseFee = new(uint256.Int).Set(a.BaseFee)
		} else {
			nb.BaseFee = c.CalcBaseFee(parent)
		}
	}
	if nb.Fork >= forks.Cancun {
		nb.Blob = c.Blob(nb.Number, nb.Time)
		excess := c.NextExcessBlobGas(parent, nb.Number, nb.Time)
		nb.ExcessBlobGas = &excess
		nb.BlobBaseFee = nb.Blob.BaseFee(excess)
	}
	return nb
}
