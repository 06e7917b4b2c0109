//go:build amd64 && !purego

package precompile

import (
	"math/rand/v2"
	"testing"
)

// TestMontMulRowsADX checks the ADX row multiplication against the Go one
// for every size, including those below montADXMinWords that mul routes
// elsewhere and the n mod 4 tails.
func TestMontMulRowsADX(t *testing.T) {
	if !montUseADX {
		t.Skip("CPU without BMI2/ADX: the row assembly is not in use")
	}
	r := rand.New(rand.NewPCG(13, 14))
	for n := 1; n <= 70; n++ {
		c := montCtx{m: make([]uint64, n), t: make([]uint64, 2*n+2)}
		for it := 0; it < 20; it++ {
			for i := range c.m {
				c.m[i] = r.Uint64()
			}
			c.m[0] |= 1
			if it%2 == 0 {
				c.m[n-1] |= 1 << 63
			} else {
				for i := range c.m {
					c.m[i] = ^uint64(0)
				}
			}
			c.minv = negInvWord(c.m[0])
			x := make([]uint64, n)
			y := make([]uint64, n)
			for i := range x {
				x[i] = ^uint64(0) - uint64(r.IntN(2))
				y[i] = r.Uint64()
			}
			copy(y, c.m)
			y[0] -= uint64(1 + r.IntN(5))
			got := make([]uint64, n)
			want := make([]uint64, n)
			c.mulGeneric(want, x, y)
			c.mulRows(got, x, y)
			if !equalWords(got, want) {
				t.Fatalf("n=%d: got %x want %x", n, got, want)
			}
			c.mulGeneric(want, y, y)
			c.sqrRows(got, y)
			if !equalWords(got, want) {
				t.Fatalf("n=%d sqrRows: got %x want %x", n, got, want)
			}
		}
	}
}
