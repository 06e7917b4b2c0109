package bls12381

import (
	"bytes"
	"math/rand"
	"testing"
)

// onCurveG1 returns some points of E(Fp) found from small x, most of them
// outside the prime-order subgroup (G1ADD does not require membership).
func onCurveG1(n int) []G1 {
	var out []G1
	for i := uint64(1); len(out) < n; i++ {
		var x, y, r fe
		x.setUint(i)
		square(&r, &x)
		mul(&r, &r, &x)
		add(&r, &r, &g1B)
		if sqrt(&y, &r) {
			var p G1
			out = append(out, *p.setAffine(&x, &y))
		}
	}
	return out
}

func onCurveG2(n int) []G2 {
	var out []G2
	for i := uint64(1); len(out) < n; i++ {
		var x, y, r fe2
		x[0].setUint(i)
		x[1].setUint(i * 7)
		square2(&r, &x)
		mul2(&r, &r, &x)
		add2(&r, &r, &g2B)
		if sqrt2(&y, &r) {
			var p G2
			out = append(out, *p.setAffine(&x, &y))
		}
	}
	return out
}

// TestAddAffineMatchesJacobian checks the affine G1ADD/G2ADD path against
// the Jacobian addition on generic sums, doubling, P + (-P) and infinity.
func TestAddAffineMatchesJacobian(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	g1s := onCurveG1(4)
	g2s := onCurveG2(4)
	for i := 0; i < 6; i++ {
		var k [32]byte
		r.Read(k[:])
		g, h := G1Generator(), G2Generator()
		var p G1
		var q G2
		g1s = append(g1s, *p.ScalarMult(&g, &k).normalize())
		g2s = append(g2s, *q.ScalarMult(&h, &k).normalize())
	}
	g1s = append(g1s, G1{})
	g2s = append(g2s, G2{})
	n1 := len(g1s)
	for i := 0; i < n1; i++ {
		var m G1
		g1s = append(g1s, *m.Neg(&g1s[i]))
	}
	n2 := len(g2s)
	for i := 0; i < n2; i++ {
		var m G2
		g2s = append(g2s, *m.Neg(&g2s[i]))
	}
	for i := range g1s {
		for j := range g1s {
			a, b := &g1s[i], &g1s[j]
			in := append(encodeG1(a), encodeG1(b)...)
			got, err := G1Add(in)
			if err != nil {
				t.Fatal(err)
			}
			var s G1
			s.Add(a, b)
			if want := encodeG1(&s); !bytes.Equal(got, want) {
				t.Fatalf("G1 %d + %d: got %x want %x", i, j, got, want)
			}
		}
	}
	for i := range g2s {
		for j := range g2s {
			a, b := &g2s[i], &g2s[j]
			in := append(encodeG2(a), encodeG2(b)...)
			got, err := G2Add(in)
			if err != nil {
				t.Fatal(err)
			}
			var s G2
			s.Add(a, b)
			if want := encodeG2(&s); !bytes.Equal(got, want) {
				t.Fatalf("G2 %d + %d: got %x want %x", i, j, got, want)
			}
		}
	}
}

func TestAddAffineRejectsOffCurve(t *testing.T) {
	g := G1Generator()
	in := append(encodeG1(&g), encodeG1(&g)...)
	in[127] ^= 1
	if _, err := G1Add(in); err != ErrNotOnCurve {
		t.Fatalf("G1Add off-curve: %v", err)
	}
	h := G2Generator()
	in2 := append(encodeG2(&h), encodeG2(&h)...)
	in2[511] ^= 1
	if _, err := G2Add(in2); err != ErrNotOnCurve {
		t.Fatalf("G2Add off-curve: %v", err)
	}
}

// TestAddDoublingMatchesMSM checks P + P against 2·P from the MSM
// precompile, a path that shares no addition code with G1ADD/G2ADD.
func TestAddDoublingMatchesMSM(t *testing.T) {
	two := make([]byte, 32)
	two[31] = 2
	g, h := G1Generator(), G2Generator()
	e1, e2 := encodeG1(&g), encodeG2(&h)
	sum1, err := G1Add(append(append([]byte{}, e1...), e1...))
	if err != nil {
		t.Fatal(err)
	}
	dbl1, err := G1MSM(append(append([]byte{}, e1...), two...))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sum1, dbl1) {
		t.Fatalf("G1: G+G = %x, 2G = %x", sum1, dbl1)
	}
	sum2, err := G2Add(append(append([]byte{}, e2...), e2...))
	if err != nil {
		t.Fatal(err)
	}
	dbl2, err := G2MSM(append(append([]byte{}, e2...), two...))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sum2, dbl2) {
		t.Fatalf("G2: G+G = %x, 2G = %x", sum2, dbl2)
	}
}
