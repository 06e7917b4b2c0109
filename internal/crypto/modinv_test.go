package crypto

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

func limbsToBig(l [4]uint64) *big.Int {
	return new(big.Int).SetBytes(bytesFromLimbs(&l)[:])
}

func TestModInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, m := range []*modulus{modP, modN} {
		bm := limbsToBig(m.m)
		edge := [][4]uint64{{1}, {2}, {3}, {m.m[0] - 1, m.m[1], m.m[2], m.m[3]}, {0, 0, 0, 1 << 63}, {1 << 62}, {^uint64(0)}}
		for i := 0; i < 20000; i++ {
			var x [4]uint64
			if i < len(edge) {
				x = edge[i]
			} else {
				x = [4]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}
				if i%7 == 0 {
					x[3], x[2] = 0, 0 // small values take other paths
				}
			}
			bx := limbsToBig(x)
			if bx.Cmp(bm) >= 0 || bx.Sign() == 0 {
				continue
			}
			want := new(big.Int).ModInverse(bx, bm)
			got := limbsToBig(m.inverse(x))
			if got.Cmp(want) != 0 {
				t.Fatalf("inverse of %x mod %x: got %x want %x", bx, bm, got, want)
			}
		}
		if got := m.inverse([4]uint64{}); got != ([4]uint64{}) {
			t.Fatalf("inverse of 0 = %x", got)
		}
		if got := m.inverse(m.m); got != ([4]uint64{}) {
			t.Fatalf("inverse of M = %x", got)
		}
	}
}

func BenchmarkModInverse(b *testing.B) {
	x := [4]uint64{0x1234567890abcdef, 0xfedcba0987654321, 0x1111111111111111, 0x7fffffffffffffff}
	b.Run("safegcd", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x = modP.inverse(x)
		}
	})
	f := fe(x)
	b.Run("fermat", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			f.inv(&f)
		}
	})
}
