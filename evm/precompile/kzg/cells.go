package kzg

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/chaind/chaind/evm/precompile/bls12381"
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
	extRoots    []*big.Int // ω^i for the primitive 8192nd root of unity ω, natural order
	g1Monomial  []bls12381.G1
	tau64Lines  *bls12381.G2Prepared
	errCellInit error
)

// cellSetup computes the extended domain and decodes the setup points,
// once, on first use (the point evaluation precompile needs none of it).
func cellSetup() error {
	cellOnce.Do(func() {
		exp := new(big.Int).Sub(modulus, big.NewInt(1))
		exp.Div(exp, big.NewInt(FieldElementsPerExtBlob))
		w := new(big.Int).Exp(big.NewInt(7), exp, modulus)
		extRoots = make([]*big.Int, FieldElementsPerExtBlob)
		x := big.NewInt(1)
		for i := range extRoots {
			extRoots[i] = new(big.Int).Set(x)
			x = new(big.Int).Mul(x, w)
			x.Mod(x, modulus)
		}
		g1Monomial = make([]bls12381.G1, FieldElementsPerCell)
		for i := range g1Monomial {
			b, err := hex.DecodeString(g1MonomialHex[i])
			if err == nil {
				g1Monomial[i], err = bls12381.DecompressG1(b)
			}
			if err != nil {
				errCellInit = fmt.Errorf("kzg: trusted setup point %d: %w", i, err)
				return
			}
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

func modMul(a, b *big.Int) *big.Int {
	r := new(big.Int).Mul(a, b)
	return r.Mod(r, modulus)
}

// fft returns the values of the polynomial with coefficients a (len a power
// of two dividing 8192) at the len(a)-th roots of unity, in natural order;
// inverse interpolates instead (values to coefficients).
func fft(a []*big.Int, inverse bool) []*big.Int {
	n := len(a)
	logN := 0
	for 1<<logN < n {
		logN++
	}
	out := make([]*big.Int, n)
	for i := range a {
		out[reverseBits(uint32(i), logN)] = new(big.Int).Set(a[i])
	}
	stride := FieldElementsPerExtBlob / n // ω^stride is a primitive n-th root
	t := new(big.Int)
	for size := 2; size <= n; size <<= 1 {
		half := size / 2
		step := stride * (n / size)
		for start := 0; start < n; start += size {
			for j := 0; j < half; j++ {
				idx := j * step
				if inverse && idx != 0 {
					idx = FieldElementsPerExtBlob - idx
				}
				u, v := out[start+j], out[start+j+half]
				t.Mul(v, extRoots[idx])
				t.Mod(t, modulus)
				sum := new(big.Int).Add(u, t)
				if sum.Cmp(modulus) >= 0 {
					sum.Sub(sum, modulus)
				}
				diff := new(big.Int).Sub(u, t)
				if diff.Sign() < 0 {
					diff.Add(diff, modulus)
				}
				out[start+j], out[start+j+half] = sum, diff
			}
		}
	}
	if inverse {
		nInv := new(big.Int).ModInverse(big.NewInt(int64(n)), modulus)
		for i := range out {
			out[i] = modMul(out[i], nInv)
		}
	}
	return out
}

// ComputeCells returns the 128 cells of blob's extension (compute_cells).
func ComputeCells(blob []byte) ([][]byte, error) {
	if err := cellSetup(); err != nil {
		return nil, err
	}
	if len(blob) != BlobLength {
		return nil, ErrBlobLength
	}
	// The blob holds its values at the 4096th roots of unity in
	// bit-reversed order; put them in natural order and interpolate.
	vals := make([]*big.Int, FieldElementsPerBlob)
	for i := range vals {
		v := (*[32]byte)(blob[32*i : 32*i+32])
		if !belowModulus(v) {
			return nil, ErrBlobFieldElement
		}
		vals[reverseBits(uint32(i), 12)] = new(big.Int).SetBytes(v[:])
	}
	coeffs := fft(vals, true)
	ext := make([]*big.Int, FieldElementsPerExtBlob)
	copy(ext, coeffs)
	for i := len(coeffs); i < len(ext); i++ {
		ext[i] = new(big.Int)
	}
	ext = fft(ext, false) // ext[m] = P(ω^m)
	cells := make([][]byte, CellsPerExtBlob)
	for i := range cells {
		cell := make([]byte, CellLength)
		for j := 0; j < FieldElementsPerCell; j++ {
			// Position 64i+j of the bit-reversed extended domain.
			ext[reverseBits(uint32(FieldElementsPerCell*i+j), 13)].FillBytes(cell[32*j : 32*j+32])
		}
		cells[i] = cell
	}
	return cells, nil
}

// cellShift is h_i, the first point of cell i's coset: ω^rev7(i). The
// coset's j-th point is h_i·g^rev6(j) with g = ω^128.
func cellShift(i uint64) *big.Int {
	return extRoots[reverseBits(uint32(i), 7)]
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
	for b, blob := range blobs {
		cs, err := ComputeCells(blob)
		if err != nil {
			return fmt.Errorf("blob %d: %w", b, err)
		}
		for i, c := range cs {
			cellCommitments = append(cellCommitments, commitments[b])
			indices = append(indices, uint64(i))
			cells = append(cells, c)
		}
	}
	return VerifyCellProofBatch(cellCommitments, indices, cells, proofs)
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
	// The distinct commitments, in order of first appearance.
	var (
		unique    [][]byte
		points    []bls12381.G1
		commitIdx = make([]uint64, n)
		seen      = map[string]uint64{}
	)
	for k, c := range commitments {
		idx, ok := seen[string(c)]
		if !ok {
			p, err := bls12381.DecompressG1(c)
			if err != nil {
				return errors.Join(ErrInvalidCommitment, err)
			}
			idx = uint64(len(unique))
			seen[string(c)] = idx
			unique = append(unique, c)
			points = append(points, p)
		}
		commitIdx[k] = idx
	}
	evals := make([][]*big.Int, n)
	pis := make([]bls12381.G1, n)
	for k := 0; k < n; k++ {
		evals[k] = make([]*big.Int, FieldElementsPerCell)
		for j := range evals[k] {
			v := (*[32]byte)(cells[k][32*j : 32*j+32])
			if !belowModulus(v) {
				return ErrCellElement
			}
			evals[k][j] = new(big.Int).SetBytes(v[:])
		}
		p, err := bls12381.DecompressG1(proofs[k])
		if err != nil {
			return errors.Join(ErrInvalidProof, err)
		}
		pis[k] = p
	}
	if n == 0 {
		return nil
	}

	// The challenge r and its powers.
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
	r := new(big.Int).SetBytes(h.Sum(nil))
	r.Mod(r, modulus)
	rPow := make([]*big.Int, n)
	rPow[0] = big.NewInt(1)
	for k := 1; k < n; k++ {
		rPow[k] = modMul(rPow[k-1], r)
	}

	// LL = Σ r^k π_k and RLP = Σ r^k h_k^64 π_k.
	llScalars := make([][32]byte, n)
	rlpScalars := make([][32]byte, n)
	weights := make([]*big.Int, len(unique))
	for i := range weights {
		weights[i] = new(big.Int)
	}
	// Σ_k r^k I_k, coefficient by coefficient.
	interp := make([]*big.Int, FieldElementsPerCell)
	for t := range interp {
		interp[t] = new(big.Int)
	}
	hPow := big.NewInt(FieldElementsPerCell)
	for k := 0; k < n; k++ {
		rPow[k].FillBytes(llScalars[k][:])
		shift := cellShift(cellIndices[k])
		modMul(rPow[k], new(big.Int).Exp(shift, hPow, modulus)).FillBytes(rlpScalars[k][:])
		w := weights[commitIdx[k]]
		w.Add(w, rPow[k])
		w.Mod(w, modulus)

		// I_k(h·X) takes value evals[k][rev6(m)] at g^m: interpolate it
		// over the 64th roots of unity, then undo the shift (the t-th
		// coefficient of I_k is that of I_k(h·X) times h^-t).
		natural := make([]*big.Int, FieldElementsPerCell)
		for m := range natural {
			natural[m] = evals[k][reverseBits(uint32(m), 6)]
		}
		c := fft(natural, true)
		hInv := new(big.Int).ModInverse(shift, modulus)
		f := new(big.Int).Set(rPow[k]) // r^k · h^-t
		for t := range c {
			interp[t].Add(interp[t], modMul(c[t], f))
			interp[t].Mod(interp[t], modulus)
			f = modMul(f, hInv)
		}
	}
	ll := bls12381.MultiScalarMultSubgroup(pis, llScalars)
	rlp := bls12381.MultiScalarMultSubgroup(pis, rlpScalars)
	wScalars := make([][32]byte, len(unique))
	for i, w := range weights {
		w.FillBytes(wScalars[i][:])
	}
	rlc := bls12381.MultiScalarMultSubgroup(points, wScalars)
	iScalars := make([][32]byte, FieldElementsPerCell)
	for t, c := range interp {
		c.FillBytes(iScalars[t][:])
	}
	rli := bls12381.MultiScalarMultSubgroup(g1Monomial, iScalars)

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
