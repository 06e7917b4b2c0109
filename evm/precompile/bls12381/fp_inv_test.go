package bls12381

import (
	"math/big"
	"math/rand"
	"testing"
)

func TestInverseGCD(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	var cases []*big.Int
	for i := 0; i < 3000; i++ {
		cases = append(cases, new(big.Int).Rand(r, bigP))
	}
	for _, v := range []int64{1, 2, 3, 4, 5, 11, 1 << 40} {
		cases = append(cases, big.NewInt(v))
	}
	for i := 0; i < 381; i += 7 {
		cases = append(cases, new(big.Int).Lsh(big.NewInt(1), uint(i)))
	}
	cases = append(cases, new(big.Int).Sub(bigP, big.NewInt(1)), new(big.Int).Sub(bigP, big.NewInt(2)))
	before := invFallbacks.Load()
	for _, c := range cases {
		if c.Sign() == 0 {
			continue
		}
		x := feFromBig(c)
		var z fe
		inverse(&z, &x)
		if want := new(big.Int).ModInverse(c, bigP); feBig(&z).Cmp(want) != 0 {
			t.Fatalf("inverse of %x wrong", c)
		}
		// Also the raw limbs equal to small values (x̂R small as an integer).
		raw := fe{c.Uint64() | 1}
		if raw.lessThanP() {
			inverse(&z, &raw)
			var chk fe
			mul(&chk, &z, &raw)
			if !chk.isOne() {
				t.Fatal("raw inverse wrong")
			}
		}
	}
	if n := invFallbacks.Load(); n != before {
		t.Fatalf("binary GCD fell back to Fermat %d times", n-before)
	}
	var z, zero fe
	inverse(&z, &zero)
	if !z.isZero() {
		t.Fatal("inv0(0) != 0")
	}
}
