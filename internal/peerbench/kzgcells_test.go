package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	goethkzg "github.com/crate-crypto/go-eth-kzg"

	"github.com/ethereum/go-ethereum/crypto/kzg4844"

	"github.com/chaind/chaind/evm/precompile/kzg"
)

// TestCellProofsAgainstGoEthKZG checks chaind's EIP-7594 cell code against
// go-eth-kzg (go-ethereum's KZG library): for random blobs, chaind computes
// the same cells, accepts go-eth-kzg's cell proofs for one blob and for
// several at once, and rejects them when a proof, a cell's blob or a
// commitment is swapped.
func TestCellProofsAgainstGoEthKZG(t *testing.T) {
	ctx, err := goethkzg.NewContext4096Secure()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	type blobSet struct {
		blob       []byte
		commitment []byte
		proofs     [][]byte
	}
	var sets []blobSet
	for n := 0; n < 3; n++ {
		var blob goethkzg.Blob
		for i := 0; i < len(blob); i += 32 {
			rng.Read(blob[i+1 : i+32]) // top byte 0: below the modulus
		}
		c, err := ctx.BlobToKZGCommitment(&blob, 0)
		if err != nil {
			t.Fatal(err)
		}
		cells, proofs, err := ctx.ComputeCellsAndKZGProofs(&blob, 0)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := kzg.ComputeCells(blob[:])
		if err != nil {
			t.Fatal(err)
		}
		for i := range cells {
			if string(ours[i]) != string(cells[i][:]) {
				t.Fatalf("blob %d cell %d differs from go-eth-kzg's", n, i)
			}
		}
		s := blobSet{blob: append([]byte(nil), blob[:]...), commitment: append([]byte(nil), c[:]...)}
		for _, p := range proofs {
			s.proofs = append(s.proofs, append([]byte(nil), p[:]...))
		}
		sets = append(sets, s)
	}
	verify := func(ss ...blobSet) error {
		var blobs, cs, ps [][]byte
		for _, s := range ss {
			blobs, cs, ps = append(blobs, s.blob), append(cs, s.commitment), append(ps, s.proofs...)
		}
		return kzg.VerifyCellProofs(blobs, cs, ps)
	}
	if err := verify(sets[0]); err != nil {
		t.Fatalf("one blob: %v", err)
	}
	if err := verify(sets...); err != nil {
		t.Fatalf("three blobs: %v", err)
	}
	swappedProof := sets[1]
	swappedProof.proofs = append([][]byte(nil), sets[1].proofs...)
	swappedProof.proofs[5], swappedProof.proofs[6] = swappedProof.proofs[6], swappedProof.proofs[5]
	otherBlob := sets[1]
	otherBlob.blob = sets[2].blob
	otherCommitment := sets[1]
	otherCommitment.commitment = sets[0].commitment
	for name, bad := range map[string][]blobSet{
		"two proofs swapped":        {sets[0], swappedProof},
		"another blob":              {otherBlob},
		"another blob's commitment": {otherCommitment, sets[2]},
	} {
		if err := verify(bad...); !errors.Is(err, kzg.ErrVerificationFailed) {
			t.Errorf("%s: %v, want verification failure", name, err)
		}
	}
}

var updateCellGolden = flag.Bool("update", false, "rewrite evm/precompile/kzg/testdata/cell_proofs.hex")

// cellGolden is where chaind's own benchmarks and tests find the
// commitments and proofs of the benchmark blobs (cellBenchBlob).
const cellGolden = "../../evm/precompile/kzg/testdata/cell_proofs.hex"

// TestCellBenchSet checks the benchmark's blobs and proofs: both libraries
// accept them, both reject them with one byte of a proof or of a blob
// flipped, and the golden file chaind's kzg benchmarks read holds exactly
// go-eth-kzg's commitments and proofs of these blobs (one hex line per
// commitment, then its 128 cell proofs and its blob proof, blob after
// blob).
func TestCellBenchSet(t *testing.T) {
	s, err := newCellSet(6)
	if err != nil {
		t.Fatal(err)
	}
	// The EIP-4844 proof of each blob too, for VerifyBlobProof.
	blobProofs := make([]kzg4844.Proof, len(s.blobs))
	for b := range s.blobs {
		if blobProofs[b], err = kzg4844.ComputeBlobProof(&s.blobs[b], s.commitments[b]); err != nil {
			t.Fatal(err)
		}
		if err := kzg.VerifyBlobProof(s.ourBlobs[b], s.ourComs[b], blobProofs[b][:]); err != nil {
			t.Fatalf("chaind rejects blob %d's proof: %v", b, err)
		}
	}
	var golden strings.Builder
	for b := range s.blobs {
		fmt.Fprintf(&golden, "%x\n", s.commitments[b][:])
		for _, p := range s.proofs[kzg.CellsPerExtBlob*b : kzg.CellsPerExtBlob*(b+1)] {
			fmt.Fprintf(&golden, "%x\n", p[:])
		}
		fmt.Fprintf(&golden, "%x\n", blobProofs[b][:])
	}
	if *updateCellGolden {
		if err := os.WriteFile(cellGolden, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(cellGolden); err != nil || string(got) != golden.String() {
		t.Fatalf("%s does not hold go-eth-kzg's proofs of the benchmark blobs (rerun with -update): %v", cellGolden, err)
	}

	if err := kzg.VerifyCellProofs(s.ourBlobs, s.ourComs, s.ourProofs); err != nil {
		t.Fatalf("chaind rejects the set: %v", err)
	}
	if err := kzg4844.VerifyCellProofs(s.blobs, s.commitments, s.proofs); err != nil {
		t.Fatalf("go-ethereum rejects the set: %v", err)
	}
	// A flipped low bit keeps a blob element below the modulus and most
	// proof encodings on the curve or off it; either way both must refuse.
	for _, flip := range []struct {
		name string
		at   func(s *cellSet) *byte
	}{
		{"proof 77 byte 20", func(s *cellSet) *byte { return &s.proofs[77][20] }},
		{"blob 3 byte 5000", func(s *cellSet) *byte { return &s.blobs[3][5000] }},
		{"commitment 5 byte 47", func(s *cellSet) *byte { return &s.commitments[5][47] }},
	} {
		*flip.at(s) ^= 1
		if kzg.VerifyCellProofs(s.ourBlobs, s.ourComs, s.ourProofs) == nil {
			t.Errorf("%s flipped: chaind accepts", flip.name)
		}
		if kzg4844.VerifyCellProofs(s.blobs, s.commitments, s.proofs) == nil {
			t.Errorf("%s flipped: go-ethereum accepts", flip.name)
		}
		*flip.at(s) ^= 1
	}
}
