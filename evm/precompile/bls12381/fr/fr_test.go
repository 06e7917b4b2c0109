package fr

import (
	"math/big"
	"math/rand"
	"testing"
)

var rBig = new(big.Int).SetBytes(Modulus[:])

func toBig(x *Element) *big.Int {
	b := x.Bytes()
	return new(big.Int).SetBytes(b[:])
}

func fromBig(t testing.TB, v *big.Int) Element {
	var b [32]byte
	new(big.Int).Mod(v, rBig).FillBytes(b[:])
	var x Element
	if !x.SetBytes(&b) {
		t.Fatalf("SetBytes refused %x", b)
	}
	return x
}

// edgeValues are the integers where carries and reductions turn: 0, 1,
// r-1, r-2, (r±1)/2, word boundaries, and 2^255 mod r.
func edgeValues() []*big.Int {
	out := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2)}
	for _, d := range []int64{1, 2, 3} {
		out = append(out, new(big.Int).Sub(rBig, big.NewInt(d)))
	}
	half := new(big.Int).Rsh(rBig, 1)
	out = append(out, half, new(big.Int).Add(half, big.NewInt(1)))
	for _, s := range []uint{63, 64, 127, 128, 191, 192, 254, 255} {
		v := new(big.Int).Lsh(big.NewInt(1), s)
		out = append(out, new(big.Int).Mod(v, rBig), new(big.Int).Mod(v.Sub(v, big.NewInt(1)), rBig))
	}
	return out
}

func testValues(rng *rand.Rand, n int) []*big.Int {
	vs := edgeValues()
	for i := 0; i < n; i++ {
		vs = append(vs, new(big.Int).Rand(rng, rBig))
	}
	return vs
}

// checkAgainstBig compares every operation on a and b with math/big.
func checkAgainstBig(t *testing.T, a, b *big.Int) {
	t.Helper()
	x, y := fromBig(t, a), fromBig(t, b)
	mod := func(v *big.Int) *big.Int { return v.Mod(v, rBig) }
	for _, c := range []struct {
		op        string
		got, want *big.Int
	}{
		{"add", toBig(new(Element).Add(&x, &y)), mod(new(big.Int).Add(a, b))},
		{"sub", toBig(new(Element).Sub(&x, &y)), mod(new(big.Int).Sub(a, b))},
		{"neg", toBig(new(Element).Neg(&x)), mod(new(big.Int).Neg(a))},
		{"double", toBig(new(Element).Double(&x)), mod(new(big.Int).Lsh(a, 1))},
		{"mul", toBig(new(Element).Mul(&x, &y)), mod(new(big.Int).Mul(a, b))},
		{"square", toBig(new(Element).Square(&x)), mod(new(big.Int).Mul(a, a))},
	} {
		if c.got.Cmp(c.want) != 0 {
			t.Fatalf("%s(%x, %x) = %x, want %x", c.op, a, b, c.got, c.want)
		}
	}
	if a.Sign() != 0 {
		got := toBig(new(Element).Inverse(&x))
		if want := new(big.Int).ModInverse(a, rBig); got.Cmp(want) != 0 {
			t.Fatalf("inverse(%x) = %x, want %x", a, got, want)
		}
	}
	if w := x.Words(); wordsBig(w).Cmp(a) != 0 {
		t.Fatalf("Words(%x) = %x", a, w)
	}
}

func wordsBig(w [4]uint64) *big.Int {
	v := new(big.Int)
	for i := 3; i >= 0; i-- {
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(w[i]))
	}
	return v
}

func TestArithmeticAgainstBig(t *testing.T) {
	vs := testValues(rand.New(rand.NewSource(1)), 60)
	for _, a := range vs {
		for _, b := range vs {
			checkAgainstBig(t, a, b)
		}
	}
}

func TestSetBytes(t *testing.T) {
	for _, v := range []*big.Int{rBig, new(big.Int).Add(rBig, big.NewInt(1)), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))} {
		var b [32]byte
		v.FillBytes(b[:])
		x := One()
		if x.SetBytes(&b) {
			t.Errorf("SetBytes accepted %x, not below r", v)
		}
		if x != One() {
			t.Errorf("a refused SetBytes changed its receiver")
		}
		var y Element
		if got, want := toBig(y.SetBytesReduce(&b)), new(big.Int).Mod(v, rBig); got.Cmp(want) != 0 {
			t.Errorf("SetBytesReduce(%x) = %x, want %x", v, got, want)
		}
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 200; i++ {
		var b [32]byte
		rng.Read(b[:])
		v := new(big.Int).SetBytes(b[:])
		var x Element
		ok := x.SetBytes(&b)
		if ok != (v.Cmp(rBig) < 0) {
			t.Fatalf("SetBytes(%x) = %v", v, ok)
		}
		if ok && (x.Bytes() != b || toBig(&x).Cmp(v) != 0) {
			t.Fatalf("SetBytes(%x) does not round-trip", v)
		}
		if got, want := toBig(x.SetBytesReduce(&b)), new(big.Int).Mod(v, rBig); got.Cmp(want) != 0 {
			t.Fatalf("SetBytesReduce(%x) = %x, want %x", v, got, want)
		}
	}
	for _, v := range []uint64{0, 1, 7, 1<<63 + 5, ^uint64(0)} {
		if got := toBig(new(Element).SetUint64(v)); got.Cmp(new(big.Int).SetUint64(v)) != 0 {
			t.Errorf("SetUint64(%d) = %d", v, got)
		}
	}
}

func TestExp(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, a := range testValues(rng, 10) {
		for _, e := range testValues(rng, 3) {
			x := fromBig(t, a)
			var w [4]uint64
			var eb [32]byte
			e.FillBytes(eb[:])
			w = words(&eb)
			got := toBig(new(Element).Exp(&x, w))
			if want := new(big.Int).Exp(a, e, rBig); got.Cmp(want) != 0 {
				t.Fatalf("%x^%x = %x, want %x", a, e, got, want)
			}
		}
	}
}

func TestBatchInverse(t *testing.T) {
	vs := testValues(rand.New(rand.NewSource(4)), 20)
	xs := make([]Element, len(vs))
	for i, v := range vs {
		xs[i] = fromBig(t, v)
	}
	BatchInverse(xs)
	for i, v := range vs {
		want := new(big.Int)
		if v.Sign() != 0 {
			want.ModInverse(v, rBig)
		}
		if got := toBig(&xs[i]); got.Cmp(want) != 0 {
			t.Fatalf("inverse of %x = %x, want %x", v, got, want)
		}
	}
	BatchInverse(nil)
}

// FuzzArithmetic compares the operations with math/big on arbitrary
// 32-byte inputs, reduced modulo r first.
func FuzzArithmetic(f *testing.F) {
	f.Add(make([]byte, 32), make([]byte, 32))
	f.Add(Modulus[:], Modulus[:])
	f.Add([]byte{0xff, 0xff}, []byte{1})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ab, bb [32]byte
		copy(ab[:], a)
		copy(bb[:], b)
		var x, y Element
		x.SetBytesReduce(&ab)
		y.SetBytesReduce(&bb)
		checkAgainstBig(t, toBig(&x), toBig(&y))
	})
}

func BenchmarkMul(b *testing.B) {
	x := fromBig(b, new(big.Int).Sub(rBig, big.NewInt(12345)))
	y := x
	for i := 0; i < b.N; i++ {
		x.Mul(&x, &y)
	}
}

func BenchmarkInverse(b *testing.B) {
	x := fromBig(b, new(big.Int).Sub(rBig, big.NewInt(12345)))
	for i := 0; i < b.N; i++ {
		x.Inverse(&x)
	}
}
