//go:build amd64 && !purego

package bls12381

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// mulInputs are edge values for the multiplication: 0, 1, p-1, R mod p,
// and lazy sums up to 2p-1 (mul2 feeds addLazy results to mul).
func mulInputs(r *rand.Rand, n int) []fe {
	pm1 := pModulus
	pm1[0]--
	twoPm1 := pModulus
	addLazy(&twoPm1, &pm1, &pModulus) // 2p - 1
	out := []fe{{}, {1}, pm1, feOne, feR2, twoPm1, {^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), 0}}
	for i := 0; i < n; i++ {
		x, y := randFe(r), randFe(r)
		var s fe
		addLazy(&s, &x, &y)
		out = append(out, x, s)
	}
	return out
}

func checkMulADX(t *testing.T, x, y *fe) {
	t.Helper()
	var a, b fe
	mulADX(&a, x, y)
	mulGeneric(&b, x, y)
	if a != b {
		t.Fatalf("mulADX(%x, %x) = %x, Go gives %x", *x, *y, a, b)
	}
	// Aliasing the output with an input.
	c := *x
	mulADX(&c, &c, y)
	if c != b {
		t.Fatal("mulADX with z == x differs")
	}
}

func TestMulADX(t *testing.T) {
	if !useADX {
		t.Skip("CPU lacks BMI2/ADX; the assembly is not used")
	}
	r := rand.New(rand.NewSource(9))
	in := mulInputs(r, 300)
	for i := range in {
		for j := range in {
			checkMulADX(t, &in[i], &in[j])
		}
	}
}

// FuzzMulADX maps 96 bytes to two values below 2p and compares the
// assembly with the Go multiplication.
func FuzzMulADX(f *testing.F) {
	if !useADX {
		f.Skip("CPU lacks BMI2/ADX; the assembly is not used")
	}
	f.Add(make([]byte, 96))
	seed := make([]byte, 96)
	for i := range seed {
		seed[i] = 0xff
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, in []byte) {
		var buf [96]byte
		copy(buf[:], in)
		var x, y fe
		for i := 0; i < 6; i++ {
			x[i] = binary.LittleEndian.Uint64(buf[8*i:])
			y[i] = binary.LittleEndian.Uint64(buf[48+8*i:])
		}
		// Keep them below 2p: clear the top bits, then subtract p if needed.
		x[5] &= 1<<62 - 1
		y[5] &= 1<<62 - 1
		for _, v := range []*fe{&x, &y} {
			for !lessThan2P(v) {
				v[5] >>= 1
			}
		}
		checkMulADX(t, &x, &y)
	})
}

// lessThan2P reports v < 2p.
func lessThan2P(v *fe) bool {
	var twoP fe
	addLazy(&twoP, &pModulus, &pModulus)
	for i := 5; i >= 0; i-- {
		if v[i] != twoP[i] {
			return v[i] < twoP[i]
		}
	}
	return false
}
