package precompile

import (
	"math/big"
	"math/bits"
	"sync"
)

// Montgomery exponentiation for odd moduli on little-endian uint64 words.
//
// math/big only switches to Montgomery multiplication when the exponent is
// longer than one word; the EIP-2565 style calls with small exponents
// (2, 3, 65537) therefore pay a long division per step there. This path
// works for every exponent length with a single scratch buffer reused
// across calls, and uses a sliding window sized to the exponent.

// Which of this path and math/big takes a call was settled by measuring
// both (BenchmarkModExp, .../big and .../mont):
//   - exponents of at most montMinExpBits bits (squares, cubes) go to
//     math/big: the conversions into and out of Montgomery form cost more
//     than they save;
//   - exponents of one word go here up to montMaxWords: math/big runs them
//     as square-and-multiply with a long division per step;
//   - longer exponents go here up to montLongExpMaxWords(): math/big
//     then runs its own Montgomery loop with ADX assembly, which beats the
//     portable and MULQ multiplications above 16 words but not the ADX
//     rows of modexp_mont_amd64.go.
const (
	montMinExpBits = 5
	montMaxWords   = 128 // EIP-7823's 1024 bytes
)

// montScratch is the working memory of one call, pooled so that a call
// allocates only its output once the pool is warm.
type montScratch struct {
	words      []uint64
	x, m, q, r big.Int
}

var montPool = sync.Pool{New: func() any { return new(montScratch) }}

// montCtx is an odd modulus with its Montgomery constants.
type montCtx struct {
	m    []uint64 // modulus, little-endian, m[n-1] != 0
	minv uint64   // -m⁻¹ mod 2⁶⁴
	t    []uint64 // 2n+2 words of product scratch
}

// negInvWord returns -x⁻¹ mod 2⁶⁴ for odd x.
func negInvWord(x uint64) uint64 {
	// Newton's iteration doubles the number of correct low bits; x is its
	// own inverse modulo 8, so five steps reach 96 ≥ 64 bits.
	inv := x
	for range 5 {
		inv *= 2 - x*inv
	}
	return -inv
}

// mulGeneric sets z = x·y·R⁻¹ mod m (R = 2^(64n)) for x < R, y < m; z may alias x or y.
// The result is fully reduced.
func (c *montCtx) mulGeneric(z, x, y []uint64) {
	n := len(c.m)
	m := c.m[:n]
	x = x[:n]
	y = y[:n]
	t := c.t[:n+1]
	clear(t)
	for i := 0; i < n; i++ {
		// t += x·y[i]
		yi := y[i]
		var carry uint64
		for j := 0; j < n; j++ {
			hi, lo := bits.Mul64(x[j], yi)
			var cc uint64
			lo, cc = bits.Add64(lo, t[j], 0)
			hi += cc
			lo, cc = bits.Add64(lo, carry, 0)
			hi += cc
			t[j] = lo
			carry = hi
		}
		tn, top := bits.Add64(t[n], carry, 0)
		// t = (t + q·m) / 2⁶⁴ with q chosen so the low word cancels.
		q := t[0] * c.minv
		hi, lo := bits.Mul64(m[0], q)
		_, cc := bits.Add64(lo, t[0], 0)
		carry = hi + cc
		for j := 1; j < n; j++ {
			hi, lo := bits.Mul64(m[j], q)
			lo, cc = bits.Add64(lo, t[j], 0)
			hi += cc
			lo, cc = bits.Add64(lo, carry, 0)
			hi += cc
			t[j-1] = lo
			carry = hi
		}
		t[n-1], cc = bits.Add64(tn, carry, 0)
		t[n] = top + cc
	}
	c.reduce(z, t)
}

// sqrGeneric sets z = x²·R⁻¹ mod m. Each cross product x[i]·x[j] (i<j) is
// computed once and doubled, which saves nearly half the multiplications
// of mul; the reduction is then done word by word as in mul.
func (c *montCtx) sqrGeneric(z, x, p []uint64) {
	n := len(c.m)
	m := c.m[:n]
	x = x[:n]
	p = p[:2*n+1]
	clear(p)
	// Off-diagonal products.
	for i := 0; i < n-1; i++ {
		xi := x[i]
		var carry uint64
		row := p[2*i+1 : i+n]
		xs := x[i+1 : n]
		row = row[:len(xs)]
		for j, xj := range xs {
			hi, lo := bits.Mul64(xj, xi)
			var cc uint64
			lo, cc = bits.Add64(lo, row[j], 0)
			hi += cc
			lo, cc = bits.Add64(lo, carry, 0)
			hi += cc
			row[j] = lo
			carry = hi
		}
		p[i+n] = carry
	}
	addSquareDiagonal(p, x)
	// Montgomery reduction of the 2n-word p: clear one low word per step;
	// the carries out of each step accumulate in p[i+n].
	var top uint64
	for i := 0; i < n; i++ {
		q := p[i] * c.minv
		w := p[i : i+n]
		hi, lo := bits.Mul64(m[0], q)
		_, cc := bits.Add64(lo, w[0], 0)
		carry := hi + cc
		for j := 1; j < n; j++ {
			hi, lo := bits.Mul64(m[j], q)
			lo, cc = bits.Add64(lo, w[j], 0)
			hi += cc
			lo, cc = bits.Add64(lo, carry, 0)
			hi += cc
			w[j] = lo
			carry = hi
		}
		p[i+n], cc = bits.Add64(p[i+n], carry, top)
		top = cc
	}
	p[2*n] = top
	c.reduce(z, p[n:2*n+1])
}

// addSquareDiagonal doubles the sum of the off-diagonal products in p
// (2n words) and adds the squares x[i]² on the diagonal, turning it into
// x².
func addSquareDiagonal(p, x []uint64) {
	n := len(x)
	p = p[:2*n]
	var shiftIn, carry uint64
	for i := 0; i < n; i++ {
		hi, lo := bits.Mul64(x[i], x[i])
		a, b := p[2*i], p[2*i+1]
		da := a<<1 | shiftIn
		db := b<<1 | a>>63
		shiftIn = b >> 63
		var cc uint64
		da, cc = bits.Add64(da, lo, carry)
		db, carry = bits.Add64(db, hi, cc)
		p[2*i], p[2*i+1] = da, db
	}
}

// reduce sets z = t mod m for an (n+1)-word t < 2m.
func (c *montCtx) reduce(z, t []uint64) {
	n := len(c.m)
	m := c.m[:n]
	z = z[:n]
	t = t[:n+1]
	// Subtract m into z; keep t if that borrowed past t's top word.
	var b uint64
	for j := 0; j < n; j++ {
		z[j], b = bits.Sub64(t[j], m[j], b)
	}
	if _, b = bits.Sub64(t[n], 0, b); b != 0 {
		copy(z, t[:n])
	}
}

// double sets z = 2z mod m for z < m.
func (c *montCtx) double(z []uint64) {
	n := len(c.m)
	z = z[:n]
	var in uint64
	for j := range z {
		w := z[j]
		z[j] = w<<1 | in
		in = w >> 63
	}
	t := c.t[:n+1]
	copy(t, z)
	t[n] = in
	c.reduce(z, t)
}

func isZeroWords(x []uint64) bool {
	for _, w := range x {
		if w != 0 {
			return false
		}
	}
	return true
}

func equalWords(x, y []uint64) bool {
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// wordsFromBytes fills z with the big-endian number b, which must fit.
func wordsFromBytes(z []uint64, b []byte) {
	clear(z)
	for i := 0; i < len(b); i++ {
		k := len(b) - 1 - i // byte significance
		z[k/8] |= uint64(b[i]) << (8 * (k % 8))
	}
}

// wordsFromBig fills z with the little-endian big.Word digits ws, which
// must fit; big.Word is 32 or 64 bits wide depending on the platform.
func wordsFromBig(z []uint64, ws []big.Word) {
	clear(z)
	for i, w := range ws {
		z[i*bits.UintSize/64] |= uint64(w) << (i * bits.UintSize % 64)
	}
}

// trimBytes drops leading zero bytes.
func trimBytes(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// montWindow picks the sliding-window width for an exponent of the given
// bit length, balancing the 2^(w-1) table entries against the
// multiplications the window saves.
func montWindow(expBits int) int {
	switch {
	case expBits <= 24:
		return 1
	case expBits <= 80:
		return 3
	case expBits <= 240:
		return 4
	case expBits <= 768:
		return 5
	}
	return 6
}

// modExpMont writes base^(exp·256^expTail) mod mod, big-endian, into out
// (len(out) ≥ the modulus' byte length, zero-filled by the caller) and
// reports true, or reports false without touching out when the call is
// math/big's by the rules above, or not for Montgomery at all: an even or
// zero modulus, a zero exponent, or a base longer than the modulus.
func modExpMont(out, base, exp []byte, expTail uint64, mod []byte) bool {
	e := trimBytes(exp)
	if expTail == 0 && len(e) == 1 && bits.Len8(e[0]) <= montMinExpBits {
		return false
	}
	limit := montMaxWords
	if uint64(len(e))+expTail > 8 {
		limit = montLongExpMaxWords()
	}
	if (len(trimBytes(mod))+7)/8 > limit {
		return false
	}
	return montModExp(out, base, exp, expTail, mod)
}

// montModExp is modExpMont without the exponent-length preference.
func montModExp(out, base, exp []byte, expTail uint64, mod []byte) bool {
	mod = trimBytes(mod)
	base = trimBytes(base)
	exp = trimBytes(exp)
	if len(mod) == 0 || mod[len(mod)-1]&1 == 0 || len(exp) == 0 {
		return false
	}
	n := (len(mod) + 7) / 8
	if n > montMaxWords || len(base) > 8*n {
		return false
	}
	expBits := 8*(len(exp)-1) + bits.Len8(exp[0])
	w := montWindow(expBits)
	tbl := 1 << (w - 1)

	// Scratch layout: m | t (2n+2) | p (2n+2) | acc | one | table.
	need := n + 2*(2*n+2) + 2*n + tbl*n
	sc := montPool.Get().(*montScratch)
	defer montPool.Put(sc)
	if cap(sc.words) < need {
		sc.words = make([]uint64, need)
	}
	buf := sc.words[:need]
	take := func(k int) []uint64 {
		s := buf[:k:k]
		buf = buf[k:]
		clear(s)
		return s
	}
	c := montCtx{m: take(n)}
	c.t = take(2*n + 2)
	p := take(2*n + 2)
	acc := take(n)
	one := take(n)
	table := take(tbl * n)
	wordsFromBytes(c.m, mod)
	if n == 1 && c.m[0] == 1 {
		return true // everything is 0 mod 1
	}
	c.minv = negInvWord(c.m[0])

	// table[0] = base·R mod m, by one division: cheaper than building
	// R² mod m for the conversion when the exponent is short.
	sc.m.SetBytes(mod)
	sc.x.SetBytes(base)
	sc.x.Lsh(&sc.x, uint(64*n))
	sc.q.QuoRem(&sc.x, &sc.m, &sc.r)
	x := table[:n]
	wordsFromBig(x, sc.r.Bits())
	// table[i] = Montgomery form of base^(2i+1).
	if tbl > 1 {
		sq := acc // acc is free until the first window copies into it
		c.sqr(sq, x, p)
		for i := 1; i < tbl; i++ {
			c.mul(table[i*n:(i+1)*n], table[(i-1)*n:i*n], sq)
		}
	}

	bit := func(i int) uint {
		return uint(exp[len(exp)-1-i/8]>>(i%8)) & 1
	}
	started := false
	for i := expBits - 1; i >= 0; {
		if bit(i) == 0 {
			c.sqr(acc, acc, p)
			i--
			continue
		}
		// The longest window of at most w bits that ends in a one bit.
		l := max(i-w+1, 0)
		for bit(l) == 0 {
			l++
		}
		var v uint
		for j := i; j >= l; j-- {
			v = v<<1 | bit(j)
		}
		k := int(v >> 1)
		e := table[k*n : (k+1)*n]
		if !started {
			copy(acc, e)
			started = true
		} else {
			for range i - l + 1 {
				c.sqr(acc, acc, p)
			}
			c.mul(acc, acc, e)
		}
		i = l - 1
	}

	// Trailing zero bytes of the exponent: square 8 per byte, stopping
	// early once the value is a fixed point of squaring (0 or 1).
	if expTail > 0 {
		// R mod m, the Montgomery form of 1: 2^(bitlen-1) < m doubled
		// up to 2^(64n).
		mbits := 64*(n-1) + bits.Len64(c.m[n-1])
		one[(mbits-1)/64] = 1 << ((mbits - 1) % 64)
		for range 64*n - mbits + 1 {
			c.double(one)
		}
		for i := uint64(0); i < 8*expTail; i++ {
			if isZeroWords(acc) || equalWords(acc, one) {
				break
			}
			c.sqr(acc, acc, p)
		}
	}

	// Out of Montgomery form: multiply by 1.
	unit := one
	clear(unit)
	unit[0] = 1
	c.mul(acc, acc, unit)
	for i, wv := range acc {
		for k := 0; k < 8; k++ {
			pos := len(out) - 1 - (8*i + k)
			if pos < 0 {
				break
			}
			out[pos] = byte(wv >> (8 * k))
		}
	}
	return true
}
