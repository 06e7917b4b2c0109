package bn254

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"testing"
)

func decBig(s string) []byte {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	b := make([]byte, 32)
	v.FillBytes(b)
	return b
}

// The standard generators of G1 and G2 (EIP-197 encoding).
var (
	g1Gen = append(decBig("1"), decBig("2")...)
	g2Gen = bytes.Join([][]byte{
		decBig("11559732032986387107991004021392285783925812861821192530917403151452391805634"),
		decBig("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
		decBig("4082367875863433681332203403145435568316851327593401208105741076214120093531"),
		decBig("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
	}, nil)
)

func scalarBytes(k int64) []byte {
	b := make([]byte, 32)
	big.NewInt(k).FillBytes(b)
	return b
}

func mulG1(t testing.TB, p []byte, k int64) []byte {
	t.Helper()
	out, err := ScalarMul(append(append([]byte{}, p...), scalarBytes(k)...))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func negG1(p []byte) []byte {
	y := new(big.Int).SetBytes(p[32:64])
	if y.Sign() != 0 {
		y.Sub(pBig, y)
	}
	out := append([]byte{}, p[:32]...)
	b := make([]byte, 32)
	y.FillBytes(b)
	return append(out, b...)
}

func mulG2(t testing.TB, q []byte, k int64) []byte {
	t.Helper()
	var a g2Aff
	if err := decodeG2(&a, q); err != nil {
		t.Fatal(err)
	}
	var j g2Jac
	j.fromAffine(&a)
	var kb [32]byte
	copy(kb[:], scalarBytes(k))
	j.scalarMul(&j, &kb)
	j.toAffine(&a)
	out := make([]byte, 128)
	feToBytes(out[0:32], &a.x.c1)
	feToBytes(out[32:64], &a.x.c0)
	feToBytes(out[64:96], &a.y.c1)
	feToBytes(out[96:128], &a.y.c0)
	return out
}

func TestGenerators(t *testing.T) {
	var p g1Aff
	if err := decodeG1(&p, g1Gen); err != nil {
		t.Fatal(err)
	}
	var q g2Aff
	if err := decodeG2(&q, g2Gen); err != nil {
		t.Fatal(err)
	}
}

func TestG1AddMatchesMul(t *testing.T) {
	two, err := Add(append(append([]byte{}, g1Gen...), g1Gen...))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(two, mulG1(t, g1Gen, 2)) {
		t.Fatal("G+G != 2G")
	}
	three, _ := Add(append(append([]byte{}, two...), g1Gen...))
	if !bytes.Equal(three, mulG1(t, g1Gen, 3)) {
		t.Fatal("2G+G != 3G")
	}
	zero, _ := Add(append(append([]byte{}, g1Gen...), negG1(g1Gen)...))
	if !bytes.Equal(zero, make([]byte, 64)) {
		t.Fatalf("G-G = %x", zero)
	}
	var rb [32]byte
	copy(rb[:], orderR[:])
	out, _ := ScalarMul(append(append([]byte{}, g1Gen...), rb[:]...))
	if !bytes.Equal(out, make([]byte, 64)) {
		t.Fatal("r·G != 0")
	}
}

func pairInput(ps ...[]byte) []byte { return bytes.Join(ps, nil) }

func TestPairingBilinear(t *testing.T) {
	aP := mulG1(t, g1Gen, 6)
	bQ := mulG2(t, g2Gen, 7)
	abP := mulG1(t, g1Gen, 42)
	check := func(name string, in []byte, want byte) {
		t.Helper()
		out, err := PairingCheck(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if out[31] != want {
			t.Fatalf("%s: got %x want %d", name, out, want)
		}
	}
	check("e(6P,7Q)·e(-42P,Q)", pairInput(aP, bQ, negG1(abP), g2Gen), 1)
	check("e(6P,7Q)·e(42P,Q)", pairInput(aP, bQ, abP, g2Gen), 0)
	check("e(P,Q)", pairInput(g1Gen, g2Gen), 0)
	check("e(P,Q)·e(-P,Q)", pairInput(g1Gen, g2Gen, negG1(g1Gen), g2Gen), 1)
	check("empty", nil, 1)
	check("e(0,Q)", pairInput(make([]byte, 64), g2Gen), 1)
}

func TestG2SubgroupRejected(t *testing.T) {
	// Find a twist point outside G2: x = 1 + k·i for the first k giving a
	// square; with an enormous cofactor it is almost surely not in G2.
	for k := int64(0); k < 50; k++ {
		var p g2Aff
		one := make([]byte, 32)
		one[31] = 1
		feFromBytes(&p.x.c0, one)
		feFromBytes(&p.x.c1, scalarBytes(k))
		var rhs fe2
		fe2Square(&rhs, &p.x)
		fe2Mul(&rhs, &rhs, &p.x)
		fe2Add(&rhs, &rhs, &twistB)
		y, ok := fe2Sqrt(&rhs)
		if !ok {
			continue
		}
		p.y = y
		if !p.onCurve() {
			t.Fatal("constructed point not on curve")
		}
		if p.inSubgroup() || p.inSubgroupSlow() {
			t.Fatal("random twist point claimed to be in G2")
		}
		in := make([]byte, 128)
		feToBytes(in[0:32], &p.x.c1)
		feToBytes(in[32:64], &p.x.c0)
		feToBytes(in[64:96], &p.y.c1)
		feToBytes(in[96:128], &p.y.c0)
		if _, err := PairingCheck(pairInput(g1Gen, in)); err != ErrNotInSubgroup {
			t.Fatalf("err = %v, want ErrNotInSubgroup", err)
		}
		return
	}
	t.Fatal("no twist point found")
}

// fe2Sqrt finds a square root by brute exponentiation (tests only):
// |Fp2*| = p²-1, and p² ≡ 9 mod 16 would need Tonelli–Shanks in general,
// so use the algorithm for p ≡ 3 mod 4 (Adj–Rodríguez-Henríquez).
func fe2Sqrt(a *fe2) (fe2, bool) {
	e1 := new(big.Int).Sub(pBig, big.NewInt(3))
	e1.Rsh(e1, 2)
	var a1, alpha, x0, t fe2
	fe2Exp(&a1, a, bigToWords(e1))
	fe2Square(&alpha, &a1)
	fe2Mul(&alpha, &alpha, a)
	fe2Mul(&x0, &a1, a)
	var minusOne fe2
	feNeg(&minusOne.c0, &feOne)
	if alpha == minusOne {
		var i fe2
		i.c1 = feOne
		fe2Mul(&t, &i, &x0)
		return t, true
	}
	var b fe2
	one := fe2{c0: feOne}
	fe2Add(&b, &one, &alpha)
	e2 := new(big.Int).Sub(pBig, big.NewInt(1))
	e2.Rsh(e2, 1)
	fe2Exp(&b, &b, bigToWords(e2))
	fe2Mul(&t, &b, &x0)
	var chk fe2
	fe2Square(&chk, &t)
	return t, chk == *a
}

func TestEncodingErrors(t *testing.T) {
	pb := make([]byte, 32)
	pBig.FillBytes(pb)
	if _, err := Add(append(pb, make([]byte, 96)...)); err != ErrFieldElement {
		t.Errorf("x = p: %v", err)
	}
	if _, err := Add(append(decBig("1"), decBig("3")...)); err != ErrNotOnCurve {
		t.Errorf("(1,3): %v", err)
	}
	if _, err := PairingCheck(make([]byte, 191)); err != ErrPairingLength {
		t.Errorf("191 bytes: %v", err)
	}
	out, err := Add(nil)
	if err != nil || !bytes.Equal(out, make([]byte, 64)) {
		t.Errorf("empty add: %x %v", out, err)
	}
	_ = hex.EncodeToString
}

// TestG2SubgroupCriterion compares the endomorphism criterion with r·Q = 0
// on multiples of the generator and on twist points outside G2.
func TestG2SubgroupCriterion(t *testing.T) {
	for k := int64(1); k < 20; k++ {
		var q g2Aff
		if err := decodeG2(&q, mulG2(t, g2Gen, k*7919)); err != nil {
			t.Fatal(err)
		}
		if !q.inSubgroup() || !q.inSubgroupSlow() {
			t.Fatalf("%d·G2 rejected", k*7919)
		}
	}
	found := 0
	for k := int64(0); k < 200 && found < 20; k++ {
		var p g2Aff
		feFromBytes(&p.x.c0, scalarBytes(k+3))
		feFromBytes(&p.x.c1, scalarBytes(2*k+1))
		var rhs fe2
		fe2Square(&rhs, &p.x)
		fe2Mul(&rhs, &rhs, &p.x)
		fe2Add(&rhs, &rhs, &twistB)
		y, ok := fe2Sqrt(&rhs)
		if !ok {
			continue
		}
		p.y = y
		found++
		if p.inSubgroup() != p.inSubgroupSlow() {
			t.Fatalf("criteria disagree on x=%v", k)
		}
		// Clearing the cofactor lands in G2: h·P with h = 2p - r.
		var j, c g2Jac
		j.fromAffine(&p)
		h := new(big.Int).Sub(new(big.Int).Lsh(pBig, 1), new(big.Int).SetBytes(orderR[:]))
		var hb [32]byte
		h.FillBytes(hb[:])
		c.scalarMul(&j, &hb)
		var ca g2Aff
		c.toAffine(&ca)
		if !ca.inSubgroup() || !ca.inSubgroupSlow() {
			t.Fatal("cofactor-cleared point rejected")
		}
	}
	if found < 10 {
		t.Fatal("too few twist points")
	}
}

func TestCycloSquare(t *testing.T) {
	// Any Miller-loop output raised to (p⁶-1)(p²+1) is cyclotomic.
	var p g1Aff
	var q g2Aff
	decodeG1(&p, g1Gen)
	decodeG2(&q, g2Gen)
	f := millerLoop([]millerPair{{xP: p.x, yP: p.y, q: q}})
	var c, inv, c2 fe12
	fe12Conj(&c, &f)
	fe12Inv(&inv, &f)
	fe12Mul(&c, &c, &inv)
	fe12Frob(&c2, &c, 2)
	fe12Mul(&c, &c2, &c)
	for i := 0; i < 5; i++ {
		var a, b fe12
		fe12Square(&a, &c)
		cycloSquare(&b, &c)
		if a != b {
			t.Fatalf("cyclotomic square differs at step %d", i)
		}
		c = a
	}
	// The pairing value has order r: e^r = 1, e != 1.
	var e fe12
	finalExp(&e, &f)
	if e.isOne() {
		t.Fatal("e(G1, G2) = 1")
	}
}

// TestGLVMatchesPlain compares the GLV scalar multiplication with the
// textbook window method for random, edge and ≥ r scalars.
func TestGLVMatchesPlain(t *testing.T) {
	var g g1Aff
	decodeG1(&g, g1Gen)
	var base g1Jac
	base.fromAffine(&g)
	base.double(&base)
	r := new(big.Int).SetBytes(orderR[:])
	scalars := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), new(big.Int).Sub(r, big.NewInt(1)), r,
		new(big.Int).Add(r, big.NewInt(5)), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 128), new(big.Int).Lsh(big.NewInt(1), 255),
	}
	seed := big.NewInt(12345)
	for i := 0; i < 200; i++ {
		seed.Mul(seed, big.NewInt(6364136223846793005)).Add(seed, big.NewInt(1442695040888963407))
		seed.Mod(seed, new(big.Int).Lsh(big.NewInt(1), 256))
		scalars = append(scalars, new(big.Int).Set(seed))
	}
	for _, k := range scalars {
		var kb [32]byte
		k.FillBytes(kb[:])
		var a, b g1Jac
		a.scalarMul(&base, &kb)
		b.scalarMulPlain(&base, &kb)
		if !a.equal(&b) {
			t.Fatalf("GLV and plain differ for k=%x", k)
		}
	}
}

// TestExpByU checks the windowed exponentiation by u against plain
// square-and-multiply on a cyclotomic element.
func TestExpByU(t *testing.T) {
	var p g1Aff
	var q g2Aff
	decodeG1(&p, g1Gen)
	decodeG2(&q, g2Gen)
	f := millerLoop([]millerPair{{xP: p.x, yP: p.y, q: q}})
	var c, inv, c2 fe12
	fe12Conj(&c, &f)
	fe12Inv(&inv, &f)
	fe12Mul(&c, &c, &inv)
	fe12Frob(&c2, &c, 2)
	fe12Mul(&c, &c2, &c)
	want := fe12One()
	for i := 63; i >= 0; i-- {
		fe12Square(&want, &want)
		if (uint64(bnU)>>uint(i))&1 == 1 {
			fe12Mul(&want, &want, &c)
		}
	}
	var got fe12
	expByU(&got, &c)
	if got != want {
		t.Fatal("expByU differs from square-and-multiply")
	}
}
