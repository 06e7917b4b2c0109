package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Header validation errors. Each is wrapped with the offending values.
var (
	ErrUnknownParent    = errors.New("unknown parent")
	ErrBadNumber        = errors.New("block number is not parent + 1")
	ErrBadTimestamp     = errors.New("timestamp not after parent")
	ErrExtraTooLong     = errors.New("extra data longer than 32 bytes")
	ErrBadGasLimit      = errors.New("invalid gas limit")
	ErrGasUsedOverLimit = errors.New("gas used above gas limit")
	ErrBadBaseFee       = errors.New("invalid base fee")
	ErrBadDifficulty    = errors.New("invalid difficulty")
	ErrBadPoSHeader     = errors.New("invalid proof-of-stake header field")
	ErrMissingField     = errors.New("header lacks a field its fork requires")
	ErrUnexpectedField  = errors.New("header carries a field before its fork")
	ErrBadExcessBlobGas = errors.New("invalid excess blob gas")
)

const (
	gasLimitBoundDivisor = 1024
	minGasLimit          = 5000
	maxGasLimit          = 1<<63 - 1
	elasticity           = 2 // EIP-1559 ELASTICITY_MULTIPLIER
	baseFeeChangeDenom   = 8 // EIP-1559 BASE_FEE_MAX_CHANGE_DENOMINATOR
	initialBaseFee       = 1_000_000_000
)

// ValidateHeader checks h against its parent under the config's rules. It
// does not verify proof-of-work seals: chaind imports historical
// proof-of-work chains trusting their seals, and says so.
func (r Rules) ValidateHeader(parent, h *types.Header) error {
	c := r.Config
	if h.Number != parent.Number+1 {
		return fmt.Errorf("%w: %d after %d", ErrBadNumber, h.Number, parent.Number)
	}
	if h.ParentHash != parent.Hash() {
		return fmt.Errorf("%w: %s", ErrUnknownParent, h.ParentHash)
	}
	if tr, ok := r.engine().(TimeRule); ok {
		if err := tr.CheckTime(parent, h); err != nil {
			return err
		}
	} else if h.Time <= parent.Time {
		return fmt.Errorf("%w: %d <= %d", ErrBadTimestamp, h.Time, parent.Time)
	}
	if len(h.Extra) > max(32, r.engine().MaxExtra()) {
		return fmt.Errorf("%w: %d bytes", ErrExtraTooLong, len(h.Extra))
	}
	if h.GasUsed > h.GasLimit {
		return fmt.Errorf("%w: %d > %d", ErrGasUsedOverLimit, h.GasUsed, h.GasLimit)
	}
	if err := c.checkDAOExtra(h); err != nil {
		return err
	}
	fork := c.Fork(h.Number, h.Time)
	parentLimit := parent.GasLimit
	if fork >= forks.London && !c.IsLondon(parent.Number) {
		parentLimit *= elasticity // the London block doubles the limit at once
	}
	if err := checkGasLimit(parentLimit, h.GasLimit); err != nil {
		return err
	}
	if err := c.checkForkFields(fork, h); err != nil {
		return err
	}
	if fork >= forks.London {
		want := c.CalcBaseFee(parent)
		if h.BaseFee.Cmp(want) != 0 {
			return fmt.Errorf("%w: have %s, want %s", ErrBadBaseFee, h.BaseFee, want)
		}
	}
	if c.IsPoSHeader(h) {
		if !h.Difficulty.IsZero() {
			return fmt.Errorf("%w: difficulty %s after the merge", ErrBadPoSHeader, &h.Difficulty)
		}
		if h.Nonce != (types.BlockNonce{}) {
			return fmt.Errorf("%w: nonce %x after the merge", ErrBadPoSHeader, h.Nonce)
		}
		if h.UncleHash != types.EmptyUncleHash {
			return fmt.Errorf("%w: uncles after the merge", ErrBadPoSHeader)
		}
	} else {
		if parent.Number > 0 && c.IsPoSHeader(parent) {
			return fmt.Errorf("%w: proof-of-work block after a proof-of-stake parent", ErrBadPoSHeader)
		}
		want := c.CalcDifficulty(h.Time, parent)
		if h.Difficulty.Cmp(want) != 0 {
			return fmt.Errorf("%w: have %s, want %s", ErrBadDifficulty, &h.Difficulty, want)
		}
	}
	if fork >= forks.Cancun {
		want := c.NextExcessBlobGas(parent, h.Number, h.Time)
		if *h.ExcessBlobGas != want {
			return fmt.Errorf("%w: have %d, want %d", ErrBadExcessBlobGas, *h.ExcessBlobGas, want)
		}
		maxBlobGas := c.Blob(h.Number, h.Time).Max * evm.BlobGasPerBlob
		if *h.BlobGasUsed > maxBlobGas {
			return fmt.Errorf("%w: blob gas used %d above the maximum %d", ErrBadExcessBlobGas, *h.BlobGasUsed, maxBlobGas)
		}
	}
	return nil
}

// IsCancunAt reports whether a header was built under Cancun or later.
func (c *Config) IsCancunAt(h *types.Header) bool { return c.Fork(h.Number, h.Time) >= forks.Cancun }

func checkGasLimit(parent, limit uint64) error {
	if limit > maxGasLimit || limit < minGasLimit {
		return fmt.Errorf("%w: %d out of range", ErrBadGasLimit, limit)
	}
	diff := parent - limit
	if limit > parent {
		diff = limit - parent
	}
	if diff >= parent/gasLimitBoundDivisor {
		return fmt.Errorf("%w: %d differs from parent's %d by %d or more", ErrBadGasLimit, limit, parent, parent/gasLimitBoundDivisor)
	}
	return nil
}

// checkForkFields makes sure the optional header fields are present
// exactly from the fork that introduced them.
func (c *Config) checkForkFields(fork forks.Fork, h *types.Header) error {
	fields := []struct {
		name    string
		present bool
		from    forks.Fork
	}{
		{"baseFeePerGas", h.BaseFee != nil, forks.London},
		{"withdrawalsRoot", h.WithdrawalsHash != nil, forks.Shanghai},
		{"blobGasUsed", h.BlobGasUsed != nil, forks.Cancun},
		{"excessBlobGas", h.ExcessBlobGas != nil, forks.Cancun},
		{"parentBeaconBlockRoot", h.ParentBeaconRoot != nil, forks.Cancun},
		{"requestsHash", h.RequestsHash != nil, forks.Prague},
	}
	for _, f := range fields {
		switch {
		case fork >= f.from && !f.present:
			return fmt.Errorf("%w: %s (%v)", ErrMissingField, f.name, fork)
		case fork < f.from && f.present:
			return fmt.Errorf("%w: %s (%v)", ErrUnexpectedField, f.name, fork)
		}
	}
	return nil
}

// CalcBaseFee returns the EIP-1559 base fee of the child of parent.
func (c *Config) CalcBaseFee(parent *types.Header) *uint256.Int {
	if !c.IsLondon(parent.Number) {
		return uint256.NewInt(initialBaseFee)
	}
	target := parent.GasLimit / elasticity
	base := new(uint256.Int).Set(parent.BaseFee)
	switch {
	case parent.GasUsed == target:
		return base
	case parent.GasUsed > target:
		delta := new(uint256.Int).Mul(parent.BaseFee, uint256.NewInt(parent.GasUsed-target))
		delta.Div(delta, uint256.NewInt(target))
		delta.Div(delta, uint256.NewInt(baseFeeChangeDenom))
		if delta.IsZero() {
			delta.SetOne()
		}
		return base.Add(base, delta)
	default:
		delta := new(uint256.Int).Mul(parent.BaseFee, uint256.NewInt(target-parent.GasUsed))
		delta.Div(delta, uint256.NewInt(target))
		delta.Div(delta, uint256.NewInt(baseFeeChangeDenom))
		if delta.Cmp(base) > 0 {
			return new(uint256.Int)
		}
		return base.Sub(base, delta)
	}
}

// Ethash difficulty: every proof-of-work fork changed the adjustment or
// delayed the "difficulty bomb", so the formula is selected by fork.
const minDifficulty = 131072

// CalcDifficulty returns the proof-of-work difficulty of a block at time
// whose parent is parent.
func (c *Config) CalcDifficulty(time uint64, parent *types.Header) *uint256.Int {
	number := parent.Number + 1
	pd := new(uint256.Int).Set(&parent.Difficulty)
	step := new(uint256.Int).Rsh(pd, 11) // parent / 2048
	d := new(uint256.Int).Set(pd)
	dt := time - parent.Time
	fork := c.Fork(number, time)

	var bombDelay uint64
	switch {
	case active(c.GrayGlacierBlock, number):
		bombDelay = 11_400_000
	case active(c.ArrowGlacierBlock, number):
		bombDelay = 10_700_000
	case fork >= forks.London:
		bombDelay = 9_700_000
	case active(c.MuirGlacierBlock, number):
		bombDelay = 9_000_000
	case fork >= forks.Constantinople:
		bombDelay = 5_000_000
	case fork >= forks.Byzantium:
		bombDelay = 3_000_000
	}

	switch {
	case fork >= forks.Byzantium:
		// EIP-100: parent uncles raise the target; adjustment floored at -99.
		var base int64 = 1
		if parent.UncleHash != types.EmptyUncleHash {
			base = 2
		}
		adjust(d, step, base-int64(dt/9))
	case fork >= forks.Homestead:
		adjust(d, step, 1-int64(dt/10))
	default:
		if dt < 13 {
			d.Add(d, step)
		} else {
			d.Sub(d, step)
		}
	}
	if d.CmpUint64(minDifficulty) < 0 {
		d.SetUint64(minDifficulty)
	}
	fake := number
	if bombDelay > 0 {
		if parent.Number >= bombDelay-1 {
			fake = parent.Number - (bombDelay - 1)
		} else {
			fake = 0
		}
	}
	if period := fake / 100000; period > 1 {
		d.Add(d, new(uint256.Int).Lsh(uint256.NewInt(1), uint(period-2)))
	}
	return d
}

// adjust adds step*max(k, -99) to d.
func adjust(d, step *uint256.Int, k int64) {
	if k < -99 {
		k = -99
	}
	if k >= 0 {
		d.Add(d, new(uint256.Int).Mul(step, uint256.NewInt(uint64(k))))
		return
	}
	sub := new(uint256.Int).Mul(step, uint256.NewInt(uint64(-k)))
	if sub.Cmp(d) > 0 {
		d.Clear()
		return
	}
	d.Sub(d, sub)
}
