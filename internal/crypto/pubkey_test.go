package crypto

import (
	"math/rand/v2"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

func TestPublicKeyMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	nMinus1 := curveOrder
	nMinus1[31]--
	half := curveHalfOrder
	keys := [][32]byte{{31: 1}, {31: 2}, {31: 3}, nMinus1, half}
	for i := 0; i < 500; i++ {
		var b [32]byte
		fillRand(rng, b[:])
		keys = append(keys, b)
	}
	for _, b := range keys {
		k, err := ToPrivateKey(b[:])
		if err != nil {
			continue
		}
		want := k.PubKey()
		if got := PublicKey(k); !got.IsEqual(want) {
			t.Fatalf("PublicKey(%x) = %x, want %x", b, got.SerializeCompressed(), want.SerializeCompressed())
		}
		if PrivkeyToAddress(k) != PubkeyToAddress(want) {
			t.Fatalf("PrivkeyToAddress(%x) disagrees", b)
		}
	}
	var zero secp256k1.ModNScalar
	if _, _, ok := scalarBaseMul(&zero); ok {
		t.Fatal("0·G reported finite")
	}
}

func BenchmarkPublicKey(b *testing.B) {
	seed := Keccak256([]byte("bench key"))
	k, _ := ToPrivateKey(seed[:])
	b.Run("ours", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			PublicKey(k)
		}
	})
	b.Run("decred", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k.PubKey()
		}
	})
}
