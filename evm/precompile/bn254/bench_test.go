package bn254

import (
	"math/rand"
	"testing"
)

func BenchmarkFeMul(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, _ := randFe(r)
	y, _ := randFe(r)
	for i := 0; i < b.N; i++ {
		feMul(&x, &x, &y)
	}
}

func BenchmarkFeInv(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, _ := randFe(r)
	for i := 0; i < b.N; i++ {
		feInv(&x, &x)
	}
}

func BenchmarkFe12Mul(b *testing.B) {
	f := fe12One()
	g := fe12One()
	r := rand.New(rand.NewSource(1))
	g.c0.b1.c0, _ = randFe(r)
	g.c1.b2.c1, _ = randFe(r)
	for i := 0; i < b.N; i++ {
		fe12Mul(&f, &f, &g)
	}
}

func BenchmarkPairing2(b *testing.B) {
	in := pairInput(g1Gen, g2Gen, negG1(g1Gen), g2Gen)
	for i := 0; i < b.N; i++ {
		PairingCheck(in)
	}
}

// BenchmarkPairing2Full uses pairs whose Miller values do not cancel
// before the hard part of the final exponentiation: e(6P, 7Q)·e(-42P, Q).
func BenchmarkPairing2Full(b *testing.B) {
	in := pairInput(mulG1(b, g1Gen, 6), mulG2(b, g2Gen, 7), negG1(mulG1(b, g1Gen, 42)), g2Gen)
	if out, _ := PairingCheck(in); out[31] != 1 {
		b.Fatal("pairing check failed")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		PairingCheck(in)
	}
}

func BenchmarkScalarMul(b *testing.B) {
	in := append(append([]byte{}, g1Gen...), make([]byte, 32)...)
	for i := 64; i < 96; i++ {
		in[i] = byte(i * 37)
	}
	for i := 0; i < b.N; i++ {
		ScalarMul(in)
	}
}

func benchPairs() []millerPair {
	var p g1Aff
	var q g2Aff
	decodeG1(&p, g1Gen)
	decodeG2(&q, g2Gen)
	return []millerPair{{xP: p.x, yP: p.y, q: q}, {xP: p.x, yP: p.y, q: q}}
}

func BenchmarkMillerLoop2(b *testing.B) {
	pairs := benchPairs()
	for i := 0; i < b.N; i++ {
		ps := append([]millerPair(nil), pairs...)
		millerLoop(ps)
	}
}

func BenchmarkFinalExp(b *testing.B) {
	f := millerLoop(benchPairs())
	for i := 0; i < b.N; i++ {
		var z fe12
		finalExp(&z, &f)
	}
}

func BenchmarkG2Decode(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var q g2Aff
		decodeG2(&q, g2Gen)
	}
}

func BenchmarkFe2Mul(b *testing.B) {
	var x, y fe2
	x.c0, x.c1, y.c0, y.c1 = feOne, feOne, feOne, feOne
	for i := 0; i < b.N; i++ {
		fe2Mul(&x, &x, &y)
	}
}

func BenchmarkFe2Square(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	var x fe2
	x.c0, _ = randFe(r)
	x.c1, _ = randFe(r)
	for i := 0; i < b.N; i++ {
		fe2Square(&x, &x)
	}
}

func BenchmarkCycloSquare(b *testing.B) {
	f := millerLoop(benchPairs())
	finalExp(&f, &f)
	for i := 0; i < b.N; i++ {
		cycloSquare(&f, &f)
	}
}
