package main

import (
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	gcrypto "github.com/ethereum/go-ethereum/crypto"
)

func init() {
	data := make([]byte, 32)
	register(Case{
		Area: "crypto", Name: "keccak256 32B",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				crypto.Keccak256(data)
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				gcrypto.Keccak256Hash(data)
			}
		},
	})
}
