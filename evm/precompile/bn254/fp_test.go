package bn254

import (
	"math/big"
	"math/rand"
	"testing"
)

func randFe(r *rand.Rand) (fe, *big.Int) {
	var b [32]byte
	r.Read(b[:])
	v := new(big.Int).SetBytes(b[:])
	v.Mod(v, pBig)
	v.FillBytes(b[:])
	var x fe
	if !feFromBytes(&x, b[:]) {
		panic("reduced value rejected")
	}
	return x, v
}

func feBig(x *fe) *big.Int {
	var b [32]byte
	feToBytes(b[:], x)
	return new(big.Int).SetBytes(b[:])
}

func TestFpAgainstBig(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		x, xb := randFe(r)
		y, yb := randFe(r)
		if i == 0 {
			x, xb = fe{}, new(big.Int)
		}
		if i == 1 {
			yb = new(big.Int).Sub(pBig, big.NewInt(1))
			var b [32]byte
			yb.FillBytes(b[:])
			feFromBytes(&y, b[:])
		}
		var z fe
		check := func(op string, want *big.Int) {
			t.Helper()
			want.Mod(want, pBig)
			if got := feBig(&z); got.Cmp(want) != 0 {
				t.Fatalf("%s(%v, %v) = %v, want %v", op, xb, yb, got, want)
			}
		}
		feMul(&z, &x, &y)
		check("mul", new(big.Int).Mul(xb, yb))
		feAdd(&z, &x, &y)
		check("add", new(big.Int).Add(xb, yb))
		feSub(&z, &x, &y)
		check("sub", new(big.Int).Sub(xb, yb))
		feNeg(&z, &x)
		check("neg", new(big.Int).Neg(xb))
		feSquare(&z, &x)
		check("square", new(big.Int).Mul(xb, xb))
		if i < 50 && xb.Sign() != 0 {
			feInv(&z, &x)
			check("inv", new(big.Int).ModInverse(xb, pBig))
		}
	}
	var b [32]byte
	pBig.FillBytes(b[:])
	var x fe
	if feFromBytes(&x, b[:]) {
		t.Fatal("p accepted as a field element")
	}
}
