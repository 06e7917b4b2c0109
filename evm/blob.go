package evm

import (
	"math/big"
	"sync/atomic"

	"github.com/chaind/chaind/internal/forks"
	"github.com/holiman/uint256"
)

// BlobConfig is a fork's blob schedule (EIP-4844, EIP-7691).
type BlobConfig struct {
	Target, Max    uint64 // blobs per block
	UpdateFraction uint64
}

// BlobSchedule returns the blob parameters of fork (zero before Cancun).
func BlobSchedule(fork forks.Fork) BlobConfig {
	switch {
	case fork >= forks.Prague:
		return BlobConfig{Target: 6, Max: 9, UpdateFraction: 5007716}
	case fork >= forks.Cancun:
		return BlobConfig{Target: 3, Max: 6, UpdateFraction: 3338477}
	}
	return BlobConfig{}
}

// blobBaseCost is EIP-7918's BLOB_BASE_COST.
const blobBaseCost = 1 << 13

// CalcBlobBaseFee returns the blob base fee for a block with the given
// excess blob gas under fork's default schedule.
func CalcBlobBaseFee(fork forks.Fork, excessBlobGas uint64) *uint256.Int {
	return BlobSchedule(fork).BaseFee(excessBlobGas)
}

// BaseFee returns fake_exponential(1, excess, fraction) of EIP-4844. The
// series is summed in big integers: its terms can pass 2^256 for large
// excess before the division brings them back.
func (c BlobConfig) BaseFee(excessBlobGas uint64) *uint256.Int {
	if c.UpdateFraction == 0 {
		return new(uint256.Int)
	}
	if m := lastBlobFee.Load(); m != nil && m.fraction == c.UpdateFraction && m.excess == excessBlobGas {
		return new(uint256.Int).Set(&m.fee)
	}
	fee := c.baseFee(excessBlobGas)
	lastBlobFee.Store(&blobFeeMemo{fraction: c.UpdateFraction, excess: excessBlobGas, fee: *fee})
	return fee
}

// blobFeeMemo is one computed blob base fee. Every call at one head asks
// for the same fee (a block context is built per eth_call), and the series
// costs a few big-integer allocations each time.
type blobFeeMemo struct {
	fraction, excess uint64
	fee              uint256.Int
}

var lastBlobFee atomic.Pointer[blobFeeMemo]

func (c BlobConfig) baseFee(excessBlobGas uint64) *uint256.Int {
	var (
		denom  = new(big.Int).SetUint64(c.UpdateFraction)
		num    = new(big.Int).SetUint64(excessBlobGas)
		output = new(big.Int)
		acc    = new(big.Int).Set(denom) // factor 1 * denominator
		t      = new(big.Int)
	)
	for i := int64(1); acc.Sign() > 0; i++ {
		output.Add(output, acc)
		if output.BitLen() > 256+64 { // the fee can no longer fit 256 bits
			return new(uint256.Int).SetAllOne()
		}
		acc.Mul(acc, num)
		acc.Div(acc, t.Mul(denom, big.NewInt(i)))
	}
	output.Div(output, denom)
	fee, overflow := uint256.FromBig(output)
	if overflow {
		return new(uint256.Int).SetAllOne()
	}
	return fee
}

// CalcExcessBlobGas returns a block's excess blob gas from its parent's
// under fork's default schedule.
func CalcExcessBlobGas(fork forks.Fork, parentExcess, parentBlobGasUsed uint64, parentBaseFee *uint256.Int) uint64 {
	return BlobSchedule(fork).ExcessBlobGas(fork, parentExcess, parentBlobGasUsed, parentBaseFee)
}

// ExcessBlobGas returns a block's excess blob gas from its parent's. From
// Osaka (EIP-7918) blob gas stops being discounted while the execution
// base fee dominates the blob price.
func (c BlobConfig) ExcessBlobGas(fork forks.Fork, parentExcess, parentBlobGasUsed uint64, parentBaseFee *uint256.Int) uint64 {
	target := c.Target * BlobGasPerBlob
	if parentExcess+parentBlobGasUsed < target {
		return 0
	}
	if fork >= forks.Osaka && parentBaseFee != nil && c.Max > 0 {
		var exec, blob uint256.Int
		exec.Mul(uint256.NewInt(blobBaseCost), parentBaseFee)
		blob.Mul(uint256.NewInt(BlobGasPerBlob), c.BaseFee(parentExcess))
		if exec.Gt(&blob) {
			return parentExcess + parentBlobGasUsed*(c.Max-c.Target)/c.Max
		}
	}
	return parentExcess + parentBlobGasUsed - target
}
