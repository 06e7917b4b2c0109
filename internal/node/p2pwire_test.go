package node

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

func TestSyncMessagesRoundTrip(t *testing.T) {
	for _, st := range []statusMsg{{Height: 42, Head: types.Hash{1, 2}}, {Height: 7, Syncing: true}} {
		if got, err := decodeStatus(st.encode()); err != nil || got != st {
			t.Fatalf("status: %+v %v", got, err)
		}
	}
	for _, bad := range [][]byte{statusMsg{}.encode()[:40], append(statusMsg{}.encode()[:40], 2)} {
		if _, err := decodeStatus(bad); err == nil {
			t.Errorf("status %x accepted", bad)
		}
	}
	c := certMsg{Height: 9, Hash: types.Hash{3}, Cert: []byte{0xc1, 0x80}}
	if got, err := decodeCert(c.encode()); err != nil || got.Height != c.Height || got.Hash != c.Hash || !bytes.Equal(got.Cert, c.Cert) {
		t.Fatalf("cert: %+v %v", got, err)
	}
	if _, err := decodeCert(c.encode()[:40]); err == nil {
		t.Fatal("certificate message without a certificate accepted")
	}
	g := getBlocksMsg{From: 7, Count: 128}
	if got, err := decodeGetBlocks(g.encode()); err != nil || got != g {
		t.Fatalf("getBlocks: %+v %v", got, err)
	}
	for _, bad := range []getBlocksMsg{{From: 1, Count: 0}, {From: 1, Count: maxBlocksPerRequest + 1}} {
		if _, err := decodeGetBlocks(bad.encode()); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	genesis := testBlock()
	enc := encodeBlocks([]certifiedBlock{{Block: genesis, Cert: []byte{1, 2, 3}}})
	got, err := decodeBlocks(enc)
	if err != nil || len(got) != 1 || got[0].Block.Hash() != genesis.Hash() || !bytes.Equal(got[0].Cert, []byte{1, 2, 3}) {
		t.Fatalf("blocks: %+v %v", got, err)
	}
	if _, err := decodeBlocks(enc[:len(enc)-1]); err == nil {
		t.Fatal("truncated blocks accepted")
	}
}

func FuzzDecodeSyncMessages(f *testing.F) {
	genesis := testBlock()
	f.Add(encodeBlocks([]certifiedBlock{{Block: genesis, Cert: []byte{1}}}))
	f.Add(statusMsg{Height: 1}.encode())
	f.Add(statusMsg{Height: 1, Syncing: true}.encode())
	f.Add(getBlocksMsg{From: 1, Count: 2}.encode())
	f.Add(certMsg{Height: 1, Cert: []byte{0xc0}}.encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if st, err := decodeStatus(b); err == nil && !bytes.Equal(st.encode(), b) {
			t.Fatalf("status does not round-trip")
		}
		decodeGetBlocks(b)
		if c, err := decodeCert(b); err == nil && !bytes.Equal(c.encode(), b) {
			t.Fatalf("certificate message does not round-trip")
		}
		blocks, err := decodeBlocks(b)
		if err != nil {
			return
		}
		if len(blocks) > maxBlocksPerRequest {
			t.Fatalf("%d blocks decoded", len(blocks))
		}
	})
}

func testBlock() *types.Block {
	return types.NewBlockWithHeader(&types.Header{Number: 5, GasLimit: 30_000_000, Extra: []byte("x")})
}
