package wire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

func signedAnnouncement(t testing.TB) (NodeAnnouncement, *secp256k1.PrivateKey) {
	key, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	a := NodeAnnouncement{ChainID: 8119, Kind: KindFull, TimeMs: 1_700_000_000_000, Syncing: true, Addr: "127.0.0.1:30303", Version: "1.0.0-dev"}
	a.Sign(key)
	return a, key
}

// An announcement round-trips, names its signer, and any change to it
// after signing is refused as forged.
func TestNodeAnnouncement(t *testing.T) {
	a, key := signedAnnouncement(t)
	enc := a.Encode()
	got, err := DecodeNodeAnnouncement(enc)
	if err != nil || got != a {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	pub, err := got.PublicKey()
	if err != nil || !bytes.Equal(pub, key.PubKey().SerializeCompressed()) || got.ID != p2p.IDOf(key) {
		t.Fatalf("signer: %x %v", pub, err)
	}
	for i := range len(enc) - 65 { // every byte of the signed body
		b := bytes.Clone(enc)
		b[i] ^= 1
		d, err := DecodeNodeAnnouncement(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("byte %d: %v is not ErrMalformed", i, err)
			}
			continue
		}
		if _, err := d.PublicKey(); !errors.Is(err, ErrForged) {
			t.Fatalf("byte %d changed: not refused as forged (%v)", i, err)
		}
	}
}

func TestNodeAnnouncementRefused(t *testing.T) {
	a, key := signedAnnouncement(t)
	for _, c := range []struct {
		name string
		edit func(*NodeAnnouncement)
	}{
		{"kind", func(a *NodeAnnouncement) { a.Kind = 7 }},
		{"address", func(a *NodeAnnouncement) { a.Addr = "nohost" }},
		{"port 0", func(a *NodeAnnouncement) { a.Addr = "127.0.0.1:0" }},
		{"version", func(a *NodeAnnouncement) { a.Version = "1.0 0" }},
	} {
		b := a
		c.edit(&b)
		b.Sign(key)
		if _, err := DecodeNodeAnnouncement(b.Encode()); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := DecodeNodeAnnouncement(append(a.Encode(), 0)); !errors.Is(err, ErrMalformed) {
		t.Errorf("trailing byte: %v", err)
	}
}

func FuzzDecodeNodeAnnouncement(f *testing.F) {
	a, _ := signedAnnouncement(f)
	f.Add(a.Encode())
	a.Addr, a.Version = "", ""
	f.Add(a.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeNodeAnnouncement(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if !bytes.Equal(a.Encode(), b) {
			t.Fatal("does not round-trip")
		}
		a.PublicKey()
	})
}
