package precompile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refModExp is the definition of the precompile's result on math/big.
func refModExp(base, exp []byte, expTail uint64, mod []byte) []byte {
	out := make([]byte, len(mod))
	m := new(big.Int).SetBytes(mod)
	if m.Sign() == 0 {
		return out
	}
	e := new(big.Int).SetBytes(exp)
	e.Lsh(e, uint(8*expTail))
	r := new(big.Int).Exp(new(big.Int).SetBytes(base), e, m)
	return r.FillBytes(out)
}

func randOperand(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	// Skewed shapes: leading zeros, all ones, tiny values.
	switch r.IntN(6) {
	case 0:
		if n > 0 {
			clear(b[:r.IntN(n)])
		}
	case 1:
		for i := range b {
			b[i] = 0xff
		}
	case 2:
		clear(b)
		if n > 0 {
			b[n-1] = byte(r.IntN(3))
		}
	}
	return b
}

// TestModExpMontMatchesBig compares the Montgomery path with math/big over
// random operands of every word length it takes, odd and even moduli, and
// exponents of every window width.
func TestModExpMontMatchesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129, 255, 256, 257, 511, 512, 513, 1024, 1025}
	iters := 6
	if testing.Short() {
		iters = 2
	}
	taken := 0
	for _, modLen := range sizes {
		for it := 0; it < iters; it++ {
			baseLen := modLen + r.IntN(3) - 1
			if r.IntN(4) == 0 {
				baseLen = r.IntN(2*modLen + 2)
			}
			expLen := []int{1, 2, 3, 8, 16, 32, 64, 100, 300}[r.IntN(9)]
			if modLen > 256 {
				expLen = min(expLen, 8)
			}
			base := randOperand(r, max(baseLen, 0))
			exp := randOperand(r, expLen)
			mod := randOperand(r, modLen)
			if it%2 == 0 {
				mod[len(mod)-1] |= 1
			}
			var tail uint64
			if r.IntN(4) == 0 {
				tail = uint64(r.IntN(3))
			}
			want := refModExp(base, exp, tail, mod)
			got := make([]byte, len(mod))
			ok := montModExp(got, base, exp, tail, mod)
			if ok {
				taken++
			}
			if ok && !bytes.Equal(got, want) {
				t.Fatalf("len %d/%d/%d tail %d:\nbase %x\nexp %x\nmod %x\ngot  %x\nwant %x",
					len(base), len(exp), len(mod), tail, base, exp, mod, got, want)
			}
			// The precompile as a whole, whichever path it takes.
			in := modExpInput(base, exp, mod, tail)
			out, err := (modExp{gas: modExpGasEIP2565}).Run(in)
			if err != nil || !bytes.Equal(out, want) {
				t.Fatalf("Run len %d/%d/%d tail %d: %x, %v; want %x", len(base), len(exp), len(mod), tail, out, err, want)
			}
		}
	}
	if taken < len(sizes)*iters/3 {
		t.Errorf("Montgomery path taken %d times, want most odd moduli", taken)
	}
	t.Logf("Montgomery path taken %d of %d", taken, len(sizes)*iters)
}

func modExpInput(base, exp, mod []byte, tail uint64) []byte {
	in := make([]byte, 96)
	binary.BigEndian.PutUint64(in[24:], uint64(len(base)))
	binary.BigEndian.PutUint64(in[56:], uint64(len(exp))+tail)
	binary.BigEndian.PutUint64(in[88:], uint64(len(mod)))
	in = append(in, base...)
	in = append(in, exp...)
	in = append(in, make([]byte, tail)...)
	return append(in, mod...)
}

// TestModExpMontEdges covers the fixed points and the smallest moduli.
func TestModExpMontEdges(t *testing.T) {
	cases := []struct{ base, exp, mod string }{
		{"00", "01", "01"},
		{"05", "01", "01"},
		{"00", "05", "07"},
		{"01", "ffff", "07"},
		{"06", "03", "07"},
		{"07", "03", "07"},
		{"0e", "02", "07"},
		{"ffffffffffffffff", "010001", "ffffffffffffffff"},
		{"ffffffffffffffff", "010001", "00000000000000000000000000000000ffffffffffffffc5"},
		{"02", "ff", "8000000000000000000000000000000000000000000000000000000000000001"},
		{"ff", "0100000000000000000000000000000000", "0000000000000000000000000000000000000000000000000000000000000003"},
	}
	for _, c := range cases {
		var base, exp, mod []byte
		fmt.Sscanf(c.base, "%x", &base)
		fmt.Sscanf(c.exp, "%x", &exp)
		fmt.Sscanf(c.mod, "%x", &mod)
		for tail := uint64(0); tail < 3; tail++ {
			want := refModExp(base, exp, tail, mod)
			got := make([]byte, len(mod))
			if !montModExp(got, base, exp, tail, mod) {
				t.Errorf("%v tail %d: not taken by the Montgomery path", c, tail)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%v tail %d: got %x want %x", c, tail, got, want)
			}
		}
	}
}

func TestNegInvWord(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		x := r.Uint64() | 1
		if x*negInvWord(x) != ^uint64(0) {
			t.Fatalf("negInvWord(%#x) wrong", x)
		}
	}
}

// TestModExpAllocs checks that the odd-modulus path allocates only the
// output.
func TestModExpAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	mod := randOperand(r, 128)
	mod[0] |= 0x80
	mod[127] |= 1
	in := modExpInput(randOperand(r, 128), []byte{1, 0, 1}, mod, 0)
	c := modExp{gas: modExpGasEIP2565}
	c.Run(in)
	if a := testing.AllocsPerRun(100, func() { c.Run(in) }); a > 1 {
		t.Errorf("%v allocations per call, want 1", a)
	}
}

func BenchmarkModExp(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	uniform := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		b[0] |= 0x80
		return b
	}
	for _, n := range []int{32, 64, 96, 128, 192, 256, 512, 1024} {
		mod := uniform(n)
		mod[n-1] |= 1
		base := uniform(n)
		for _, e := range []struct {
			name string
			exp  []byte
		}{{"square", []byte{2}}, {"F4", []byte{1, 0, 1}}, {"exp8", uniform(8)}, {"exp16", uniform(16)}, {"full", uniform(n)}} {
			in := modExpInput(base, e.exp, mod, 0)
			b.Run(fmt.Sprintf("%d/%s", n, e.name), func(b *testing.B) {
				c := modExp{gas: modExpGasEIP2565}
				b.ReportAllocs()
				for b.Loop() {
					c.Run(in)
				}
			})
			// math/big on the same operands, for comparison.
			b.Run(fmt.Sprintf("%d/%s/big", n, e.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					modExpCompute(base, e.exp, 0, mod)
				}
			})
			// The Montgomery path whatever the dispatch prefers.
			b.Run(fmt.Sprintf("%d/%s/mont", n, e.name), func(b *testing.B) {
				out := make([]byte, n)
				for b.Loop() {
					montModExp(out, base, e.exp, 0, mod)
				}
			})
		}
	}
}

// TestMontMulPaths checks the multiplication in use (assembly on amd64)
// against the portable Go versions, including inputs x ≥ m that the
// conversion into Montgomery form produces.
func TestMontMulPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := 1; n <= 70; n++ {
		c := montCtx{m: make([]uint64, n), t: make([]uint64, 2*n+2)}
		for it := 0; it < 20; it++ {
			for i := range c.m {
				c.m[i] = r.Uint64()
			}
			c.m[0] |= 1
			switch it % 4 {
			case 0:
				c.m[n-1] |= 1 << 63
			case 1:
				c.m[n-1] = 1 + r.Uint64()>>r.IntN(64)
			case 2:
				for i := range c.m {
					c.m[i] = ^uint64(0)
				}
			}
			c.minv = negInvWord(c.m[0])
			x := make([]uint64, n)
			y := make([]uint64, n)
			for i := range x {
				x[i] = r.Uint64()
				y[i] = r.Uint64()
			}
			if it%3 == 0 {
				for i := range x {
					x[i] = ^uint64(0) // x = R-1 ≥ m
				}
			}
			// y must be below m.
			y[n-1] = c.m[n-1] >> 1
			if it%5 == 0 {
				copy(y, c.m)
				y[0]--
			}
			p := make([]uint64, 2*n+2)
			want := make([]uint64, n)
			got := make([]uint64, n)
			c.mulGeneric(want, x, y)
			c.mul(got, x, y)
			if !equalWords(got, want) {
				t.Fatalf("n=%d mul: got %x want %x", n, got, want)
			}
			// Squaring takes x < m.
			copy(x, y)
			c.sqrGeneric(got, x, p)
			c.mulGeneric(want, x, x)
			if !equalWords(got, want) {
				t.Fatalf("n=%d sqrGeneric: got %x want %x", n, got, want)
			}
			c.sqr(got, x, p)
			if !equalWords(got, want) {
				t.Fatalf("n=%d sqr: got %x want %x", n, got, want)
			}
		}
	}
}

// FuzzModExpMont compares the Montgomery path, taken whenever it can be,
// with math/big.
func FuzzModExpMont(f *testing.F) {
	f.Add([]byte{3}, []byte{1, 0, 1}, []byte{0x0f}, uint8(0))
	f.Add(bytes.Repeat([]byte{0xff}, 64), bytes.Repeat([]byte{0xee}, 40), bytes.Repeat([]byte{0xdd}, 64), uint8(1))
	f.Add([]byte{}, []byte{5}, []byte{0, 0, 1}, uint8(2))
	f.Add(bytes.Repeat([]byte{7}, 130), []byte{0xff, 0xff}, bytes.Repeat([]byte{0x81}, 129), uint8(0))
	f.Fuzz(func(t *testing.T, base, exp, mod []byte, tail uint8) {
		if len(base) > 1100 || len(exp) > 300 || len(mod) > 1100 {
			return
		}
		want := refModExp(base, exp, uint64(tail%4), mod)
		got := make([]byte, len(mod))
		if montModExp(got, base, exp, uint64(tail%4), mod) && !bytes.Equal(got, want) {
			t.Fatalf("base %x exp %x tail %d mod %x: got %x want %x", base, exp, tail%4, mod, got, want)
		}
	})
}
