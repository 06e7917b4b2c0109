//go:build amd64 && !purego

package bn254

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

func TestAsmConstants(t *testing.T) {
	if pInv != 0x87d20782e4866389 {
		t.Fatalf("pInv = %#x, the assembly hard-codes 0x87d20782e4866389", pInv)
	}
	if !useADX {
		t.Log("CPU lacks BMI2/ADX: the assembly paths are not exercised")
	}
}

// edgeFes are values where carries and the final subtraction are most
// likely to go wrong.
func edgeFes() []fe {
	pm1 := pMod
	pm1[0]--
	return []fe{
		{}, {1}, feOne, pm1,
		{^uint64(0), 0, 0, 0},
		{^uint64(0), ^uint64(0), ^uint64(0), 0},
		{0, 0, 0, p3},
		{p0 - 1, p1, p2, p3},
		{1, 0, 0, p3},
	}
}

func checkMulAsm(t *testing.T, x, y *fe) {
	t.Helper()
	if !useADX {
		t.Skip("CPU lacks BMI2/ADX")
	}
	var want, got fe
	feMulGeneric(&want, x, y)
	feMulADX(&got, x, y)
	if got != want {
		t.Fatalf("feMulADX(%x, %x) = %x, want %x", *x, *y, got, want)
	}
	var ww, gw wide
	mulWideGeneric(&ww, x, y)
	mulWideADX(&gw, x, y)
	if gw != ww {
		t.Fatalf("mulWideADX(%x, %x) = %x, want %x", *x, *y, gw, ww)
	}
	var wr, gr fe
	montReduceGeneric(&wr, &ww)
	montReduceADX(&gr, &ww)
	if gr != wr {
		t.Fatalf("montReduceADX(%x) = %x, want %x", ww, gr, wr)
	}
	// The largest input montReduce accepts: just below p·2^256.
	top := wide{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), p0 - 1, p1, p2, p3}
	ww = top
	ww[0] ^= x[0]
	montReduceGeneric(&wr, &ww)
	montReduceADX(&gr, &ww)
	if gr != wr {
		t.Fatalf("montReduceADX(%x) = %x, want %x", ww, gr, wr)
	}
}

func TestAsmMatchesGeneric(t *testing.T) {
	edges := edgeFes()
	for i := range edges {
		for j := range edges {
			checkMulAsm(t, &edges[i], &edges[j])
		}
	}
	r := rand.New(rand.NewSource(7))
	for range 20000 {
		x, _ := randFe(r)
		y, _ := randFe(r)
		checkMulAsm(t, &x, &y)
	}
}

// FuzzAsmMul compares the assembly Fp and Fp2 operations with the Go
// ones on arbitrary reduced inputs.
func FuzzAsmMul(f *testing.F) {
	f.Add(make([]byte, 128))
	pm1 := pMod
	pm1[0]--
	le := make([]byte, 128)
	for i := range 16 {
		binary.LittleEndian.PutUint64(le[8*i:], pm1[i%4])
	}
	f.Add(le)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 128 {
			b = append(b, make([]byte, 128-len(b))...)
		}
		var v [4]fe
		for i := range v {
			for j := range 4 {
				v[i][j] = binary.LittleEndian.Uint64(b[32*i+8*j:])
			}
			// Map to [0, p): below 2^254 < 2p after masking.
			v[i][3] &= 1<<62 - 1
			reduce(&v[i])
		}
		checkMulAsm(t, &v[0], &v[1])
		checkFe2Asm(t, &fe2{v[0], v[1]}, &fe2{v[2], v[3]})
	})
}

func checkFe2Asm(t *testing.T, x, y *fe2) {
	t.Helper()
	type op2 struct {
		name      string
		asm, want func(z, x, y *fe2)
		needsADX  bool
	}
	type op1 struct {
		name      string
		asm, want func(z, x *fe2)
		needsADX  bool
	}
	ops2 := []op2{
		{"add", fe2AddAsm, fe2AddGeneric, false},
		{"sub", fe2SubAsm, fe2SubGeneric, false},
		{"mul", fe2MulADX, fe2MulGeneric, true},
	}
	ops1 := []op1{
		{"double", fe2DoubleAsm, fe2DoubleGeneric, false},
		{"mulXi", fe2MulXiAsm, fe2MulXiGeneric, false},
		{"square", fe2SquareADX, fe2SquareGeneric, true},
	}
	for _, op := range ops2 {
		if op.needsADX && !useADX {
			continue
		}
		var want, got fe2
		op.want(&want, x, y)
		op.asm(&got, x, y)
		if got != want {
			t.Fatalf("%s(%x, %x) = %x, want %x", op.name, *x, *y, got, want)
		}
		// z aliasing either input
		got = *x
		op.asm(&got, &got, y)
		if got != want {
			t.Fatalf("%s with z = x: %x, want %x", op.name, got, want)
		}
		got = *y
		op.asm(&got, x, &got)
		if got != want {
			t.Fatalf("%s with z = y: %x, want %x", op.name, got, want)
		}
	}
	for _, op := range ops1 {
		if op.needsADX && !useADX {
			continue
		}
		var want, got fe2
		op.want(&want, x)
		op.asm(&got, x)
		if got != want {
			t.Fatalf("%s(%x) = %x, want %x", op.name, *x, got, want)
		}
		got = *x
		op.asm(&got, &got)
		if got != want {
			t.Fatalf("%s with z = x: %x, want %x", op.name, got, want)
		}
	}
}

func TestFe2AsmMatchesGeneric(t *testing.T) {
	edges := edgeFes()
	for i := range edges {
		for j := range edges {
			x := fe2{edges[i], edges[j]}
			y := fe2{edges[j], edges[(i+j)%len(edges)]}
			checkFe2Asm(t, &x, &y)
		}
	}
	r := rand.New(rand.NewSource(9))
	for range 5000 {
		var x, y fe2
		x.c0, _ = randFe(r)
		x.c1, _ = randFe(r)
		y.c0, _ = randFe(r)
		y.c1, _ = randFe(r)
		checkFe2Asm(t, &x, &y)
	}
}
