package main

import (
	"errors"
	"math/rand"
	"testing"

	goethkzg "github.com/crate-crypto/go-eth-kzg"

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
