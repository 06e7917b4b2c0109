package types

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

func testSidecar(version byte, blobs int) *BlobSidecar {
	sc := &BlobSidecar{Version: version}
	proofs := 1
	if version == SidecarCellProofs {
		proofs = CellProofsPerBlob
	}
	for i := 0; i < blobs; i++ {
		sc.Blobs = append(sc.Blobs, bytes.Repeat([]byte{byte(i + 1)}, BlobSize))
		sc.Commitments = append(sc.Commitments, bytes.Repeat([]byte{0xc0 + byte(i)}, KZGCommitmentSize))
		for j := 0; j < proofs; j++ {
			sc.Proofs = append(sc.Proofs, bytes.Repeat([]byte{byte(j)}, KZGProofSize))
		}
	}
	return sc
}

func testBlobTx() *Transaction {
	return NewTx(&BlobTx{ChainID: *uint256.NewInt(1), Nonce: 3, GasFeeCap: *uint256.NewInt(9), Gas: 21000, To: Address{1},
		BlobFeeCap: *uint256.NewInt(2), BlobHashes: []Hash{{1}, {2}}, V: *uint256.NewInt(1), R: *uint256.NewInt(2), S: *uint256.NewInt(3)})
}

// Both wrapper versions decode to the transaction a block would hold (same
// hash) and the sidecar they carry; the canonical form decodes without one.
func TestPooledTxRoundTrip(t *testing.T) {
	tx := testBlobTx()
	for _, v := range []byte{SidecarBlobProofs, SidecarCellProofs} {
		sc := testSidecar(v, 2)
		got, gotSC, err := DecodePooledTx(EncodePooledTx(tx, sc))
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if got.Hash() != tx.Hash() || gotSC.Version != v || len(gotSC.Blobs) != 2 || len(gotSC.Proofs) != len(sc.Proofs) ||
			!bytes.Equal(gotSC.Commitments[1], sc.Commitments[1]) || !bytes.Equal(gotSC.Blobs[0], sc.Blobs[0]) {
			t.Fatalf("version %d: round trip changed the transaction or its sidecar", v)
		}
	}
	canonical, _ := tx.MarshalBinary()
	got, sc, err := DecodePooledTx(canonical)
	if err != nil || sc != nil || got.Hash() != tx.Hash() {
		t.Fatalf("canonical form: %v, sidecar %v", err, sc)
	}
	legacy, _ := NewTx(&LegacyTx{Nonce: 1, Gas: 21000, V: *uint256.NewInt(27), R: *uint256.NewInt(1), S: *uint256.NewInt(1)}).MarshalBinary()
	if _, sc, err := DecodePooledTx(legacy); err != nil || sc != nil {
		t.Fatalf("legacy form: %v, sidecar %v", err, sc)
	}
}

func TestPooledTxMalformed(t *testing.T) {
	tx := testBlobTx()
	good := EncodePooledTx(tx, testSidecar(0, 1))
	shortBlob := testSidecar(0, 1)
	shortBlob.Blobs[0] = shortBlob.Blobs[0][:100]
	badVersion := testSidecar(0, 1)
	badVersion.Version = 2
	for _, tc := range []struct {
		name string
		raw  []byte
		want error
	}{
		{"blob of the wrong size", EncodePooledTx(tx, shortBlob), ErrSidecarShape},
		{"unknown version", EncodePooledTx(tx, badVersion), ErrSidecarVersion},
		{"trailing item", func() []byte {
			content, _, _ := rlp.SplitList(good[1:])
			content = rlp.AppendUint64(append([]byte(nil), content...), 5)
			return append([]byte{BlobTxType}, append(rlp.AppendListHeader(nil, len(content)), content...)...)
		}(), ErrSidecarShape},
		{"truncated", good[:len(good)-10], nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := DecodePooledTx(tc.raw)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// FuzzDecodePooledTx: any input either fails or decodes to a transaction
// that re-encodes to the same bytes.
func FuzzDecodePooledTx(f *testing.F) {
	tx := testBlobTx()
	f.Add(EncodePooledTx(tx, testSidecar(0, 1)))
	f.Add(EncodePooledTx(tx, testSidecar(1, 0)))
	canonical, _ := tx.MarshalBinary()
	f.Add(canonical)
	f.Add([]byte{3, 0xc0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, sc, err := DecodePooledTx(raw)
		if err != nil {
			return
		}
		var again []byte
		if sc == nil {
			again, _ = got.MarshalBinary()
		} else {
			again = EncodePooledTx(got, sc)
		}
		if !bytes.Equal(again, raw) {
			t.Fatalf("re-encoding differs:\n%x\n%x", raw, again)
		}
	})
}
