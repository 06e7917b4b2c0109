package crypto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// referenceRecover is the library's generic recovery, the oracle for the
// fast path.
func referenceRecover(digest [32]byte, sig []byte) ([]byte, error) {
	if len(sig) != 65 || sig[64] > 1 {
		return nil, ErrInvalidSignature
	}
	var compact [65]byte
	compact[0] = sig[64] + 27
	copy(compact[1:], sig[:64])
	pub, _, err := ecdsa.RecoverCompact(compact[:], digest[:])
	if err != nil {
		return nil, err
	}
	return pub.SerializeUncompressed(), nil
}

func TestRecoverMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 2000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		var kb, digest [32]byte
		fillRand(rng, kb[:])
		fillRand(rng, digest[:])
		key, err := ToPrivateKey(kb[:])
		if err != nil {
			continue
		}
		sig := Sign(digest, key)
		want := key.PubKey().SerializeUncompressed()
		got, err := RecoverPubkey(digest, sig[:])
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("case %d: recovered %x, %v; want %x", i, got, err, want)
		}
		// A random (mostly invalid or foreign) signature must agree with the
		// reference too, on both success and failure.
		var junk [65]byte
		fillRand(rng, junk[:64])
		junk[64] = byte(i & 1)
		compareRecover(t, digest, junk[:])
		// High-s form of the same signature recovers the same key.
		hs := sig
		var sv secp256k1.ModNScalar
		sv.SetByteSlice(hs[32:64])
		sv.Negate()
		b := sv.Bytes()
		copy(hs[32:64], b[:])
		hs[64] ^= 1
		got, err = RecoverPubkey(digest, hs[:])
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("case %d high-s: recovered %x, %v; want %x", i, got, err, want)
		}
	}
}

func compareRecover(t *testing.T, digest [32]byte, sig []byte) {
	t.Helper()
	want, werr := referenceRecover(digest, sig)
	got, gerr := RecoverPubkey(digest, sig)
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("digest %x sig %x: got %x, %v; reference %x, %v", digest, sig, got, gerr, want, werr)
	}
}

func TestRecoverEdgeScalars(t *testing.T) {
	// Scalars at the edges of the split (0, 1, N-1, ±λ, half order) must
	// still give the right point: compare a·G + b·P with the library.
	var one secp256k1.ModNScalar
	one.SetInt(1)
	var p secp256k1.JacobianPoint
	var seven secp256k1.ModNScalar
	seven.SetInt(7)
	secp256k1.ScalarBaseMultNonConst(&seven, &p)
	var pa aff
	pa.x.setBytes(p.X.Bytes())
	pa.y.setBytes(p.Y.Bytes())
	edges := []*secp256k1.ModNScalar{
		new(secp256k1.ModNScalar), &one, new(secp256k1.ModNScalar).NegateVal(&one),
		endoLambda, new(secp256k1.ModNScalar).NegateVal(endoLambda),
		scalarFromHex("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0"),
		scalarFromHex("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1"),
		scalarFromHex("ffffffffffffffffffffffffffffffff"),
		scalarFromHex("0100000000000000000000000000000000"),
		&seven, new(secp256k1.ModNScalar).NegateVal(&seven),
		scalarFromHex("0e"), scalarFromHex("02"), scalarFromHex("03"),
	}
	for i, a := range edges {
		for j, b := range edges {
			var got jac
			var ag, bp, want secp256k1.JacobianPoint
			doubleMul(a, b, &pa, &got)
			secp256k1.ScalarBaseMultNonConst(a, &ag)
			secp256k1.ScalarMultNonConst(b, &p, &bp)
			secp256k1.AddNonConst(&ag, &bp, &want)
			wantInf := (want.X.IsZero() && want.Y.IsZero()) || want.Z.IsZero()
			if got.inf != wantInf {
				t.Fatalf("edge %d,%d: infinity mismatch", i, j)
			}
			if !got.inf {
				want.ToAffine()
				gx, gy := got.toAffine()
				var wx, wy fe
				wx.setBytes(want.X.Bytes())
				wy.setBytes(want.Y.Bytes())
				if gx != wx || gy != wy {
					t.Fatalf("edge %d,%d: point mismatch", i, j)
				}
			}
		}
	}
}

func halfToScalar(h splitHalf) secp256k1.ModNScalar {
	var b [32]byte
	l := [4]uint64{h.mag[0], h.mag[1], h.mag[2], h.mag[3]}
	b = *bytesFromLimbs(&l)
	var s secp256k1.ModNScalar
	s.SetBytes(&b)
	if h.neg {
		s.Negate()
	}
	return s
}

func TestSplitScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		var b [32]byte
		fillRand(rng, b[:])
		switch i {
		case 0:
			clear(b[:])
		case 1:
			b = curveOrder
			b[31]--
		}
		var k secp256k1.ModNScalar
		k.SetBytes(&b)
		h1, h2 := splitScalar(&k)
		for _, h := range []splitHalf{h1, h2} {
			if h.mag[4] != 0 || h.mag[3] != 0 || h.mag[2] > 3 {
				t.Fatalf("split of %x: half %x is not short", b, h.mag)
			}
		}
		k1, k2 := halfToScalar(h1), halfToScalar(h2)
		var r secp256k1.ModNScalar
		r.Mul2(&k2, endoLambda).Add(&k1)
		if !r.Equals(&k) {
			t.Fatalf("split of %x does not recombine", b)
		}
	}
}

func TestRecoverRejects(t *testing.T) {
	key, _ := ToPrivateKey(bytes.Repeat([]byte{1}, 32))
	d := Keccak256([]byte("x"))
	good := Sign(d, key)
	n := curveOrder
	cases := map[string]func(s *[65]byte){
		"v=2":  func(s *[65]byte) { s[64] = 2 },
		"v=27": func(s *[65]byte) { s[64] = 27 },
		"r=0":  func(s *[65]byte) { clear(s[:32]) },
		"s=0":  func(s *[65]byte) { clear(s[32:64]) },
		"r=N":  func(s *[65]byte) { copy(s[:32], n[:]) },
		"s=N":  func(s *[65]byte) { copy(s[32:64], n[:]) },
		"r=2^256-1": func(s *[65]byte) {
			for i := range 32 {
				s[i] = 0xff
			}
		},
	}
	for name, mut := range cases {
		s := good
		mut(&s)
		if _, err := RecoverPubkey(d, s[:]); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, err := RecoverAddress(d, s[:]); err == nil {
			t.Errorf("%s: RecoverAddress accepted", name)
		}
	}
	if _, err := RecoverPubkey(d, good[:64]); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("short signature: %v", err)
	}
}

func fillRand(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], rng.Uint64())
		copy(b[i:], w[:])
	}
}

func FuzzRecover(f *testing.F) {
	key, _ := ToPrivateKey(bytes.Repeat([]byte{7}, 32))
	d := Keccak256([]byte("seed"))
	sig := Sign(d, key)
	f.Add(d[:], sig[:])
	f.Add(make([]byte, 32), make([]byte, 65))
	f.Add(d[:], bytes.Repeat([]byte{0xff}, 65))
	f.Fuzz(func(t *testing.T, digest, sig []byte) {
		if len(digest) != 32 {
			return
		}
		compareRecover(t, [32]byte(digest), sig)
	})
}

func BenchmarkRecover(b *testing.B) {
	key, _ := ToPrivateKey(bytes.Repeat([]byte{9}, 32))
	var sigs [16][65]byte
	var digests [16][32]byte
	for i := range sigs {
		digests[i] = Keccak256([]byte{byte(i)})
		sigs[i] = Sign(digests[i], key)
	}
	b.Run("ours/address", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := RecoverAddress(digests[i%16], sigs[i%16][:]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ours/pubkey", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := RecoverPubkey(digests[i%16], sigs[i%16][:]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decred/pubkey", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := referenceRecover(digests[i%16], sigs[i%16][:]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestWNAF(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 3000; i++ {
		var b [32]byte
		fillRand(rng, b[:])
		if i%3 == 0 {
			clear(b[:16]) // short values like split halves
		}
		b[0] &= 0x7f
		l := limbsFromBytes(&b)
		x := [5]uint64{l[0], l[1], l[2], l[3], 0}
		want := new(big.Int).SetBytes(b[:])
		for _, w := range []uint{wnafVar, wnafBase} {
			var out [maxWNAF]int16
			n := wnaf(&out, &x, w)
			acc := new(big.Int)
			for j := n - 1; j >= 0; j-- {
				acc.Lsh(acc, 1)
				v := out[j]
				if v != 0 && (v%2 == 0 || v >= 1<<(w-1) || v <= -(1<<(w-1))) {
					t.Fatalf("bad digit %d (w=%d)", v, w)
				}
				acc.Add(acc, big.NewInt(int64(v)))
			}
			if acc.Cmp(want) != 0 {
				t.Fatalf("wnaf(%x, %d) does not recombine", b, w)
			}
			if n > 0 && out[n-1] == 0 {
				t.Fatalf("length includes a zero top digit")
			}
			// Nonzero digits are at least w apart.
			last := -100
			for j := 0; j < n; j++ {
				if out[j] != 0 {
					if j-last < int(w) {
						t.Fatalf("digits %d and %d too close (w=%d)", last, j, w)
					}
					last = j
				}
			}
		}
	}
}
