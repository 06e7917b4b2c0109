package crypto

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

var bigP, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f", 16)

func feToBig(x *fe) *big.Int {
	var b [32]byte
	// Unreduced value, straight from the limbs.
	for i := 0; i < 4; i++ {
		v := x[3-i]
		for j := 7; j >= 0; j-- {
			b[8*i+j] = byte(v)
			v >>= 8
		}
	}
	return new(big.Int).SetBytes(b[:])
}

// randFe draws limbs that favour the edges (near 0, near p, near 2^256)
// where carry handling goes wrong.
func randFe(rng *rand.Rand) fe {
	switch rng.IntN(6) {
	case 0:
		return fe{rng.Uint64() & 0xff}
	case 1:
		x := feP
		x[0] -= rng.Uint64() & 0xffff
		return x
	case 2:
		x := feP
		x[0] += rng.Uint64() & 0x3ff // p ≤ x < 2^256
		if x[0] < feP[0] {
			x[0] = feP[0]
		}
		return x
	case 3:
		return fe{^uint64(0) - rng.Uint64()&0xff, ^uint64(0), ^uint64(0), ^uint64(0)}
	default:
		return fe{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}
	}
}

func checkFe(t *testing.T, op string, got *fe, want *big.Int, args ...*fe) {
	t.Helper()
	want = new(big.Int).Mod(want, bigP)
	g := new(big.Int).Mod(feToBig(got), bigP)
	if g.Cmp(want) != 0 {
		t.Fatalf("%s(%v): got %x want %x", op, args, g, want)
	}
	var b [32]byte
	got.putBytes(b[:])
	if new(big.Int).SetBytes(b[:]).Cmp(want) != 0 {
		t.Fatalf("%s: putBytes not canonical: %x", op, b)
	}
}

func TestFieldArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		x, y := randFe(rng), randFe(rng)
		bx, by := feToBig(&x), feToBig(&y)
		var z fe
		z.add(&x, &y)
		checkFe(t, "add", &z, new(big.Int).Add(bx, by), &x, &y)
		z.sub(&x, &y)
		checkFe(t, "sub", &z, new(big.Int).Sub(bx, by), &x, &y)
		z.neg(&x)
		checkFe(t, "neg", &z, new(big.Int).Neg(bx), &x)
		z.half(&x)
		var twice fe
		twice.add(&z, &z)
		if !twice.equal(&x) {
			t.Fatalf("half(%x)·2 != x", bx)
		}
		z.mul(&x, &y)
		checkFe(t, "mul", &z, new(big.Int).Mul(bx, by), &x, &y)
		z.sqr(&x)
		checkFe(t, "sqr", &z, new(big.Int).Mul(bx, bx), &x)
		k := rng.Uint64() >> 32
		z.mulSmall(&x, k)
		checkFe(t, "mulSmall", &z, new(big.Int).Mul(bx, new(big.Int).SetUint64(k)), &x)
		z.mulGeneric(&x, &y)
		checkFe(t, "mulGeneric", &z, new(big.Int).Mul(bx, by), &x, &y)
		z.sqrGeneric(&x)
		checkFe(t, "sqrGeneric", &z, new(big.Int).Mul(bx, bx), &x)
		if i%50 == 0 {
			z.inv(&x)
			var one fe
			one.mul(&z, &x)
			if !x.isZero() && !one.equal(&feOne) {
				t.Fatalf("inv(%x) wrong", bx)
			}
			var sq, r fe
			sq.sqr(&x)
			if !r.sqrt(&sq) {
				t.Fatalf("sqrt of a square %x failed", bx)
			}
			var rr fe
			rr.sqr(&r)
			if !rr.equal(&sq) {
				t.Fatalf("sqrt wrong")
			}
			// −x² is a non-residue unless x = 0 (p ≡ 3 mod 4).
			var nsq fe
			nsq.neg(&sq)
			if !x.isZero() && r.sqrt(&nsq) {
				t.Fatalf("sqrt of a non-square succeeded")
			}
		}
	}
}

func BenchmarkField(b *testing.B) {
	x := fe{0x1234567890abcdef, 0xfedcba0987654321, 0x1111111111111111, 0x7fffffffffffffff}
	y := x
	b.Run("mul", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.mul(&x, &y)
		}
	})
	b.Run("sqr", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.sqr(&x)
		}
	})
	b.Run("inv", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x.inv(&x)
		}
	})
}
