package txpool

import (
	"errors"
	"math/big"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381"
	"github.com/chaind/chaind/evm/precompile/kzg"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// constantSidecar is a valid version 0 sidecar whose blobs hold the
// constant polynomials cs: the commitment of c is [c]G1 and its proof at
// any point the point at infinity.
func constantSidecar(cs ...uint64) (*types.BlobSidecar, []types.Hash) {
	sc := &types.BlobSidecar{Version: types.SidecarBlobProofs}
	var hashes []types.Hash
	for _, c := range cs {
		blob := make([]byte, types.BlobSize)
		var k [32]byte
		new(big.Int).SetUint64(c).FillBytes(k[:])
		for i := 0; i < types.BlobSize; i += 32 {
			copy(blob[i:], k[:])
		}
		g := bls12381.G1Generator()
		var p bls12381.G1
		p.ScalarMult(&g, &k)
		com := bls12381.CompressG1(&p)
		proof := make([]byte, types.KZGProofSize)
		proof[0] = 0xc0
		sc.Blobs = append(sc.Blobs, blob)
		sc.Commitments = append(sc.Commitments, com[:])
		sc.Proofs = append(sc.Proofs, proof)
		hashes = append(hashes, types.Hash(kzg.VersionedHash(com[:])))
	}
	return sc, hashes
}

func (f *fixture) blobTx(i int, nonce uint64, hashes []types.Hash) *types.Transaction {
	return types.MustSignNewTx(f.keys[i], signer, &types.BlobTx{ChainID: *uint256.NewInt(chainID), Nonce: nonce,
		GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: types.Address{0xbb},
		BlobFeeCap: *uint256.NewInt(1e9), BlobHashes: hashes})
}

func TestBlobSidecars(t *testing.T) {
	f := newFixture(t, Config{}, 1)
	good, hashes := constantSidecar(5, 7)
	other, _ := constantSidecar(6, 7)
	swapped := &types.BlobSidecar{Blobs: good.Blobs, Commitments: good.Commitments, Proofs: [][]byte{good.Proofs[0], other.Commitments[0]}}
	short := &types.BlobSidecar{Blobs: good.Blobs[:1], Commitments: good.Commitments[:1], Proofs: good.Proofs[:1]}
	// Version 1: a constant polynomial's cell proofs are the point at
	// infinity too (its quotient by any coset's vanishing polynomial is 0).
	cells := &types.BlobSidecar{Version: types.SidecarCellProofs, Blobs: good.Blobs, Commitments: good.Commitments}
	for range 2 * types.CellProofsPerBlob {
		cells.Proofs = append(cells.Proofs, good.Proofs[0])
	}
	badCells := &types.BlobSidecar{Version: types.SidecarCellProofs, Blobs: good.Blobs, Commitments: good.Commitments,
		Proofs: append([][]byte{other.Commitments[0]}, cells.Proofs[1:]...)}
	emptyCells := &types.BlobSidecar{Version: types.SidecarCellProofs, Blobs: good.Blobs, Commitments: good.Commitments, Proofs: make([][]byte, 2*types.CellProofsPerBlob)}
	fewCells := &types.BlobSidecar{Version: types.SidecarCellProofs, Blobs: good.Blobs, Commitments: good.Commitments, Proofs: cells.Proofs[1:]}
	tx := f.blobTx(0, 0, hashes)
	for _, tc := range []struct {
		name string
		sc   *types.BlobSidecar
		fork forks.Fork
		want error
	}{
		{"no sidecar", nil, forks.Cancun, ErrMissingSidecar},
		{"fewer blobs than hashes", short, forks.Cancun, ErrSidecarCount},
		{"commitments of other blobs", other, forks.Cancun, ErrSidecarHash},
		{"a proof that does not open the blob", swapped, forks.Cancun, ErrSidecarProof},
		{"cell proofs before Osaka", cells, forks.Cancun, ErrSidecarVersion},
		{"blob proofs from Osaka", good, forks.Osaka, ErrSidecarVersion},
		{"a cell proof that does not open its cell", badCells, forks.Osaka, ErrSidecarProof},
		{"cell proofs that do not decode", emptyCells, forks.Osaka, ErrSidecarProof},
		{"one cell proof short", fewCells, forks.Osaka, ErrSidecarCount},
		{"valid", good, forks.Cancun, nil},
		{"valid cell proofs", cells, forks.Osaka, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := VerifySidecar(tx, tc.sc, tc.fork); !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if err := VerifySidecar(f.tx(0, 0, 2e9, 1e9), good, forks.Cancun); !errors.Is(err, ErrUnexpectedBlobs) {
		t.Fatalf("blobs with a dynamic-fee transaction: %v", err)
	}
	// Through the pool: refused without blobs, kept with them, dropped
	// with the transaction once it is included.
	if err := f.pool.Add(tx); !errors.Is(err, ErrMissingSidecar) {
		t.Fatalf("pool.Add of a blob transaction without blobs: %v", err)
	}
	if err := f.pool.AddPooled(tx, other); !errors.Is(err, ErrSidecarHash) {
		t.Fatalf("pool.AddPooled with the wrong blobs: %v", err)
	}
	if err := f.pool.AddPooled(tx, good); err != nil {
		t.Fatal(err)
	}
	if sc, ok := f.pool.Sidecar(tx.Hash()); !ok || sc != good {
		t.Fatal("pooled blob transaction lost its sidecar")
	}
	// Its blobs are most of what the pool holds, and counted.
	if got, min := f.pool.Bytes(), int64(tx.Size())+2*types.BlobSize; got < min {
		t.Fatalf("pool bytes %d, below the transaction and its two blobs (%d)", got, min)
	}
	f.pool.Remove(tx.Hash())
	if _, ok := f.pool.Sidecar(tx.Hash()); ok {
		t.Fatal("sidecar kept after its transaction left the pool")
	}
}
