package bls12381

import (
	"math/big"
	"math/rand"
	"testing"
)

// checkInverse compares inverse(x) for the field element c (given as an
// integer below p) with math/big, and also the raw-limb case where c is
// the Montgomery representative itself.
func checkInverse(t *testing.T, c *big.Int) {
	t.Helper()
	x := feFromBig(c)
	var z fe
	inverse(&z, &x)
	want := new(big.Int)
	if c.Sign() != 0 {
		want.ModInverse(c, bigP)
	}
	if got := feBig(&z); got.Cmp(want) != 0 {
		t.Fatalf("inverse(%#x) = %#x, want %#x", c, got, want)
	}
	// The divsteps see the representative c·R mod p; also feed c itself
	// as the representative so small and structured integers reach them.
	var raw fe
	copy(raw[:], bigToWords(c))
	inverse(&z, &raw)
	var chk fe
	mul(&chk, &z, &raw)
	if c.Sign() == 0 {
		if !z.isZero() {
			t.Fatal("inverse of raw 0 is not 0")
		}
	} else if !chk.isOne() {
		t.Fatalf("raw inverse of limbs %#x wrong", c)
	}
}

func inverseEdgeCases() []*big.Int {
	one := big.NewInt(1)
	pm1 := new(big.Int).Sub(bigP, one)
	cases := []*big.Int{
		big.NewInt(0), one, big.NewInt(2), big.NewInt(3), big.NewInt(5), big.NewInt(11),
		pm1, new(big.Int).Sub(bigP, big.NewInt(2)), new(big.Int).Sub(bigP, big.NewInt(3)),
		new(big.Int).Rsh(bigP, 1), new(big.Int).Rsh(new(big.Int).Add(bigP, one), 1),
		feToBigRaw(&feOne), feToBigRaw(&feR2), new(big.Int).Sub(bigP, feToBigRaw(&feOne)),
	}
	for i := 0; i < 381; i++ {
		pow := new(big.Int).Lsh(one, uint(i))
		cases = append(cases, pow, new(big.Int).Sub(pow, one), new(big.Int).Sub(bigP, pow))
	}
	// Words of all ones and alternating bits, below p.
	for _, w := range []uint64{^uint64(0), 0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 1 << 63} {
		v := new(big.Int)
		for i := 0; i < 6; i++ {
			v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(w))
		}
		cases = append(cases, v.Mod(v, bigP), new(big.Int).Rsh(v, 7))
	}
	return cases
}

func TestInverseAgainstBig(t *testing.T) {
	before := invFallbacks.Load()
	for _, c := range inverseEdgeCases() {
		checkInverse(t, c)
	}
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 5000; i++ {
		c := new(big.Int).Rand(r, bigP)
		// Also short inputs, which take a different number of batches.
		if i%4 == 1 {
			c.Rsh(c, uint(r.Intn(381)))
		}
		checkInverse(t, c)
	}
	if n := invFallbacks.Load(); n != before {
		t.Fatalf("divsteps fell back to Fermat %d times", n-before)
	}
}

// FuzzInverse reads 48 big-endian bytes (reduced mod p) and checks the
// inverse against math/big.
func FuzzInverse(f *testing.F) {
	for _, c := range inverseEdgeCases()[:14] {
		var b [48]byte
		c.FillBytes(b[:])
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 48 {
			in = in[:48]
		}
		c := new(big.Int).SetBytes(in)
		c.Mod(c, bigP)
		before := invFallbacks.Load()
		checkInverse(t, c)
		if invFallbacks.Load() != before {
			t.Fatalf("divsteps fell back to Fermat for %#x", c)
		}
	})
}
