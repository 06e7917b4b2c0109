package bls12381

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"math/rand"
	"testing"
)

// randomE1 returns a random point of E(Fp), almost surely outside G1.
func randomE1(r *rand.Rand) G1 {
	for {
		x := randFe(r)
		var rhs, y, b fe
		square(&rhs, &x)
		mul(&rhs, &rhs, &x)
		b.setUint(4)
		add(&rhs, &rhs, &b)
		if sqrt(&y, &rhs) {
			var p G1
			return *p.setAffine(&x, &y)
		}
	}
}

func randomE2(r *rand.Rand) G2 {
	for {
		x := randFe2(r)
		var rhs, y, b fe2
		square2(&rhs, &x)
		mul2(&rhs, &rhs, &x)
		b.setOne()
		mulByB2(&b, &b)
		add2(&rhs, &rhs, &b)
		if sqrt2(&y, &rhs) {
			var p G2
			return *p.setAffine(&x, &y)
		}
	}
}

func TestSubgroupChecks(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	rw := bigToWords(bigR)
	g1, g2 := G1Generator(), G2Generator()
	if !g1.InSubgroup() || !g2.InSubgroup() {
		t.Fatal("generator fails subgroup check")
	}
	var psiG, xG G2
	psiG.psi(&g2)
	xG.mulByX(&g2)
	if !psiG.Equal(&xG) {
		t.Fatal("psi(G2) != [x]G2")
	}
	for i := 0; i < 8; i++ {
		p := randomE1(r)
		var rp G1
		rp.mulWords(&p, rw)
		if p.InSubgroup() != rp.isInfinity() {
			t.Fatalf("G1 subgroup check disagrees with r·P")
		}
		if p.InSubgroup() {
			t.Fatal("random E1 point in G1 (probability ~2^-126)")
		}
		var c G1
		c.clearCofactor(&p)
		if !c.InSubgroup() {
			t.Fatal("G1 cofactor clearing left the subgroup")
		}
		q := randomE2(r)
		var rq G2
		rq.mulWords(&q, rw)
		if q.InSubgroup() != rq.isInfinity() {
			t.Fatalf("G2 subgroup check disagrees with r·Q")
		}
		if q.InSubgroup() {
			t.Fatal("random E2 point in G2")
		}
		var cq, hq G2
		cq.clearCofactor(&q)
		if !cq.InSubgroup() {
			t.Fatal("G2 cofactor clearing left the subgroup")
		}
		hq.mulWords(&q, bigToWords(g2HEff))
		if !hq.Equal(&cq) {
			t.Fatal("psi-based cofactor clearing != h_eff multiplication")
		}
	}
}

// g2HEff is h_eff for G2 from RFC 9380, section 8.8.2.
var g2HEff = mustBig("bc69f08f2ee75b3584c6a0ea91b352888e2a8e9145ad7689986ff031508ffe1329c2f178731db956d82bf015d1212b02ec0ec69d7477c1ae954cbc06689f6a359894c0adebbf6b4e8020005aaa95551")

func TestCompressedGenerators(t *testing.T) {
	g1, g2 := G1Generator(), G2Generator()
	c1 := CompressG1(&g1)
	want1, _ := hex.DecodeString("97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
	if !bytes.Equal(c1[:], want1) {
		t.Fatalf("G1 generator compresses to %x", c1)
	}
	c2 := CompressG2(&g2)
	want2, _ := hex.DecodeString("93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")
	if !bytes.Equal(c2[:], want2) {
		t.Fatalf("G2 generator compresses to %x", c2)
	}
	d1, err := DecompressG1(want1)
	if err != nil || !d1.Equal(&g1) {
		t.Fatal("G1 generator round trip", err)
	}
	d2, err := DecompressG2(want2)
	if err != nil || !d2.Equal(&g2) {
		t.Fatal("G2 generator round trip", err)
	}
	// Round trips of multiples (both signs of y).
	for k := int64(1); k < 20; k++ {
		var s [32]byte
		big.NewInt(k*7919 + 3).FillBytes(s[:])
		var p G1
		p.ScalarMult(&g1, &s)
		if k%2 == 0 {
			p.Neg(&p)
		}
		c := CompressG1(&p)
		d, err := DecompressG1(c[:])
		if err != nil || !d.Equal(&p) {
			t.Fatalf("G1 round trip %d: %v", k, err)
		}
		var q G2
		q.ScalarMult(&g2, &s)
		if k%2 == 0 {
			q.Neg(&q)
		}
		cq := CompressG2(&q)
		dq, err := DecompressG2(cq[:])
		if err != nil || !dq.Equal(&q) {
			t.Fatalf("G2 round trip %d: %v", k, err)
		}
	}
	inf := CompressG1(&G1{})
	if d, err := DecompressG1(inf[:]); err != nil || !d.isInfinity() {
		t.Fatal("infinity round trip")
	}
}

func TestCompressedRejects(t *testing.T) {
	g1 := G1Generator()
	c := CompressG1(&g1)
	bad := c
	bad[0] &^= flagCompressed
	if _, err := DecompressG1(bad[:]); err == nil {
		t.Fatal("accepted uncompressed flag")
	}
	bad = [48]byte{0: 0xc0, 47: 1}
	if _, err := DecompressG1(bad[:]); err == nil {
		t.Fatal("accepted infinity with payload")
	}
	bad = [48]byte{0: 0xe0}
	if _, err := DecompressG1(bad[:]); err == nil {
		t.Fatal("accepted infinity with sort flag")
	}
	// x = p is out of range.
	pb := bigP.Bytes()
	copy(bad[:], pb)
	bad[0] |= flagCompressed
	if _, err := DecompressG1(bad[:]); err == nil {
		t.Fatal("accepted x = p")
	}
	// A point on the curve outside G1.
	r := rand.New(rand.NewSource(9))
	p := randomE1(r)
	cp := CompressG1(&p)
	if _, err := DecompressG1(cp[:]); err != ErrNotInSubgroup {
		t.Fatalf("non-subgroup point: %v", err)
	}
	if _, err := DecompressG1(c[:47]); err == nil {
		t.Fatal("accepted short input")
	}
}

func TestPrepareG2Checked(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	g2 := G2Generator()
	for i := 0; i < 30; i++ {
		var s [32]byte
		r.Read(s[:])
		var q G2
		q.ScalarMult(&g2, &s)
		if _, ok := prepareG2Checked(&q); !ok {
			t.Fatal("subgroup point rejected")
		}
		e := randomE2(r)
		if _, ok := prepareG2Checked(&e); ok != e.InSubgroup() || ok {
			t.Fatal("non-subgroup point accepted")
		}
		// A subgroup point plus a non-subgroup point is outside G2.
		var m G2
		m.Add(&q, &e)
		m.normalize()
		if _, ok := prepareG2Checked(&m); ok {
			t.Fatal("mixed point accepted")
		}
	}
	if _, ok := prepareG2Checked(&G2{}); !ok {
		t.Fatal("infinity rejected")
	}
}
