package bls12381

import (
	"encoding/hex"
	"math/rand"
	"testing"
)

func BenchmarkFpMul(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := randFe(r), randFe(r)
	for i := 0; i < b.N; i++ {
		mul(&x, &x, &y)
	}
}

func BenchmarkFpInverse(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := randFe(r)
	for i := 0; i < b.N; i++ {
		inverse(&x, &x)
	}
}

func BenchmarkFp12Mul(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := randFe12(r), randFe12(r)
	for i := 0; i < b.N; i++ {
		mul12(&x, &x, &y)
	}
}

func BenchmarkMillerLoop(b *testing.B) {
	g1, g2 := G1Generator(), G2Generator()
	px, py, _ := g1.affine()
	pr := PrepareG2(&g2)
	for i := 0; i < b.N; i++ {
		millerLoop([]fe{px}, []fe{py}, []*G2Prepared{pr})
	}
}

func BenchmarkPrepareG2(b *testing.B) {
	g2 := G2Generator()
	for i := 0; i < b.N; i++ {
		PrepareG2(&g2)
	}
}

func BenchmarkFinalExp(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := randFe12(r)
	for i := 0; i < b.N; i++ {
		finalExp(&x)
	}
}

func BenchmarkG1SubgroupCheck(b *testing.B) {
	g := G1Generator()
	for i := 0; i < b.N; i++ {
		g.InSubgroup()
	}
}

func BenchmarkG2SubgroupCheck(b *testing.B) {
	g := G2Generator()
	for i := 0; i < b.N; i++ {
		g.InSubgroup()
	}
}

func BenchmarkG1ScalarMult(b *testing.B) {
	g := G1Generator()
	k := [32]byte{0: 0x73, 5: 0xaa, 31: 0x55}
	var r G1
	for i := 0; i < b.N; i++ {
		r.ScalarMult(&g, &k)
	}
}

func BenchmarkMapFpToG1(b *testing.B) {
	in := make([]byte, 64)
	in[40] = 7
	for i := 0; i < b.N; i++ {
		if _, err := MapFpToG1(in); err != nil {
			b.Fatal(err)
		}
	}
}

func benchMSMInput(n int) ([]G1, [][4]uint64) {
	r := rand.New(rand.NewSource(3))
	g := G1Generator()
	ps := make([]G1, n)
	ks := make([][4]uint64, n)
	for i := range ps {
		var s [32]byte
		r.Read(s[:])
		s[0] &= 0x3f
		ps[i].ScalarMult(&g, &s)
		ps[i].normalize()
		r.Read(s[:])
		ks[i] = scalarWords(&s)
	}
	return ps, ks
}

func BenchmarkG1MSM32Core(b *testing.B) {
	ps, ks := benchMSMInput(32)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msmG1(ps, ks)
	}
}

func BenchmarkG1Double(b *testing.B) {
	g := G1Generator()
	for i := 0; i < b.N; i++ {
		g.Double(&g)
	}
}

func BenchmarkG1AddMixed(b *testing.B) {
	g := G1Generator()
	var acc G1
	acc.Double(&g)
	for i := 0; i < b.N; i++ {
		acc.addAffine(&acc, &g.x, &g.y)
	}
}

func BenchmarkFpAdd(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := randFe(r), randFe(r)
	for i := 0; i < b.N; i++ {
		add(&x, &x, &y)
	}
}

func BenchmarkFpSub(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := randFe(r), randFe(r)
	for i := 0; i < b.N; i++ {
		sub(&x, &x, &y)
	}
}

func BenchmarkFpSquare(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x := randFe(r)
	for i := 0; i < b.N; i++ {
		square(&x, &x)
	}
}

func BenchmarkPairing2(b *testing.B) {
	ks := loadKATs(b, "pairing.json")
	var in []byte
	for _, k := range ks {
		if len(k.Input) == 2*768 && k.Expected[len(k.Expected)-1] == '1' {
			in, _ = hex.DecodeString(k.Input)
			break
		}
	}
	if in == nil {
		b.Fatal("no two-pair vector")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Pairing(in); err != nil {
			b.Fatal(err)
		}
	}
}

func benchMSMBytes(n int) []byte {
	ps, ks := benchMSMInput(n)
	var in []byte
	for i := range ps {
		in = append(in, encodeG1(&ps[i])...)
		var s [32]byte
		for j := 0; j < 4; j++ {
			w := ks[i][3-j]
			for b := 0; b < 8; b++ {
				s[j*8+b] = byte(w >> (56 - 8*b))
			}
		}
		in = append(in, s[:]...)
	}
	return in
}

func BenchmarkG1MSM32(b *testing.B) {
	in := benchMSMBytes(32)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := G1MSM(in); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAddInput is a + G for a = k·G with a large k, encoded as the ADD
// precompiles take it (the same shape as the peerbench case).
func benchAddInput(g2 bool) []byte {
	k := [32]byte{0: 0x12, 3: 0x45, 7: 0x67, 31: 0x63}
	if g2 {
		g := G2Generator()
		var a G2
		a.ScalarMult(&g, &k)
		return append(encodeG2(&a), encodeG2(&g)...)
	}
	g := G1Generator()
	var a G1
	a.ScalarMult(&g, &k)
	return append(encodeG1(&a), encodeG1(&g)...)
}

func BenchmarkG1Add(b *testing.B) {
	in := benchAddInput(false)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := G1Add(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkG2Add(b *testing.B) {
	in := benchAddInput(true)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := G2Add(in); err != nil {
			b.Fatal(err)
		}
	}
}
