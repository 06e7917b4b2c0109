package evm

import "github.com/holiman/uint256"

// BlobConfig is a fork's blob schedule (EIP-4844, EIP-7691).
type BlobConfig struct {
	Target, Max    uint64 // blobs per block
	UpdateFraction uint64
}

// BlobSchedule returns the blob parameters of fork (zero before Cancun).
func BlobSchedule(fork Fork) BlobConfig {
	switch {
	case fork >= Prague:
		return BlobConfig{Target: 6, Max: 9, UpdateFraction: 5007716}
	case fork >= Cancun:
		return BlobConfig{Target: 3, Max: 6, UpdateFraction: 3338477}
	}
	return BlobConfig{}
}

// blobBaseCost is EIP-7918's BLOB_BASE_COST.
const blobBaseCost = 1 << 13

// CalcBlobBaseFee returns the blob base fee for a block with the given
// excess blob gas: fake_exponential(1, excess, fraction) of EIP-4844.
func CalcBlobBaseFee(fork Fork, excessBlobGas uint64) *uint256.Int {
	cfg := BlobSchedule(fork)
	if cfg.UpdateFraction == 0 {
		return new(uint256.Int)
	}
	return fakeExponential(uint256.NewInt(1), new(uint256.Int).SetUint64(excessBlobGas), uint256.NewInt(cfg.UpdateFraction))
}

func fakeExponential(factor, numerator, denominator *uint256.Int) *uint256.Int {
	var (
		output = new(uint256.Int)
		acc    = new(uint256.Int).Mul(factor, denominator)
		t      uint256.Int
	)
	for i := uint64(1); !acc.IsZero(); i++ {
		output.Add(output, acc)
		acc.Mul(acc, numerator)
		t.Mul(denominator, uint256.NewInt(i))
		acc.Div(acc, &t)
	}
	return output.Div(output, denominator)
}

// CalcExcessBlobGas returns a block's excess blob gas from its parent's.
// From Osaka (EIP-7918) blob gas stops being discounted while the
// execution base fee dominates the blob price.
func CalcExcessBlobGas(fork Fork, parentExcess, parentBlobGasUsed uint64, parentBaseFee *uint256.Int) uint64 {
	cfg := BlobSchedule(fork)
	target := cfg.Target * BlobGasPerBlob
	if parentExcess+parentBlobGasUsed < target {
		return 0
	}
	if fork >= Osaka && parentBaseFee != nil {
		var exec, blob uint256.Int
		exec.Mul(uint256.NewInt(blobBaseCost), parentBaseFee)
		blob.Mul(uint256.NewInt(BlobGasPerBlob), CalcBlobBaseFee(fork, parentExcess))
		if exec.Gt(&blob) {
			return parentExcess + parentBlobGasUsed*(cfg.Max-cfg.Target)/cfg.Max
		}
	}
	return parentExcess + parentBlobGasUsed - target
}
