// Package montgen writes unrolled Montgomery multiplication (CIOS, one word
// of y per round) for prime fields of a few 64-bit words whose top word
// leaves a bit free, so the running total never needs an extra word. The
// field packages' generators call it, so the pattern is written once.
package montgen

import (
	"fmt"
	"io"
)

// CIOS describes one generated multiplication.
type CIOS struct {
	Words int    // 64-bit words of an element
	Func  string // function name
	Elem  string // element type (an array of Words uint64)
	Mod   string // the modulus words are Mod0, Mod1, …
	Inv   string // the constant -modulus^-1 mod 2^64
	// Final, when set, is called as Final(z, t0, …) to subtract the
	// modulus once if needed; otherwise that subtraction is written out
	// (branch-free).
	Final string
	Doc   []string // comment lines above the function
}

// Write emits the function.
func (g CIOS) Write(w io.Writer) {
	n := g.Words
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	list := func(prefix string) string {
		s := ""
		for i := 0; i < n; i++ {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%s%d", prefix, i)
		}
		return s
	}
	for _, l := range g.Doc {
		p("// %s", l)
	}
	p("func %s(z, x, y *%s) {", g.Func, g.Elem)
	xs := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			xs += ", "
		}
		xs += fmt.Sprintf("x[%d]", i)
	}
	p("\t%s := %s", list("x"), xs)
	p("\tvar %s, a, cc, c, hi, lo, m uint64", list("t"))
	for r := 0; r < n; r++ {
		p("\t// word %d of y", r)
		// t += x·y[r], carrying through a; then m·p is added and the
		// total shifted down a word, carrying through cc.
		if r == 0 {
			p("\tyi := y[0]")
			p("\thi, t0 = bits.Mul64(x0, yi)")
			p("\ta = hi")
		} else {
			p("\tyi = y[%d]", r)
			p("\thi, lo = bits.Mul64(x0, yi)")
			p("\tt0, c = bits.Add64(lo, t0, 0)")
			p("\ta = hi + c")
		}
		p("\tm = t0 * %s", g.Inv)
		p("\thi, lo = bits.Mul64(m, %s0)", g.Mod)
		p("\t_, c = bits.Add64(lo, t0, 0)")
		p("\tcc = hi + c")
		for i := 1; i < n; i++ {
			p("\thi, lo = bits.Mul64(x%d, yi)", i)
			if r == 0 {
				p("\tt%d, c = bits.Add64(lo, a, 0)", i)
			} else {
				p("\tlo, c = bits.Add64(lo, t%d, 0)", i)
				p("\thi += c")
				p("\tt%d, c = bits.Add64(lo, a, 0)", i)
			}
			p("\ta = hi + c")
			p("\thi, lo = bits.Mul64(m, %s%d)", g.Mod, i)
			p("\tlo, c = bits.Add64(lo, t%d, 0)", i)
			p("\thi += c")
			p("\tt%d, c = bits.Add64(lo, cc, 0)", i-1)
			p("\tcc = hi + c")
		}
		p("\tt%d = cc + a", n-1)
	}
	if g.Final != "" {
		p("\t%s(z, %s)", g.Final, list("t"))
		p("}")
		return
	}
	p("\t// conditional subtraction of p")
	for i := 0; i < n; i++ {
		borrow := "b"
		if i == 0 {
			borrow = "0"
		}
		p("\tr%d, b := bits.Sub64(t%d, %s%d, %s)", i, i, g.Mod, i, borrow)
	}
	p("\tmask := -b // all ones when the subtraction borrowed: keep the input")
	for i := 0; i < n; i++ {
		p("\tz[%d] = r%d ^ ((t%d ^ r%d) & mask)", i, i, i, i)
	}
	p("}")
}
