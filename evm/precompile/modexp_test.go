package precompile

import (
	"math"
	"math/big"
	"testing"
)

func modExpHeaderBytes(base, exp, mod *big.Int) []byte {
	in := make([]byte, 96)
	base.FillBytes(in[0:32])
	exp.FillBytes(in[32:64])
	mod.FillBytes(in[64:96])
	return in
}

// TestModExpHugeLengths checks that lengths up to 2^256-1 neither allocate
// nor wrap around: the cost saturates at the first intermediate overflow.
func TestModExpHugeLengths(t *testing.T) {
	two := func(e uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), e) }
	max256 := new(big.Int).Sub(two(256), big.NewInt(1))
	one, zero := big.NewInt(1), big.NewInt(0)
	tests := []struct {
		name               string
		base, exp, mod     *big.Int
		g198, g2565, g7883 uint64
	}{
		{"huge base", max256, one, one, math.MaxUint64, math.MaxUint64, math.MaxUint64},
		{"huge mod", one, one, two(64), math.MaxUint64, math.MaxUint64, math.MaxUint64},
		{"exp 2^64 tiny operands", one, two(64), one, math.MaxUint64 / 20, math.MaxUint64 / 3, math.MaxUint64},
		{"exp 2^61 tiny operands", one, two(61), one, (1<<64 - 256) / 20, (1<<64 - 256) / 3, math.MaxUint64},
		{"huge exp zero operands", zero, max256, zero, 0, 200, math.MaxUint64},
		{"2^32 base", two(32), zero, zero, math.MaxUint64, (1 << 29) * (1 << 29) / 3, 2 * (1 << 29) * (1 << 29)},
	}
	for _, tt := range tests {
		in := modExpHeaderBytes(tt.base, tt.exp, tt.mod)
		for _, c := range []struct {
			rule modExpGasRule
			want uint64
		}{{modExpGasEIP198, tt.g198}, {modExpGasEIP2565, tt.g2565}, {modExpGasEIP7883, tt.g7883}} {
			if got := modExpGas(c.rule, in); got != c.want {
				t.Errorf("%s rule %d: gas %d, want %d", tt.name, c.rule, got, c.want)
			}
		}
		// Run must refuse without allocating the operands.
		if _, err := (modExp{gas: modExpGasEIP2565}).Run(in); err == nil && tt.name != "huge exp zero operands" {
			t.Errorf("%s: Run accepted", tt.name)
		}
		if _, err := (modExp{gas: modExpGasEIP7883, limitInput: true}).Run(in); err == nil {
			t.Errorf("%s: Osaka Run accepted", tt.name)
		}
	}
}
