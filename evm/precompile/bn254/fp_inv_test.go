package bn254

import (
	"encoding/binary"
	"math/big"
	"math/rand"
	"testing"
)

// checkInvertDivsteps compares invertDivsteps on the plain integer a with
// math/big.
func checkInvertDivsteps(t *testing.T, a fe) {
	t.Helper()
	ab := new(big.Int).SetBytes(limbsToBytes(a))
	var z fe
	if !invertDivsteps(&z, &a) {
		t.Fatalf("invertDivsteps(%x) hit the batch bound", ab)
	}
	want := new(big.Int).ModInverse(ab, pBig)
	if got := new(big.Int).SetBytes(limbsToBytes(z)); got.Cmp(want) != 0 {
		t.Fatalf("invertDivsteps(%x) = %x, want %x", ab, got, want)
	}
}

func TestInvertDivsteps(t *testing.T) {
	cases := []fe{{1}, {2}, {3}, {p0 - 1, p1, p2, p3}, {p0 - 2, p1, p2, p3}, {0, 0, 0, 1 << 61}}
	for k := range 254 {
		var x fe
		x[k/64] = 1 << (k % 64)
		cases = append(cases, x)
		x[0] |= 1
		cases = append(cases, x)
	}
	for _, c := range cases {
		checkInvertDivsteps(t, c)
	}
	r := rand.New(rand.NewSource(5))
	for range 20000 {
		x, _ := randFe(r)
		if x.isZero() {
			continue
		}
		checkInvertDivsteps(t, x)
	}
}

func FuzzInvertDivsteps(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add(limbsToBytes(fe{p0 - 1, p1, p2, p3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 32 {
			b = append(b, make([]byte, 32-len(b))...)
		}
		var x fe
		for i := range 4 {
			x[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		x[3] &= 1<<62 - 1
		reduce(&x)
		if x.isZero() {
			return
		}
		checkInvertDivsteps(t, x)
	})
}
