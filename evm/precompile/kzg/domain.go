package kzg

import (
	"encoding/binary"
	"sync"

	"github.com/chaind/chaind/evm/precompile/bls12381/fr"
)

// The evaluation domains of blobs and of their extension, shared by blob
// proofs and cell proofs: the 8192nd roots of unity, of which the 4096th
// are the even powers.

var (
	domainOnce sync.Once
	// extRoots[i] is ω^i for the primitive 8192nd root of unity
	// ω = 7^((r-1)/8192) (7 generates the multiplicative group): the
	// extended domain in natural order, and every twiddle factor, coset
	// shift and blob domain point, looked up by exponent.
	extRoots [FieldElementsPerExtBlob]fr.Element
	// invPow2[k] is 2^-k, the scaling of an inverse transform of size 2^k.
	invPow2 [14]fr.Element
)

// initDomain computes the tables, once, on first use.
func initDomain() {
	domainOnce.Do(func() {
		// (r-1)/8192: r-1 is divisible by 2^32.
		exp := rMinus1Words()
		for i := 0; i < 13; i++ {
			exp = shiftRight1(exp)
		}
		var w fr.Element
		w.SetUint64(7)
		w.Exp(&w, exp)
		extRoots[0].SetOne()
		for i := 1; i < len(extRoots); i++ {
			extRoots[i].Mul(&extRoots[i-1], &w)
		}
		var half fr.Element
		half.SetUint64(2)
		half.Inverse(&half)
		invPow2[0].SetOne()
		for k := 1; k < len(invPow2); k++ {
			invPow2[k].Mul(&invPow2[k-1], &half)
		}
	})
}

// rMinus1Words is r-1, little-endian words.
func rMinus1Words() [4]uint64 {
	var w [4]uint64
	for i := 0; i < 4; i++ {
		w[i] = binary.BigEndian.Uint64(fr.Modulus[24-8*i:])
	}
	w[0]-- // r is odd: no borrow
	return w
}

func shiftRight1(w [4]uint64) [4]uint64 {
	return [4]uint64{w[0]>>1 | w[1]<<63, w[1]>>1 | w[2]<<63, w[2]>>1 | w[3]<<63, w[3] >> 1}
}

// rootPow returns ω^e for any integer exponent e (ω^8192 = 1).
func rootPow(e int) *fr.Element {
	return &extRoots[e&(FieldElementsPerExtBlob-1)]
}

// fft replaces a (len a power of two dividing 8192) by the values of the
// polynomial with coefficients a at the len(a)-th roots of unity, both in
// natural order; inverse interpolates instead (values to coefficients).
// The twiddles are powers of ω read from extRoots, never recomputed.
func fft(a []fr.Element, inverse bool) {
	n := len(a)
	logN := 0
	for 1<<logN < n {
		logN++
	}
	for i := range a {
		if j := int(reverseBits(uint32(i), logN)); i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	stride := FieldElementsPerExtBlob / n // ω^stride is a primitive n-th root
	var t fr.Element
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		step := stride * (n / size)
		if inverse {
			step = -step
		}
		for start := 0; start < n; start += size {
			lo, hi := a[start:start+half], a[start+half:start+size]
			// j = 0: the twiddle is 1.
			t = hi[0]
			hi[0].Sub(&lo[0], &t)
			lo[0].Add(&lo[0], &t)
			for j := 1; j < half; j++ {
				t.Mul(&hi[j], rootPow(j*step))
				hi[j].Sub(&lo[j], &t)
				lo[j].Add(&lo[j], &t)
			}
		}
	}
	if inverse {
		for i := range a {
			a[i].Mul(&a[i], &invPow2[logN])
		}
	}
}

// blobRoot returns the i-th point of the blob domain in bit-reversed
// order (the blob's i-th value is the polynomial there): ω^(2·rev12(i)).
func blobRoot(i int) *fr.Element {
	return &extRoots[2*reverseBits(uint32(i), 12)]
}

func reverseBits(x uint32, bits int) uint32 {
	var r uint32
	for i := 0; i < bits; i++ {
		r = r<<1 | x&1
		x >>= 1
	}
	return r
}
