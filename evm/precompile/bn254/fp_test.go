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

// TestFe2MulLazy checks the lazily reduced Fp2 product against one built
// from reduced base-field operations, including the extreme value p-1.
func TestFe2MulLazy(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var pm1 fe
	feNeg(&pm1, &feOne)
	for i := 0; i < 3000; i++ {
		var x, y fe2
		x.c0, _ = randFe(r)
		x.c1, _ = randFe(r)
		y.c0, _ = randFe(r)
		y.c1, _ = randFe(r)
		switch i % 4 {
		case 1:
			x.c0, x.c1 = pm1, pm1
		case 2:
			y.c1 = pm1
			x.c0 = fe{}
		case 3:
			x.c1, y.c1 = pm1, pm1
		}
		var want, got fe2
		var a, b, u fe
		feMul(&a, &x.c0, &y.c0)
		feMul(&b, &x.c1, &y.c1)
		feSub(&want.c0, &a, &b)
		feMul(&a, &x.c0, &y.c1)
		feMul(&u, &x.c1, &y.c0)
		feAdd(&want.c1, &a, &u)
		fe2Mul(&got, &x, &y)
		if got != want {
			t.Fatalf("case %d: fe2Mul mismatch", i)
		}
		var w wide
		mulWide(&w, &x.c0, &y.c0)
		var m fe
		montReduce(&m, &w)
		feMul(&a, &x.c0, &y.c0)
		if m != a {
			t.Fatalf("case %d: montReduce(mulWide) != feMul", i)
		}
	}
}

func TestFeInvMatchesFermat(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var pm1 fe
	feNeg(&pm1, &feOne)
	cases := []fe{feOne, pm1}
	for i := 0; i < 500; i++ {
		x, _ := randFe(r)
		cases = append(cases, x)
	}
	for _, x := range cases {
		var a, b, one fe
		feInv(&a, &x)
		feInvFermat(&b, &x)
		if a != b {
			t.Fatalf("feInv mismatch")
		}
		feMul(&one, &a, &x)
		if one != feOne {
			t.Fatal("x·x^-1 != 1")
		}
	}
	var z, zero fe
	feInv(&z, &zero)
	if !z.isZero() {
		t.Fatal("inverse of 0 not 0")
	}
}

func TestMul9(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	var pm1 fe
	feNeg(&pm1, &feOne)
	xs := []fe{{}, feOne, pm1}
	for i := 0; i < 1000; i++ {
		x, _ := randFe(r)
		xs = append(xs, x)
	}
	for _, x := range xs {
		var a, b fe
		mul9(&a, &x)
		feDouble(&b, &x)
		feDouble(&b, &b)
		feDouble(&b, &b)
		feAdd(&b, &b, &x)
		if a != b {
			t.Fatal("mul9 mismatch")
		}
	}
}
