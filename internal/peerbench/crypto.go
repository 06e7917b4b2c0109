package main

import (
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	gcrypto "github.com/ethereum/go-ethereum/crypto"
)

// cryptoSigs is a small ring of real signatures so that recovery is not
// measured on one lucky input.
const cryptoRing = 64

type sigCase struct {
	digest [32]byte
	sig    [65]byte
}

func cryptoSigRing() []sigCase {
	out := make([]sigCase, cryptoRing)
	for i := range out {
		seed := crypto.Keccak256([]byte{byte(i), 'k'})
		key, err := crypto.ToPrivateKey(seed[:])
		if err != nil {
			panic(err)
		}
		out[i].digest = crypto.Keccak256([]byte{byte(i), 'm'})
		out[i].sig = crypto.Sign(out[i].digest, key)
	}
	return out
}

func init() {
	data32 := make([]byte, 32)
	data1k := make([]byte, 1024)
	for i := range data1k {
		data1k[i] = byte(i)
	}
	ring := cryptoSigRing()
	seed := crypto.Keccak256([]byte("peerbench signing key"))
	key, _ := crypto.ToPrivateKey(seed[:])
	gkey, _ := gcrypto.ToECDSA(seed[:])
	digest := crypto.Keccak256([]byte("digest"))
	var sink [32]byte

	register(
		Case{
			Area: "crypto", Name: "keccak256 32B",
			Ours: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					crypto.HashInto(&sink, data32)
				}
			},
			Geth: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sink = gcrypto.Keccak256Hash(data32)
				}
			},
		},
		Case{
			Area: "crypto", Name: "keccak256 1KB",
			Ours: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					crypto.HashInto(&sink, data1k)
				}
			},
			Geth: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sink = gcrypto.Keccak256Hash(data1k)
				}
			},
		},
		Case{
			Area: "crypto", Name: "ecrecover (pubkey)",
			Ours: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					c := &ring[i%cryptoRing]
					if _, err := crypto.RecoverPubkey(c.digest, c.sig[:]); err != nil {
						b.Fatal(err)
					}
				}
			},
			Geth: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					c := &ring[i%cryptoRing]
					if _, err := gcrypto.Ecrecover(c.digest[:], c.sig[:]); err != nil {
						b.Fatal(err)
					}
				}
			},
		},
		Case{
			Area: "crypto", Name: "sender (recover+address)",
			Ours: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					c := &ring[i%cryptoRing]
					if _, err := crypto.RecoverAddress(c.digest, c.sig[:]); err != nil {
						b.Fatal(err)
					}
				}
			},
			Geth: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					c := &ring[i%cryptoRing]
					pub, err := gcrypto.SigToPub(c.digest[:], c.sig[:])
					if err != nil {
						b.Fatal(err)
					}
					_ = gcrypto.PubkeyToAddress(*pub)
				}
			},
		},
		Case{
			Area: "crypto", Name: "sign",
			Ours: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					crypto.Sign(digest, key)
				}
			},
			Geth: func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := gcrypto.Sign(digest[:], gkey); err != nil {
						b.Fatal(err)
					}
				}
			},
		},
	)
}
