package kzg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand"
	"os"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381"
)

// tauG1Hex is [τ]G1 from the same ceremony (g1_monomial[1]), compressed.
const tauG1Hex = "ad3eb50121139aa34db1d545093ac9374ab7bca2c0f3bf28e27c8dcd8fc7cb42d25926fc0c97b336e9f0fb35e5a04c81"

var bigR, _ = new(big.Int).SetString("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16)

func tauG1(t testing.TB) bls12381.G1 {
	b, _ := hex.DecodeString(tauG1Hex)
	p, err := bls12381.DecompressG1(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSetupConsistent checks e([τ]G1, G2) = e(G1, [τ]G2): the G2 constant
// belongs to the same τ as the published G1 powers.
func TestSetupConsistent(t *testing.T) {
	tg1 := tauG1(t)
	// e([τ]G1, G2)·e(G1, -[τ]G2) = 1 …
	if !bls12381.PairingCheck([]bls12381.G1{tg1, g1Gen}, []*bls12381.G2Prepared{g2Lines, negTauLines}) {
		t.Fatal("setup G1 and G2 powers of tau disagree")
	}
	// … and the same with -[τ]G1 is e(G1, G2)^(-2τ) ≠ 1.
	tg1.Neg(&tg1)
	if bls12381.PairingCheck([]bls12381.G1{tg1, g1Gen}, []*bls12381.G2Prepared{g2Lines, negTauLines}) {
		t.Fatal("pairing check accepts a false relation")
	}
}

type vector struct {
	Name     string `json:"name"`
	Input    string `json:"input"`
	Expected string `json:"expected"`
}

func TestKnownAnswers(t *testing.T) {
	data, err := os.ReadFile("testdata/point_evaluation.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		in, _ := hex.DecodeString(v.Input)
		out, err := PointEvaluation(in)
		if v.Expected == "" {
			if err == nil {
				t.Errorf("%s: accepted", v.Name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if hex.EncodeToString(out) != v.Expected {
			t.Errorf("%s: got %x", v.Name, out)
		}
	}
}

// linearProof builds a valid opening of f(X) = a + bX at z: the commitment
// is aG1 + b[τ]G1, the value a + bz, and the quotient the constant b, so
// the proof is bG1.
func linearProof(t testing.TB, a, b, z *big.Int) []byte {
	tg1 := tauG1(t)
	var sa, sb, sz, sy [32]byte
	a.FillBytes(sa[:])
	b.FillBytes(sb[:])
	z.FillBytes(sz[:])
	y := new(big.Int).Mul(b, z)
	y.Add(y, a).Mod(y, bigR)
	y.FillBytes(sy[:])
	var c, t1 bls12381.G1
	c.ScalarMult(&g1Gen, &sa)
	t1.ScalarMult(&tg1, &sb)
	c.Add(&c, &t1)
	var pi bls12381.G1
	pi.ScalarMult(&g1Gen, &sb)
	cc := bls12381.CompressG1(&c)
	pc := bls12381.CompressG1(&pi)
	vh := VersionedHash(cc[:])
	in := make([]byte, 0, InputLength)
	in = append(in, vh[:]...)
	in = append(in, sz[:]...)
	in = append(in, sy[:]...)
	in = append(in, cc[:]...)
	in = append(in, pc[:]...)
	return in
}

func TestGeneratedProofs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	want, _ := hex.DecodeString("000000000000000000000000000000000000000000000000000000000000100073eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")
	for i := 0; i < 6; i++ {
		a := new(big.Int).Rand(r, bigR)
		b := new(big.Int).Rand(r, bigR)
		z := new(big.Int).Rand(r, bigR)
		if i == 0 {
			b.SetInt64(0) // constant polynomial: proof is the point at infinity
		}
		in := linearProof(t, a, b, z)
		out, err := PointEvaluation(in)
		if err != nil || !bytes.Equal(out, want) {
			t.Fatalf("case %d: valid proof rejected: %v", i, err)
		}
		// Wrong y.
		bad := bytes.Clone(in)
		bad[95] ^= 1
		if _, err := PointEvaluation(bad); !errors.Is(err, ErrVerificationFailed) && !errors.Is(err, ErrScalarRange) {
			t.Fatalf("case %d: wrong y: %v", i, err)
		}
		// Wrong versioned hash version byte.
		bad = bytes.Clone(in)
		bad[0] = 0x02
		if _, err := PointEvaluation(bad); !errors.Is(err, ErrVersionedHash) {
			t.Fatalf("case %d: bad version: %v", i, err)
		}
		// Swapped commitment and proof (hash fixed up).
		bad = bytes.Clone(in)
		copy(bad[96:144], in[144:192])
		copy(bad[144:192], in[96:144])
		vh := VersionedHash(bad[96:144])
		copy(bad[:32], vh[:])
		if _, err := PointEvaluation(bad); err == nil && b.Sign() != 0 {
			t.Fatalf("case %d: swapped points accepted", i)
		}
	}
}

func TestRejects(t *testing.T) {
	a, b, z := big.NewInt(5), big.NewInt(7), big.NewInt(11)
	in := linearProof(t, a, b, z)
	if _, err := PointEvaluation(in[:191]); !errors.Is(err, ErrInvalidInputLength) {
		t.Fatal("short input", err)
	}
	if _, err := PointEvaluation(append(bytes.Clone(in), 0)); !errors.Is(err, ErrInvalidInputLength) {
		t.Fatal("long input", err)
	}
	// z = r is out of range even though z ≡ 0 would verify differently.
	bad := bytes.Clone(in)
	copy(bad[32:64], bigR.Bytes())
	if _, err := PointEvaluation(bad); !errors.Is(err, ErrScalarRange) {
		t.Fatal("z = r", err)
	}
	// y + r: same residue, must still be rejected.
	bad = bytes.Clone(in)
	y := new(big.Int).SetBytes(in[64:96])
	y.Add(y, bigR)
	if y.BitLen() <= 256 {
		y.FillBytes(bad[64:96])
		if _, err := PointEvaluation(bad); !errors.Is(err, ErrScalarRange) {
			t.Fatal("y + r", err)
		}
	}
	// Commitment without the compression flag.
	bad = bytes.Clone(in)
	bad[96] &^= 0x80
	vh := VersionedHash(bad[96:144])
	copy(bad[:32], vh[:])
	if _, err := PointEvaluation(bad); !errors.Is(err, ErrInvalidCommitment) {
		t.Fatal("uncompressed flag", err)
	}
	// Proof x not on the curve (try until the flip gives a non-point).
	for i := 0; i < 255; i++ {
		bad = bytes.Clone(in)
		bad[191] ^= byte(i + 1)
		if _, err := PointEvaluation(bad); err == nil {
			t.Fatal("corrupted proof accepted")
		}
	}
}

func FuzzPointEvaluation(f *testing.F) {
	f.Add(linearProof(f, big.NewInt(1), big.NewInt(2), big.NewInt(3)))
	f.Add(make([]byte, InputLength))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := PointEvaluation(in)
		if err == nil && len(out) != 64 {
			t.Fatal("bad output length")
		}
	})
}

func BenchmarkPointEvaluation(b *testing.B) {
	data, _ := os.ReadFile("testdata/point_evaluation.json")
	var vs []vector
	json.Unmarshal(data, &vs)
	in, _ := hex.DecodeString(vs[0].Input)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := PointEvaluation(in); err != nil {
			b.Fatal(err)
		}
	}
}
