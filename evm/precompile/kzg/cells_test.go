package kzg

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381"
)

// modulus is r as a big.Int, for the direct evaluations the tests compare
// against.
var modulus = new(big.Int).SetBytes(blsModulus[:])

// cellVector is one case of the consensus specs' verify_cell_kzg_proof_batch
// tests (kzg-mainnet, as c-kzg-4844 and go-eth-kzg ship them; the 23 cases
// under 30 KB, converted from YAML to JSON in testdata): output true,
// false, or null for inputs the function must refuse. The larger valid
// cases (a whole blob's 128 cells) are covered by internal/peerbench's
// TestCellProofsAgainstGoEthKZG instead.
type cellVector struct {
	Name  string
	Input struct {
		Commitments []string `json:"commitments"`
		CellIndices []uint64 `json:"cell_indices"`
		Cells       []string `json:"cells"`
		Proofs      []string `json:"proofs"`
	}
	Output *bool
}

func unhexAll(t testing.TB, in []string) ([][]byte, bool) {
	var out [][]byte
	for _, s := range in {
		b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}

func TestCellProofVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "verify_cell_kzg_proof_batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []cellVector
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	var valid, invalid, refused int
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			cs, ok1 := unhexAll(t, v.Input.Commitments)
			cells, ok2 := unhexAll(t, v.Input.Cells)
			ps, ok3 := unhexAll(t, v.Input.Proofs)
			err := errors.New("undecodable hex")
			if ok1 && ok2 && ok3 {
				err = VerifyCellProofBatch(cs, v.Input.CellIndices, cells, ps)
			}
			switch {
			case v.Output == nil:
				refused++
				if err == nil || errors.Is(err, ErrVerificationFailed) {
					t.Fatalf("want the input refused, got %v", err)
				}
			case *v.Output:
				valid++
				if err != nil {
					t.Fatalf("valid batch rejected: %v", err)
				}
			default:
				invalid++
				if !errors.Is(err, ErrVerificationFailed) {
					t.Fatalf("want verification to fail, got %v", err)
				}
			}
		})
	}
	if valid == 0 || invalid == 0 || refused == 0 {
		t.Fatalf("vectors: %d valid, %d invalid, %d refused; want each kind", valid, invalid, refused)
	}
}

// The setup points are successive powers of one τ, the τ of [τ]G2:
// e([τ^(i+1)]G1, G2) = e([τ^i]G1, [τ]G2) for i < 64, and [τ^64]G2 matches
// [τ^64]G1.
func TestCellSetupConsistent(t *testing.T) {
	if err := cellSetup(); err != nil {
		t.Fatal(err)
	}
	g1 := make([]bls12381.G1, len(g1MonomialHex))
	for i, s := range g1MonomialHex {
		b, _ := hex.DecodeString(s)
		p, err := bls12381.DecompressG1(b)
		if err != nil {
			t.Fatalf("point %d: %v", i, err)
		}
		g1[i] = p
	}
	if gen := bls12381.G1Generator(); !g1[0].Equal(&gen) {
		t.Fatal("[τ^0]G1 is not the generator")
	}
	tau := bls12381.PrepareG2(tauG2(t))
	for i := 0; i+1 < len(g1); i++ {
		var neg bls12381.G1
		neg.Neg(&g1[i+1])
		if !bls12381.PairingCheck([]bls12381.G1{g1[i], neg}, []*bls12381.G2Prepared{tau, g2Lines}) {
			t.Fatalf("[τ^%d]G1 is not τ·[τ^%d]G1", i+1, i)
		}
	}
	var neg bls12381.G1
	neg.Neg(&g1[64])
	gen := bls12381.G1Generator()
	if !bls12381.PairingCheck([]bls12381.G1{gen, neg}, []*bls12381.G2Prepared{tau64Lines, g2Lines}) {
		t.Fatal("[τ^64]G2 does not match [τ^64]G1")
	}
}

func tauG2(t *testing.T) *bls12381.G2 {
	b, _ := hex.DecodeString(tauG2Hex)
	p, err := bls12381.DecompressG2(b)
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

// ComputeCells follows compute_cells: cell i position j is the blob's
// polynomial at the (64i+j)-th point of the bit-reversed 8192-point
// domain. The extension is systematic (the first 64 cells are the blob
// itself), and every other cell agrees with a direct evaluation of the
// polynomial in coefficient form (Horner) on its coset.
func TestComputeCells(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	// A polynomial of degree < 4096 with random coefficients at random
	// powers (the lowest and the highest among them, so the whole width of
	// the transform matters), and its values on the blob's domain
	// (bit-reversed order) as the blob. Sparse, so evaluating it directly
	// stays cheap.
	terms := map[int64]*big.Int{0: new(big.Int).Rand(rng, modulus), FieldElementsPerBlob - 1: new(big.Int).Rand(rng, modulus)}
	for len(terms) < 12 {
		terms[rng.Int63n(FieldElementsPerBlob)] = new(big.Int).Rand(rng, modulus)
	}
	horner := func(z *big.Int) *big.Int { // Σ c_k z^k
		y := new(big.Int)
		for k, c := range terms {
			t := new(big.Int).Exp(z, big.NewInt(k), modulus)
			y.Add(y, t.Mul(t, c))
		}
		return y.Mod(y, modulus)
	}
	if err := cellSetup(); err != nil {
		t.Fatal(err)
	}
	point := func(pos int) *big.Int {
		b := extRoots[reverseBits(uint32(pos), 13)].Bytes()
		return new(big.Int).SetBytes(b[:])
	}
	blob := make([]byte, BlobLength)
	for i := 0; i < FieldElementsPerBlob; i++ {
		horner(point(i)).FillBytes(blob[32*i : 32*i+32])
	}
	cells, err := ComputeCells(blob)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != CellsPerExtBlob {
		t.Fatalf("%d cells", len(cells))
	}
	for i := 0; i < CellsPerExtBlob/2; i++ {
		if string(cells[i]) != string(blob[i*CellLength:(i+1)*CellLength]) {
			t.Fatalf("cell %d is not the blob's own values", i)
		}
	}
	for _, i := range []int{64, 65, 100, 127} {
		for _, j := range []int{0, 1, 31, 63} {
			want := horner(point(FieldElementsPerCell*i + j))
			got := new(big.Int).SetBytes(cells[i][32*j : 32*j+32])
			if got.Cmp(want) != 0 {
				t.Fatalf("cell %d value %d: %x, want %x", i, j, got, want)
			}
		}
	}
	// The shift of each cell's coset is its first point.
	for _, i := range []uint64{0, 1, 77, 127} {
		if b := rootPow(cellShiftExp(i)).Bytes(); new(big.Int).SetBytes(b[:]).Cmp(point(int(FieldElementsPerCell*i))) != 0 {
			t.Fatalf("shift of cell %d", i)
		}
	}
}

// FuzzVerifyCellProofBatch feeds one cell of arbitrary bytes: verification
// must never panic, and must accept only inputs that decode.
func FuzzVerifyCellProofBatch(f *testing.F) {
	inf := make([]byte, 48)
	inf[0] = 0xc0
	f.Add(inf, uint64(0), make([]byte, CellLength), inf)
	f.Add(inf, uint64(128), make([]byte, CellLength), inf)
	f.Add([]byte{1, 2}, uint64(3), []byte{4}, inf)
	f.Fuzz(func(t *testing.T, commitment []byte, index uint64, cell, proof []byte) {
		err := VerifyCellProofBatch([][]byte{commitment}, []uint64{index}, [][]byte{cell}, [][]byte{proof})
		if err == nil && (len(cell) != CellLength || index >= CellsPerExtBlob || len(commitment) != 48 || len(proof) != 48) {
			t.Fatalf("accepted a malformed input (cell %d bytes, index %d)", len(cell), index)
		}
	})
}

// cellBenchBlob returns blob n of testdata/cell_proofs.hex: element i is
// sha256("chaind cell bench" || n || i) (n and i as 8 bytes each) with its
// top byte cleared. internal/peerbench builds the same blobs, writes that
// file from go-eth-kzg's proofs and checks it stays in step.
func cellBenchBlob(n int) []byte {
	blob := make([]byte, BlobLength)
	var buf [len("chaind cell bench") + 16]byte
	copy(buf[:], "chaind cell bench")
	for i := 0; i < FieldElementsPerBlob; i++ {
		binary.BigEndian.PutUint64(buf[len(buf)-16:], uint64(n))
		binary.BigEndian.PutUint64(buf[len(buf)-8:], uint64(i))
		h := sha256.Sum256(buf[:])
		h[0] = 0
		copy(blob[32*i:], h[:])
	}
	return blob
}

// benchSet is the first blobs of testdata/cell_proofs.hex with their
// commitments, cell proofs (128 per blob, in order) and blob proofs.
type benchSet struct {
	blobs, commitments, cellProofs, blobProofs [][]byte
}

func cellBenchSet(tb testing.TB, n int) benchSet {
	raw, err := os.ReadFile(filepath.Join("testdata", "cell_proofs.hex"))
	if err != nil {
		tb.Fatal(err)
	}
	const group = CellsPerExtBlob + 2 // commitment, cell proofs, blob proof
	lines := strings.Fields(string(raw))
	if len(lines) < n*group {
		tb.Fatalf("cell_proofs.hex holds %d lines, want %d", len(lines), n*group)
	}
	var s benchSet
	for b := 0; b < n; b++ {
		g, ok := unhexAll(tb, lines[b*group:(b+1)*group])
		if !ok {
			tb.Fatal("cell_proofs.hex: bad hex")
		}
		s.blobs = append(s.blobs, cellBenchBlob(b))
		s.commitments = append(s.commitments, g[0])
		s.cellProofs = append(s.cellProofs, g[1:group-1]...)
		s.blobProofs = append(s.blobProofs, g[group-1])
	}
	return s
}

// TestVerifyCellProofsBenchSet: the benchmark's six blobs verify as one
// transaction, and a flipped bit anywhere fails it.
func TestVerifyCellProofsBenchSet(t *testing.T) {
	s := cellBenchSet(t, 6)
	blobs, coms, proofs := s.blobs, s.commitments, s.cellProofs
	if err := VerifyCellProofs(blobs, coms, proofs); err != nil {
		t.Fatal(err)
	}
	for _, at := range []*byte{&proofs[300][17], &blobs[2][70000], &coms[4][40], &proofs[767][47]} {
		*at ^= 1
		if err := VerifyCellProofs(blobs, coms, proofs); err == nil {
			t.Error("accepted with a flipped bit")
		}
		*at ^= 1
	}
}

// BenchmarkVerifyCellProofs verifies all cell proofs of one and of six
// blobs (one blob transaction's worth), cells computed from the blobs.
func BenchmarkVerifyCellProofs(b *testing.B) {
	for _, n := range []int{1, 6} {
		s := cellBenchSet(b, n)
		b.Run(fmt.Sprintf("blobs=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := VerifyCellProofs(s.blobs, s.commitments, s.cellProofs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkComputeCells(b *testing.B) {
	blob := cellBenchBlob(0)
	for i := 0; i < b.N; i++ {
		if _, err := ComputeCells(blob); err != nil {
			b.Fatal(err)
		}
	}
}
