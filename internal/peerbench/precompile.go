package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"testing"

	"github.com/chaind/chaind/evm/precompile"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	bn256 "github.com/ethereum/go-ethereum/crypto/bn256/cloudflare"
)

// Precompile workloads: each case calls RequiredGas and Run on the same
// input through chaind's evm/precompile and go-ethereum's core/vm sets.

func precompileAddr(a uint16) (types.Address, common.Address) {
	var ours types.Address
	ours[18], ours[19] = byte(a>>8), byte(a)
	return ours, common.Address(ours)
}

func precompileCase(name string, addr uint16, inputs ...[]byte) Case {
	oa, ga := precompileAddr(addr)
	ours, ok := precompile.Osaka.Get(oa)
	if !ok {
		panic(fmt.Sprintf("no precompile %#x", addr))
	}
	geth := vm.PrecompiledContractsOsaka[ga]
	return Case{
		Area: "precompile", Name: name,
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				in := inputs[i%len(inputs)]
				_ = ours.RequiredGas(in)
				if _, err := ours.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				in := inputs[i%len(inputs)]
				_ = geth.RequiredGas(in)
				if _, err := geth.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		},
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func word(v *big.Int) []byte {
	b := make([]byte, 32)
	v.FillBytes(b)
	return b
}

// BN254 generators in EIP-196/197 encoding.
var (
	bnG1 = mustHex("0000000000000000000000000000000000000000000000000000000000000001" +
		"0000000000000000000000000000000000000000000000000000000000000002")
	bnG2 = mustHex("198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" +
		"1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" +
		"090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" +
		"12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa")
	bnP, _ = new(big.Int).SetString("30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47", 16)
)

func bnNegG1(p []byte) []byte {
	y := new(big.Int).SetBytes(p[32:64])
	if y.Sign() != 0 {
		y.Sub(bnP, y)
	}
	return append(append([]byte{}, p[:32]...), word(y)...)
}

func ecrecoverInputs() [][]byte {
	var out [][]byte
	for _, c := range cryptoSigRing() {
		in := make([]byte, 128)
		copy(in, c.digest[:])
		in[63] = c.sig[64] + 27
		copy(in[64:], c.sig[:64])
		out = append(out, in)
	}
	return out
}

// modexpInput builds a modexp call with pseudo-random base and an odd
// modulus of the given byte lengths, in the style of the EIP-2565 test
// inputs (square, cube, F4 and full-length exponents).
func modexpInput(seed string, baseLen, modLen int, exp []byte) []byte {
	fill := func(n int, tag string) []byte {
		var out []byte
		for i := 0; len(out) < n; i++ {
			h := crypto.Keccak256([]byte(seed), []byte(tag), []byte{byte(i)})
			out = append(out, h[:]...)
		}
		return out[:n]
	}
	base := fill(baseLen, "b")
	mod := fill(modLen, "m")
	mod[0] |= 0x80
	mod[len(mod)-1] |= 1
	in := make([]byte, 96)
	binary.BigEndian.PutUint64(in[24:], uint64(baseLen))
	binary.BigEndian.PutUint64(in[56:], uint64(len(exp)))
	binary.BigEndian.PutUint64(in[88:], uint64(modLen))
	in = append(in, base...)
	in = append(in, exp...)
	return append(in, mod...)
}

func init() {
	// BN254: a valid two-pair pairing check (e(P,Q)·e(-P,Q) = 1) and a
	// scalar multiplication by a full 256-bit scalar.
	pairing2 := append(append(append(append([]byte{}, bnG1...), bnG2...), bnNegG1(bnG1)...), bnG2...)
	k := crypto.Keccak256([]byte("peerbench bn254 scalar"))
	mulIn := append(append([]byte{}, bnG1...), k[:]...)
	// Use a non-generator base point: 2^k·G computed by geth so both sides
	// start from the same affine point.
	base, err := vm.PrecompiledContractsOsaka[common.BytesToAddress([]byte{7})].Run(mulIn)
	if err != nil {
		panic(err)
	}
	mulIn2 := append(append([]byte{}, base...), k[:]...)
	addIn := append(append([]byte{}, bnG1...), base...)

	// The pair above cancels inside the Miller loop, so both sides skip
	// the hard part of the final exponentiation; e(6P,7Q)·e(-42P,Q) = 1
	// needs all of it.
	p6 := new(bn256.G1).ScalarBaseMult(big.NewInt(6)).Marshal()
	q7 := new(bn256.G2).ScalarBaseMult(big.NewInt(7)).Marshal()
	p42 := new(bn256.G1).ScalarBaseMult(big.NewInt(42)).Marshal()
	pairingFull := append(append(append(append([]byte{}, p6...), q7...), bnNegG1(p42)...), bnG2...)
	if out, err := vm.PrecompiledContractsOsaka[common.BytesToAddress([]byte{8})].Run(pairingFull); err != nil || out[31] != 1 {
		panic(fmt.Sprintf("full pairing input does not check: %x %v", out, err))
	}

	blake12 := mustHex("0000000c48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b61626300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000300000000000000000000000000000001")

	register(
		precompileCase("ecrecover", 0x01, ecrecoverInputs()...),
		precompileCase("sha256 1KB", 0x02, make([]byte, 1024)),
		precompileCase("bn254 add", 0x06, addIn),
		precompileCase("bn254 mul", 0x07, mulIn, mulIn2),
		precompileCase("bn254 pairing 2 pairs", 0x08, pairing2),
		precompileCase("bn254 pairing 2 pairs full", 0x08, pairingFull),
		precompileCase("blake2f 12 rounds", 0x09, blake12),
	)
	f4 := []byte{0x01, 0x00, 0x01}
	for _, n := range []int{64, 128, 256, 512} {
		full := modexpInput(fmt.Sprint("e", n), n, n, nil)[96 : 96+n]
		register(
			precompileCase(fmt.Sprintf("modexp %d square", n), 0x05, modexpInput(fmt.Sprint("s", n), n, n, []byte{2})),
			precompileCase(fmt.Sprintf("modexp %d F4", n), 0x05, modexpInput(fmt.Sprint("f", n), n, n, f4)),
			precompileCase(fmt.Sprintf("modexp %d full exp", n), 0x05, modexpInput(fmt.Sprint("x", n), n, n, full)),
		)
	}
	register(precompileCase("p256verify", 0x100, p256Input()))
}

func p256Input() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	h := crypto.Keccak256([]byte("p256"))
	r, s, err := ecdsa.Sign(rand.Reader, key, h[:])
	if err != nil {
		panic(err)
	}
	return append(append(append(append(h[:], word(r)...), word(s)...), word(key.X)...), word(key.Y)...)
}
