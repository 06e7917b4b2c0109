package bls12381

import (
	"math/big"
	"math/rand"
	"testing"
)

func TestEndomorphismSplit(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	g1, g2 := G1Generator(), G2Generator()
	var base1 G1
	base1.ScalarMult(&g1, &[32]byte{31: 77, 3: 9})
	var base2 G2
	base2.ScalarMult(&g2, &[32]byte{31: 55, 7: 1})
	max := new(big.Int).Lsh(big.NewInt(1), 256)
	for i := 0; i < 40; i++ {
		var kb [32]byte
		switch i {
		case 0: // zero
		case 1:
			bigR.FillBytes(kb[:])
		case 2:
			new(big.Int).Sub(max, big.NewInt(1)).FillBytes(kb[:])
		case 3:
			new(big.Int).Sub(bigR, big.NewInt(1)).FillBytes(kb[:])
		default:
			new(big.Int).Rand(r, max).FillBytes(kb[:])
		}
		k := scalarWords(&kb)
		var want1, got1 G1
		want1.mulWords(&base1, k[:])
		got1.mulSubgroup(&base1, &k)
		if !want1.Equal(&got1) {
			t.Fatalf("G1 split multiplication wrong for %x", kb)
		}
		var want2, got2 G2
		want2.mulWords(&base2, k[:])
		got2.mulSubgroup(&base2, &k)
		if !want2.Equal(&got2) {
			t.Fatalf("G2 split multiplication wrong for %x", kb)
		}
	}
}

func TestMSMAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	g1, g2 := G1Generator(), G2Generator()
	max := new(big.Int).Lsh(big.NewInt(1), 256)
	for _, n := range []int{1, 2, 3, 5, 17, 70} {
		p1 := make([]G1, n)
		p2 := make([]G2, n)
		ks := make([][4]uint64, n)
		var want1 G1
		var want2 G2
		for i := 0; i < n; i++ {
			var s, kb [32]byte
			new(big.Int).Rand(r, bigR).FillBytes(s[:])
			new(big.Int).Rand(r, max).FillBytes(kb[:])
			if i == 1 {
				kb = [32]byte{}
			}
			p1[i].ScalarMult(&g1, &s)
			p2[i].ScalarMult(&g2, &s)
			if i == 2 {
				p1[i].setInfinity()
				p2[i].setInfinity()
			}
			p1[i].normalize()
			p2[i].normalize()
			ks[i] = scalarWords(&kb)
			var t1 G1
			t1.mulWords(&p1[i], ks[i][:])
			want1.Add(&want1, &t1)
			var t2 G2
			t2.mulWords(&p2[i], ks[i][:])
			want2.Add(&want2, &t2)
		}
		got1 := msmG1(p1, ks)
		if !got1.Equal(&want1) {
			t.Fatalf("G1 MSM wrong for n=%d", n)
		}
		got2 := msmG2(p2, ks)
		if !got2.Equal(&want2) {
			t.Fatalf("G2 MSM wrong for n=%d", n)
		}
	}
}
