package precompile

import (
	"fmt"
	"testing"
)

// BenchmarkMontMulRaw times one Montgomery multiplication and squaring
// per modulus size.
func BenchmarkMontMulRaw(b *testing.B) {
	for _, n := range []int{4, 8, 16, 32, 64} {
		c := montCtx{m: make([]uint64, n), t: make([]uint64, 2*n+2)}
		x := make([]uint64, n)
		p := make([]uint64, 2*n+2)
		for i := range c.m {
			c.m[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
			x[i] = uint64(i) * 0x12345
		}
		c.m[n-1] |= 1 << 63
		c.minv = negInvWord(c.m[0])
		b.Run(fmt.Sprintf("mul%d", n), func(b *testing.B) {
			for b.Loop() {
				c.mul(x, x, x)
			}
		})
		b.Run(fmt.Sprintf("sqr%d", n), func(b *testing.B) {
			for b.Loop() {
				c.sqr(x, x, p)
			}
		})
	}
}
