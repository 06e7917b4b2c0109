package main

import (
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/types"
	gtypes "github.com/ethereum/go-ethereum/core/types"
)

func init() {
	ours, _ := benchBlock()
	otxs := ours.Transactions()
	gtxs := make([]*gtypes.Transaction, len(otxs))
	for i, tx := range otxs {
		bin, _ := tx.MarshalBinary()
		gtxs[i] = new(gtypes.Transaction)
		if err := gtxs[i].UnmarshalBinary(bin); err != nil {
			panic("peerbench tx: geth rejects our transaction: " + err.Error())
		}
		if gtxs[i].Hash() != [32]byte(tx.Hash()) {
			panic("peerbench tx: hashes differ")
		}
	}
	obin := make([][]byte, len(otxs))
	for i, tx := range otxs {
		obin[i], _ = tx.MarshalBinary()
	}
	osigner := types.LatestSigner(benchChainID)
	gsigner := gtypes.LatestSignerForChainID(big.NewInt(benchChainID))

	// Hash and sender are cached in the transaction on both sides, so every
	// iteration starts from a fresh decode of the same bytes; the decode
	// cost is measured on its own in the first case.
	register(Case{
		Area: "tx", Name: "decode 200 txs (binary)",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, bin := range obin {
					if _, err := types.DecodeTx(bin); err != nil {
						b.Fatal(err)
					}
				}
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, bin := range obin {
					tx := new(gtypes.Transaction)
					if err := tx.UnmarshalBinary(bin); err != nil {
						b.Fatal(err)
					}
				}
			}
		},
	}, Case{
		Area: "tx", Name: "decode+hash 200 txs",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, bin := range obin {
					tx, _ := types.DecodeTx(bin)
					tx.Hash()
				}
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, bin := range obin {
					tx := new(gtypes.Transaction)
					tx.UnmarshalBinary(bin)
					tx.Hash()
				}
			}
		},
	}, Case{
		Area: "tx", Name: "decode+sender 200 txs",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, bin := range obin {
					tx, _ := types.DecodeTx(bin)
					if _, err := osigner.Sender(tx); err != nil {
						b.Fatal(err)
					}
				}
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, bin := range obin {
					tx := new(gtypes.Transaction)
					tx.UnmarshalBinary(bin)
					if _, err := gtypes.Sender(gsigner, tx); err != nil {
						b.Fatal(err)
					}
				}
			}
		},
	})
}
