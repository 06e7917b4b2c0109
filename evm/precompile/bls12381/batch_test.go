package bls12381

import (
	"errors"
	"math/big"
	"math/rand"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381/fr"
)

// DecompressG1s decodes like DecompressG1 one by one, and reports the
// error of the lowest bad index whatever the scheduling.
func TestDecompressG1s(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	g := G1Generator()
	var encs [][]byte
	var want []G1
	for i := 0; i < 9; i++ {
		var s [32]byte
		new(big.Int).Rand(r, bigR).FillBytes(s[:])
		var p G1
		p.ScalarMult(&g, &s)
		if i == 4 {
			p.setInfinity()
		}
		e := CompressG1(&p)
		encs = append(encs, e[:])
		q, err := DecompressG1(e[:])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, q)
	}
	got, err := DecompressG1s(encs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("point %d differs", i)
		}
	}
	bad := append([][]byte(nil), encs...)
	bad[6] = encs[6][:47]
	bad[3] = append([]byte(nil), encs[3]...)
	bad[3][0] &^= 0x80 // uncompressed flag
	if _, err := DecompressG1s(bad); !errors.Is(err, ErrCompressedFlags) {
		t.Fatalf("err = %v, want the flags error of index 3", err)
	}
	if ps, err := DecompressG1s(nil); err != nil || len(ps) != 0 {
		t.Fatalf("no points: %v, %v", ps, err)
	}
}

// MultiScalarMultFr agrees with MultiScalarMultSubgroup on the same
// scalars in bytes.
func TestMultiScalarMultFr(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	g := G1Generator()
	for _, n := range []int{1, 3, 40} {
		points := make([]G1, n)
		scalars := make([]fr.Element, n)
		bytes := make([][32]byte, n)
		for i := range points {
			var s [32]byte
			new(big.Int).Rand(r, bigR).FillBytes(s[:])
			points[i].ScalarMult(&g, &s)
			points[i].normalize()
			new(big.Int).Rand(r, bigR).FillBytes(bytes[i][:])
			if !scalars[i].SetBytes(&bytes[i]) {
				t.Fatal("scalar not below r")
			}
		}
		got := MultiScalarMultFr(points, scalars)
		want := MultiScalarMultSubgroup(points, bytes)
		if !got.Equal(&want) {
			t.Fatalf("n=%d: MultiScalarMultFr differs", n)
		}
	}
}
