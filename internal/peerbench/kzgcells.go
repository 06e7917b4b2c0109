package main

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	goethkzg "github.com/crate-crypto/go-eth-kzg"

	"github.com/chaind/chaind/evm/precompile/kzg"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
)

// EIP-7594 cell proofs: chaind's evm/precompile/kzg against go-ethereum's
// crypto/kzg4844 (go-eth-kzg behind it), on the same blobs with the same
// proofs, computed once by go-eth-kzg. The txpool checks a blob
// transaction's cells exactly this way: VerifyCellProofs over all its
// blobs. Run with `make peerbench PEERBENCH_ARGS='-run kzg'`.

// cellBenchBlob returns blob n of the benchmarks: element i is
// sha256("chaind cell bench" || n || i) with its top byte cleared, so
// below the modulus. evm/precompile/kzg's tests build the same blobs, and
// testdata/cell_proofs.hex there holds their commitments and proofs.
func cellBenchBlob(n int) *kzg4844.Blob {
	var blob kzg4844.Blob
	var buf [len("chaind cell bench") + 16]byte
	copy(buf[:], "chaind cell bench")
	for i := 0; i < len(blob)/32; i++ {
		binary.BigEndian.PutUint64(buf[len(buf)-16:], uint64(n))
		binary.BigEndian.PutUint64(buf[len(buf)-8:], uint64(i))
		h := sha256.Sum256(buf[:])
		h[0] = 0
		copy(blob[32*i:], h[:])
	}
	return &blob
}

// cellSet is some blobs with their commitments and cell proofs, in both
// libraries' shapes.
type cellSet struct {
	blobs       []kzg4844.Blob
	commitments []kzg4844.Commitment
	proofs      []kzg4844.Proof
	ourBlobs    [][]byte
	ourComs     [][]byte
	ourProofs   [][]byte
}

func newCellSet(n int) (*cellSet, error) {
	s := &cellSet{}
	for i := 0; i < n; i++ {
		blob := cellBenchBlob(i)
		c, err := kzg4844.BlobToCommitment(blob)
		if err != nil {
			return nil, err
		}
		ps, err := kzg4844.ComputeCellProofs(blob)
		if err != nil {
			return nil, err
		}
		s.blobs = append(s.blobs, *blob)
		s.commitments = append(s.commitments, c)
		s.proofs = append(s.proofs, ps...)
	}
	for i := range s.blobs {
		s.ourBlobs = append(s.ourBlobs, s.blobs[i][:])
		s.ourComs = append(s.ourComs, s.commitments[i][:])
	}
	for i := range s.proofs {
		s.ourProofs = append(s.ourProofs, s.proofs[i][:])
	}
	return s, nil
}

func init() {
	sets := map[int]*cellSet{}
	get := func(b *testing.B, n int) *cellSet {
		if sets[n] == nil {
			s, err := newCellSet(n)
			if err != nil {
				b.Fatal(err)
			}
			sets[n] = s
		}
		return sets[n]
	}
	verify := func(n int) Case {
		return Case{
			Area: "kzg", Name: map[int]string{1: "VerifyCellProofs 1 blob", 6: "VerifyCellProofs 6 blobs"}[n],
			Ours: func(b *testing.B) {
				s := get(b, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := kzg.VerifyCellProofs(s.ourBlobs, s.ourComs, s.ourProofs); err != nil {
						b.Fatal(err)
					}
				}
			},
			Geth: func(b *testing.B) {
				s := get(b, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := kzg4844.VerifyCellProofs(s.blobs, s.commitments, s.proofs); err != nil {
						b.Fatal(err)
					}
				}
			},
		}
	}
	var gctx *goethkzg.Context
	register(verify(1), verify(6), Case{
		// go-ethereum computes cells inside VerifyCellProofs with
		// go-eth-kzg's ComputeCells on two goroutines; this is that call.
		Area: "kzg", Name: "ComputeCells",
		Ours: func(b *testing.B) {
			blob := cellBenchBlob(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := kzg.ComputeCells(blob[:]); err != nil {
					b.Fatal(err)
				}
			}
		},
		Geth: func(b *testing.B) {
			if gctx == nil {
				c, err := goethkzg.NewContext4096Secure()
				if err != nil {
					b.Fatal(err)
				}
				gctx = c
			}
			blob := (*goethkzg.Blob)(cellBenchBlob(0))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := gctx.ComputeCells(blob, 2); err != nil {
					b.Fatal(err)
				}
			}
		},
	})
}
