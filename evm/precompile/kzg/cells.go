package kzg

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/chaind/chaind/evm/precompile/bls12381"
	"github.com/chaind/chaind/evm/precompile/bls12381/fr"
)

// Cell proofs (EIP-7594, the consensus specs' polynomial commitments
// sampling): a blob's polynomial is evaluated on the 8192nd roots of unity
// in bit-reversed order, twice the blob's own domain, and that extension is
// cut into 128 cells of 64 evaluations. Cell i holds the values on the
// coset h_i·G of the 64th roots of unity G, and its proof opens the blob's
// commitment there. verify_cell_kzg_proof_batch checks any number of cells
// of any commitments with one pairing equation, the cells combined by
// powers of a Fiat-Shamir challenge.

// Sizes of the cell layout.
const (
	FieldElementsPerCell    = 64
	FieldElementsPerExtBlob = 2 * FieldElementsPerBlob
	CellsPerExtBlob         = FieldElementsPerExtBlob / FieldElementsPerCell
	CellLength              = FieldElementsPerCell * 32
)

// Errors of cell proof verification.
var (
	ErrCellLength    = errors.New("kzg: cell is not 2048 bytes")
	ErrCellIndex     = errors.New("kzg: cell index not below 128")
	ErrCellElement   = errors.New("kzg: cell holds a value not below the BLS modulus")
	ErrCellBatchSize = errors.New("kzg: commitments, cell indices, cells and proofs differ in number")
)

// cellBatchDomain separates cell batch challenges from every other use of
// the hash.
var cellBatchDomain = []byte("RCKZGCBATCH__V1_")

var (
	cellOnce    sync.Once
	g1Monomial  []bls12381.G1
	tau64Lines  *bls12381.G2Prepared
	errCellInit error
)

// cellSetup computes the extended domain and decodes the setup points,
// once, on first use (the point evaluation precompile needs none of it).
func cellSetup() error {
	initDomain()
	cellOnce.Do(func() {
		points := make([][]byte, FieldElementsPerCell)
		for i := range points {
			b, err := hex.DecodeString(g1MonomialHex[i])
			if err != nil {
				errCellInit = fmt.Errorf("kzg: trusted setup point %d: %w", i, err)
				return
			}
			points[i] = b
		}
		var err error
		if g1Monomial, err = bls12381.DecompressG1s(points); err != nil {
			errCellInit = fmt.Errorf("kzg: trusted setup G1 points: %w", err)
			return
		}
		b, err := hex.DecodeString(tau64G2Hex)
		if err != nil {
			errCellInit = err
			return
		}
		t, err := bls12381.DecompressG2(b)
		if err != nil {
			errCellInit = fmt.Errorf("kzg: trusted setup [τ^64]G2: %w", err)
			return
		}
		tau64Lines = bls12381.PrepareG2(&t)
	})
	return errCellInit
}

// ComputeCells returns the 128 cells of blob's extension (compute_cells).
//
// The extended domain in bit-reversed order starts with the blob's own
// domain, so the first 64 cells are the blob itself; the other 64 hold the
// polynomial on the odd powers of ω, the coset ω·⟨ω²⟩. Those come from one
// inverse transform of size 4096 (polynomial_eval_to_coeff), the
// coefficients scaled by ω^i, and one forward transform, instead of the
// spec's evaluation at every point of coset_for_cell.
func ComputeCells(blob []byte) ([][]byte, error) {
	if err := cellSetup(); err != nil {
		return nil, err
	}
	if len(blob) != BlobLength {
		return nil, ErrBlobLength
	}
	// blob_to_polynomial: the values at the 4096th roots of unity,
	// bit-reversed; fft wants them in natural order.
	vals := make([]fr.Element, FieldElementsPerBlob)
	for i := range vals {
		if !vals[reverseBits(uint32(i), 12)].SetBytes((*[32]byte)(blob[32*i : 32*i+32])) {
			return nil, ErrBlobFieldElement
		}
	}
	fft(vals, true) // now the coefficients c_i
	for i := 1; i < len(vals); i++ {
		vals[i].Mul(&vals[i], &extRoots[i]) // c_i·ω^i: P(ω·X)
	}
	fft(vals, false) // vals[m] = P(ω^(2m+1))
	cells := make([][]byte, CellsPerExtBlob)
	for i := 0; i < CellsPerExtBlob/2; i++ {
		cells[i] = append([]byte(nil), blob[i*CellLength:(i+1)*CellLength]...)
	}
	for q := 0; q < FieldElementsPerBlob; q++ {
		// Position 4096+q of the bit-reversed extended domain is
		// ω^(2·rev12(q)+1).
		i := CellsPerExtBlob/2 + q/FieldElementsPerCell
		if cells[i] == nil {
			cells[i] = make([]byte, CellLength)
		}
		j := q % FieldElementsPerCell
		vals[reverseBits(uint32(q), 12)].PutBytes(cells[i][32*j:])
	}
	return cells, nil
}

// cellShiftExp returns e with ω^e = h_i, the first point of cell i's coset
// (coset_shift_for_cell): e = rev7(i). The coset's j-th point is
// h_i·g^rev6(j) with g = ω^128 (coset_for_cell).
func cellShiftExp(i uint64) int {
	return int(reverseBits(uint32(i), 7))
}

// VerifyCellProofs checks the cell proofs of blobs (128 per blob, in cell
// order) against their commitments, as the EIP-7594 blob transaction
// wrapper carries them: every cell of every blob, in one batch.
func VerifyCellProofs(blobs, commitments, proofs [][]byte) error {
	if len(commitments) != len(blobs) || len(proofs) != CellsPerExtBlob*len(blobs) {
		return ErrCellBatchSize
	}
	var (
		cellCommitments = make([][]byte, 0, len(proofs))
		indices         = make([]uint64, 0, len(proofs))
		cells           = make([][]byte, 0, len(proofs))
	)
	blobCells, err := computeCellsEach(blobs)
	if err != nil {
		return err
	}
	for b, cs := range blobCells {
		for i, c := range cs {
			cellCommitments = append(cellCommitments, commitments[b])
			indices = append(indices, uint64(i))
			cells = append(cells, c)
		}
	}
	return VerifyCellProofBatch(cellCommitments, indices, cells, proofs)
}

// computeCellsEach runs ComputeCells on every blob, the blobs spread over
// the available CPUs; the error is that of the first bad blob.
func computeCellsEach(blobs [][]byte) ([][][]byte, error) {
	out := make([][][]byte, len(blobs))
	errs := make([]error, len(blobs))
	workers := min(runtime.GOMAXPROCS(0), len(blobs))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := w; b < len(blobs); b += workers {
				out[b], errs[b] = ComputeCells(blobs[b])
			}
		}()
	}
	wg.Wait()
	for b, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("blob %d: %w", b, err)
		}
	}
	return out, nil
}

// VerifyCellProofBatch is verify_cell_kzg_proof_batch: proofs[k] shows
// that cells[k] are the values, on cell cellIndices[k]'s coset, of the
// polynomial commitments[k] commits to. It checks
//
//	e(Σ r^k π_k, [τ^64]G2) = e(Σ_i w_i C_i - [Σ_k r^k I_k(τ)]G1 + Σ_k r^k h_k^64 π_k, G2)
//
// with r the Fiat-Shamir challenge over all inputs, w_i the sum of r^k
// over the cells of commitment i, and I_k the polynomial of degree < 64
// through cell k's values.
func VerifyCellProofBatch(commitments [][]byte, cellIndices []uint64, cells, proofs [][]byte) error {
	if err := cellSetup(); err != nil {
		return err
	}
	n := len(cells)
	if len(commitments) != n || len(cellIndices) != n || len(proofs) != n {
		return ErrCellBatchSize
	}
	for k := 0; k < n; k++ {
		if len(commitments[k]) != 48 {
			return ErrInvalidCommitment
		}
		if cellIndices[k] >= CellsPerExtBlob {
			return ErrCellIndex
		}
		if len(cells[k]) != CellLength {
			return ErrCellLength
		}
		if len(proofs[k]) != 48 {
			return ErrInvalidProof
		}
	}
	// deduplicate_commitments: the distinct commitments, in order of first
	// appearance.
	var (
		unique    [][]byte
		commitIdx = make([]uint64, n)
		seen      = map[string]uint64{}
	)
	for k, c := range commitments {
		idx, ok := seen[string(c)]
		if !ok {
			idx = uint64(len(unique))
			seen[string(c)] = idx
			unique = append(unique, c)
		}
		commitIdx[k] = idx
	}
	points, err := bls12381.DecompressG1s(unique)
	if err != nil {
		return errors.Join(ErrInvalidCommitment, err)
	}
	evals := make([]fr.Element, n*FieldElementsPerCell)
	badCell := -1
	for k := 0; k < n && badCell < 0; k++ {
		for j := 0; j < FieldElementsPerCell; j++ {
			if !evals[k*FieldElementsPerCell+j].SetBytes((*[32]byte)(cells[k][32*j : 32*j+32])) {
				badCell = k
				break
			}
		}
	}
	if badCell >= 0 {
		// The error of the first bad cell or proof, cell k before proof k.
		proofs = proofs[:badCell]
	}
	pis, err := bls12381.DecompressG1s(proofs)
	if err != nil {
		return errors.Join(ErrInvalidProof, err)
	}
	if badCell >= 0 {
		return ErrCellElement
	}
	if n == 0 {
		return nil
	}

	// compute_verify_cell_kzg_proof_batch_challenge and compute_powers.
	h := sha256.New()
	h.Write(cellBatchDomain)
	var u64 [8]byte
	put := func(v uint64) {
		binary.BigEndian.PutUint64(u64[:], v)
		h.Write(u64[:])
	}
	put(FieldElementsPerBlob)
	put(FieldElementsPerCell)
	put(uint64(len(unique)))
	put(uint64(n))
	for _, c := range unique {
		h.Write(c)
	}
	for k := 0; k < n; k++ {
		put(commitIdx[k])
		put(cellIndices[k])
		h.Write(cells[k])
		h.Write(proofs[k])
	}
	var r fr.Element
	r.SetBytesReduce((*[32]byte)(h.Sum(nil)))
	rPow := make([]fr.Element, n)
	rPow[0].SetOne()
	for k := 1; k < n; k++ {
		rPow[k].Mul(&rPow[k-1], &r)
	}

	// The scalars of RLC = Σ_i w_i C_i (w_i: the sum of the r^k of
	// commitment i's cells) and RLP = Σ_k r^k h_k^64 π_k. h_k^64 is
	// ω^(64·rev7(i)).
	weights := make([]fr.Element, len(unique))
	rlpScalars := make([]fr.Element, n)
	// colSums[i] is Σ r^k·evals_k over the cells k of coset i:
	// interpolation is linear, so each coset is interpolated once however
	// many blobs the batch holds, not once per cell.
	colSums := make([][]fr.Element, CellsPerExtBlob)
	var t fr.Element
	for k := 0; k < n; k++ {
		idx := cellIndices[k]
		w := &weights[commitIdx[k]]
		w.Add(w, &rPow[k])
		rlpScalars[k].Mul(&rPow[k], rootPow(FieldElementsPerCell*cellShiftExp(idx)))
		col := colSums[idx]
		if col == nil {
			col = make([]fr.Element, FieldElementsPerCell)
			colSums[idx] = col
		}
		ev := evals[k*FieldElementsPerCell : (k+1)*FieldElementsPerCell]
		for j := range col {
			t.Mul(&ev[j], &rPow[k])
			col[j].Add(&col[j], &t)
		}
	}

	// RLI = [Σ_k r^k I_k(τ)]G1 from the coefficients of Σ_k r^k I_k
	// (interpolate_polynomialcoeff, by inverse transform: the blog post's
	// method the spec recommends). I_k(h·X) takes value evals_k[rev6(m)] at
	// g^m: interpolate it over the 64th roots of unity, then undo the
	// shift, the t-th coefficient times h^-t = ω^(-t·rev7(i)).
	interp := make([]fr.Element, FieldElementsPerCell)
	natural := make([]fr.Element, FieldElementsPerCell)
	for idx, col := range colSums {
		if col == nil {
			continue
		}
		for m := range natural {
			natural[m] = col[reverseBits(uint32(m), 6)]
		}
		fft(natural, true)
		e := cellShiftExp(uint64(idx))
		for c := range natural {
			t.Mul(&natural[c], rootPow(-c*e))
			interp[c].Add(&interp[c], &t)
		}
	}

	// g1_lincomb for LL = Σ r^k π_k, RLP, RLC and RLI.
	ll := bls12381.MultiScalarMultFr(pis, rPow)
	rlp := bls12381.MultiScalarMultFr(pis, rlpScalars)
	rlc := bls12381.MultiScalarMultFr(points, weights)
	rli := bls12381.MultiScalarMultFr(g1Monomial, interp)

	// e(LL, [τ^64]G2) · e(-(RLC - RLI + RLP), G2) = 1.
	var rl bls12381.G1
	rl.Neg(&rli)
	rl.Add(&rl, &rlc)
	rl.Add(&rl, &rlp)
	rl.Neg(&rl)
	if !bls12381.PairingCheck([]bls12381.G1{ll, rl}, []*bls12381.G2Prepared{tau64Lines, g2Lines}) {
		return ErrVerificationFailed
	}
	return nil
}
