package main

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381"
	"github.com/chaind/chaind/evm/precompile/kzg"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
)

// BLS12-381 (EIP-2537) and KZG point evaluation (EIP-4844): our pure-Go
// curve against go-ethereum's precompiles (gnark-crypto, and gnark or
// c-kzg for KZG). Inputs are built with our own operations; every case
// first checks that both sides return the same bytes.

const (
	blsG1Gen = "0000000000000000000000000000000017f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb" +
		"0000000000000000000000000000000008b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"
	blsG2Gen = "00000000000000000000000000000000024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8" +
		"0000000000000000000000000000000013e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" +
		"000000000000000000000000000000000ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801" +
		"000000000000000000000000000000000606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
	// The EIP-4844 example point evaluation (a real blob opening).
	kzgExample = "01e798154708fe7789429634053cbf9f99b619f9f084048927333fce637f549b564c0a11a0f704f4fc3e8acfe0f8245f0ad1347b378fbf96e206da11a5d3630624d25032e67a7e6a4910df5834b8fe70e6bcfeeac0352434196bdf4b2485d5a18f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7873033e038326e87ed3e1276fd140253fa08e9fc25fb2d9a98527fc22a2c9612fbeafdad446cbc7bcdbdcd780af2c16a"
)

var blsOrder, _ = new(big.Int).SetString("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16)

func blsHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func scalar32(k *big.Int) []byte {
	out := make([]byte, 32)
	new(big.Int).Mod(k, blsOrder).FillBytes(out)
	return out
}

// blsMul returns k·P through our MSM precompile (P encoded, k < r).
func blsMul(msm func([]byte) ([]byte, error), p []byte, k *big.Int) []byte {
	out, err := msm(append(bytes.Clone(p), scalar32(k)...))
	if err != nil {
		panic(err)
	}
	return out
}

func gethPrecompile(set vm.PrecompiledContracts, addr byte) vm.PrecompiledContract {
	c, ok := set[common.BytesToAddress([]byte{addr})]
	if !ok {
		panic("peerbench: geth has no precompile at address " + hex.EncodeToString([]byte{addr}))
	}
	return c
}

func blsCase(name string, addr byte, ours func([]byte) ([]byte, error), in []byte, set vm.PrecompiledContracts) Case {
	g := gethPrecompile(set, addr)
	a, errA := ours(in)
	b, errB := g.Run(in)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		panic("peerbench: bls/" + name + ": results differ from geth")
	}
	return Case{
		Area: "bls", Name: name,
		Ours: func(bb *testing.B) {
			for i := 0; i < bb.N; i++ {
				if _, err := ours(in); err != nil {
					bb.Fatal(err)
				}
			}
		},
		Geth: func(bb *testing.B) {
			for i := 0; i < bb.N; i++ {
				if _, err := g.Run(in); err != nil {
					bb.Fatal(err)
				}
			}
		},
	}
}

func init() {
	g1 := blsHex(blsG1Gen)
	g2 := blsHex(blsG2Gen)
	a := big.NewInt(0x1234567)
	a.Lsh(a, 200).Add(a, big.NewInt(99))
	b := new(big.Int).Lsh(big.NewInt(0x7654321), 190)

	// Pairing with two pairs whose product is 1: e(aG1, bG2)·e(-abG1, G2).
	aG1 := blsMul(bls12381.G1MSM, g1, a)
	bG2 := blsMul(bls12381.G2MSM, g2, b)
	ab := new(big.Int).Mul(a, b)
	negAbG1 := blsMul(bls12381.G1MSM, g1, new(big.Int).Sub(blsOrder, ab.Mod(ab, blsOrder)))
	pairing := append(append(append(bytes.Clone(aG1), bG2...), negAbG1...), g2...)

	msm := func(n int, p []byte, step int64) []byte {
		var in []byte
		k := new(big.Int).Set(a)
		q := p
		for i := 0; i < n; i++ {
			in = append(in, q...)
			in = append(in, scalar32(k)...)
			k.Mul(k, big.NewInt(step)).Add(k, big.NewInt(int64(i)))
			q = blsMul(func(x []byte) ([]byte, error) {
				if len(p) == 128 {
					return bls12381.G1MSM(x)
				}
				return bls12381.G2MSM(x)
			}, q, big.NewInt(3))
		}
		return in
	}

	fp := make([]byte, 64)
	copy(fp[16:], scalar32(a)[:])
	fp2 := append(bytes.Clone(fp), fp...)
	fp2[127] ^= 0x5a

	prague := vm.PrecompiledContractsPrague
	register(
		blsCase("g1add", 0x0b, bls12381.G1Add, append(bytes.Clone(aG1), g1...), prague),
		blsCase("g2add", 0x0d, bls12381.G2Add, append(bytes.Clone(bG2), g2...), prague),
		blsCase("g1msm 1", 0x0c, bls12381.G1MSM, msm(1, g1, 7), prague),
		blsCase("g1msm 32", 0x0c, bls12381.G1MSM, msm(32, g1, 7), prague),
		blsCase("g2msm 1", 0x0e, bls12381.G2MSM, msm(1, g2, 5), prague),
		blsCase("g2msm 32", 0x0e, bls12381.G2MSM, msm(32, g2, 5), prague),
		blsCase("pairing 2 pairs", 0x0f, bls12381.Pairing, pairing, prague),
		blsCase("map fp to g1", 0x10, bls12381.MapFpToG1, fp, prague),
		blsCase("map fp2 to g2", 0x11, bls12381.MapFp2ToG2, fp2, prague),
		blsCase("kzg point evaluation", 0x0a, kzg.PointEvaluation, blsHex(kzgExample), vm.PrecompiledContractsCancun),
	)
}
