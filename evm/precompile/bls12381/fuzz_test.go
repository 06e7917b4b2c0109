package bls12381

import (
	"encoding/hex"
	"testing"
)

// Fuzz targets: every precompile must turn hostile bytes into an error or a
// well-formed output, never a panic. Seeds are EIP vectors plus edge shapes.

func fuzzOp(f *testing.F, stem string, run func([]byte) ([]byte, error), outLen int) {
	for _, file := range []string{stem + ".json", stem + "_fail.json"} {
		for i, k := range loadKATs(f, file) {
			if i >= 8 {
				break
			}
			in, _ := hex.DecodeString(k.Input)
			f.Add(in)
		}
	}
	f.Add([]byte{})
	f.Add(make([]byte, 1))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := run(in)
		if err == nil && len(out) != outLen {
			t.Fatalf("output length %d, want %d", len(out), outLen)
		}
	})
}

func FuzzG1Add(f *testing.F)     { fuzzOp(f, "g1add", G1Add, g1Len) }
func FuzzG2Add(f *testing.F)     { fuzzOp(f, "g2add", G2Add, g2Len) }
func FuzzG1MSM(f *testing.F)     { fuzzOp(f, "g1mul", G1MSM, g1Len) }
func FuzzG2MSM(f *testing.F)     { fuzzOp(f, "g2mul", G2MSM, g2Len) }
func FuzzPairing(f *testing.F)   { fuzzOp(f, "pairing", Pairing, 32) }
func FuzzMapFpToG1(f *testing.F) { fuzzOp(f, "map_fp_to_g1", MapFpToG1, g1Len) }
func FuzzMapFp2ToG2(f *testing.F) {
	fuzzOp(f, "map_fp2_to_g2", MapFp2ToG2, g2Len)
}

func FuzzDecompressG1(f *testing.F) {
	g := G1Generator()
	c := CompressG1(&g)
	f.Add(c[:])
	f.Add(make([]byte, 48))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := DecompressG1(in)
		if err == nil {
			if !p.isOnCurve() || !p.InSubgroup() {
				t.Fatal("accepted a point outside G1")
			}
			if c := CompressG1(&p); string(c[:]) != string(in) {
				t.Fatal("round trip changed the encoding")
			}
		}
	})
}

func FuzzDecompressG2(f *testing.F) {
	g := G2Generator()
	c := CompressG2(&g)
	f.Add(c[:])
	f.Add(make([]byte, 96))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := DecompressG2(in)
		if err == nil {
			if !p.isOnCurve() || !p.InSubgroup() {
				t.Fatal("accepted a point outside G2")
			}
			if c := CompressG2(&p); string(c[:]) != string(in) {
				t.Fatal("round trip changed the encoding")
			}
		}
	})
}
