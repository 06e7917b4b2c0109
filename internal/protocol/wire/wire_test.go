package wire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

func TestSyncMessagesRoundTrip(t *testing.T) {
	for _, st := range []Status{{Height: 42, Head: types.Hash{1, 2}}, {Height: 7, Syncing: true}} {
		if got, err := DecodeStatus(st.Encode()); err != nil || got != st {
			t.Fatalf("status: %+v %v", got, err)
		}
	}
	for _, bad := range [][]byte{Status{}.Encode()[:40], append(Status{}.Encode()[:40], 2)} {
		if _, err := DecodeStatus(bad); err == nil {
			t.Errorf("status %x accepted", bad)
		}
	}
	c := Cert{Height: 9, Hash: types.Hash{3}, Cert: []byte{0xc1, 0x80}}
	if got, err := DecodeCert(c.Encode()); err != nil || got.Height != c.Height || got.Hash != c.Hash || !bytes.Equal(got.Cert, c.Cert) {
		t.Fatalf("cert: %+v %v", got, err)
	}
	if _, err := DecodeCert(c.Encode()[:40]); err == nil {
		t.Fatal("certificate message without a certificate accepted")
	}
	g := GetBlocks{From: 7, Count: 128}
	if got, err := DecodeGetBlocks(g.Encode()); err != nil || got != g {
		t.Fatalf("getBlocks: %+v %v", got, err)
	}
	for _, bad := range []GetBlocks{{From: 1, Count: 0}, {From: 1, Count: MaxBlocksPerRequest + 1}} {
		if _, err := DecodeGetBlocks(bad.Encode()); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	genesis := testBlock()
	enc := EncodeBlocks([]CertifiedBlock{{Block: genesis, Cert: []byte{1, 2, 3}}})
	got, err := DecodeBlocks(enc)
	if err != nil || len(got) != 1 || got[0].Block.Hash() != genesis.Hash() || !bytes.Equal(got[0].Cert, []byte{1, 2, 3}) {
		t.Fatalf("blocks: %+v %v", got, err)
	}
	if _, err := DecodeBlocks(enc[:len(enc)-1]); err == nil {
		t.Fatal("truncated blocks accepted")
	}
}

func FuzzDecodeSyncMessages(f *testing.F) {
	genesis := testBlock()
	f.Add(EncodeBlocks([]CertifiedBlock{{Block: genesis, Cert: []byte{1}}}))
	f.Add(Status{Height: 1}.Encode())
	f.Add(Status{Height: 1, Syncing: true}.Encode())
	f.Add(GetBlocks{From: 1, Count: 2}.Encode())
	f.Add(Cert{Height: 1, Cert: []byte{0xc0}}.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if st, err := DecodeStatus(b); err == nil && !bytes.Equal(st.Encode(), b) {
			t.Fatalf("status does not round-trip")
		}
		DecodeGetBlocks(b)
		if c, err := DecodeCert(b); err == nil && !bytes.Equal(c.Encode(), b) {
			t.Fatalf("certificate message does not round-trip")
		}
		blocks, err := DecodeBlocks(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if len(blocks) > MaxBlocksPerRequest {
			t.Fatalf("%d blocks decoded", len(blocks))
		}
	})
}

func testBlock() *types.Block {
	return types.NewBlockWithHeader(&types.Header{Number: 5, GasLimit: 30_000_000, Extra: []byte("x")})
}
