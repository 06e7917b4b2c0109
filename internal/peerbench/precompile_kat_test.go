package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/ethereum/go-ethereum/core/vm"
)

// TestWriteKATs writes known-answer files for evm/precompile/testdata with
// outputs computed by go-ethereum (an independent implementation), so that
// chaind's own tests can check BN254 and P256VERIFY without geth:
//
//	go test -run TestWriteKATs -write-kats ../../evm/precompile/testdata
var writeKATs = flag.String("write-kats", "", "directory to write precompile KAT files into")

type katCase struct {
	name string
	in   []byte
}

func TestWriteKATs(t *testing.T) {
	if *writeKATs == "" {
		t.Skip("set -write-kats DIR to regenerate the KAT files")
	}
	write := func(file, header string, addr uint16, fork string, set vm.PrecompiledContracts, cases []katCase) {
		var b strings.Builder
		b.WriteString(header)
		for _, c := range cases {
			p := set[common20(addr)]
			gas := p.RequiredGas(c.in)
			out, err := p.Run(c.in)
			res := "ok"
			if err != nil {
				res, out = "err", nil
			}
			fmt.Fprintf(&b, "%#02x %s %s | %s | %s | %d | %s\n", addr, fork, c.name, hexOrDash(c.in), hexOrDash(out), gas, res)
		}
		if err := os.WriteFile(filepath.Join(*writeKATs, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bn := bnKATCases()
	hdr := "# BN254 (EIP-196/197) known answers; outputs computed with go-ethereum v1.16.9.\n# Format as in basic.txt.\n"
	var all strings.Builder
	_ = all
	write("bn254_add.txt", hdr, 0x06, "Istanbul", vm.PrecompiledContractsIstanbul, bn.add)
	write("bn254_mul.txt", hdr, 0x07, "Istanbul", vm.PrecompiledContractsIstanbul, bn.mul)
	write("bn254_pairing.txt", hdr, 0x08, "Istanbul", vm.PrecompiledContractsIstanbul, bn.pairing)
	write("bn254_byzantium.txt", "# BN254 under Byzantium gas (EIP-196/197 original prices).\n# Format as in basic.txt.\n", 0x08, "Byzantium", vm.PrecompiledContractsByzantium, bn.pairing[:3])
	write("p256verify.txt", "# P256VERIFY (EIP-7951) known answers: valid signatures, both s and n-s,\n# and invalid r/s/key/length cases; outputs computed with go-ethereum v1.16.9.\n# Format as in basic.txt.\n", 0x100, "Osaka", vm.PrecompiledContractsOsaka, p256KATCases())
}

func hexOrDash(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return hex.EncodeToString(b)
}

type bnCases struct{ add, mul, pairing []katCase }

func bnKATCases() bnCases {
	mul := vm.PrecompiledContractsOsaka[common20(7)]
	point := func(seed byte) []byte {
		k := crypto.Keccak256([]byte{seed, 'p'})
		p, err := mul.Run(append(append([]byte{}, bnG1...), k[:]...))
		if err != nil {
			panic(err)
		}
		return p
	}
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	p1, p2 := point(1), point(2)
	pm := mustHex("30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47")
	zero64 := make([]byte, 64)
	var c bnCases
	c.add = []katCase{
		{"empty", nil},
		{"g-plus-g", cat(bnG1, bnG1)},
		{"p1-plus-p2", cat(p1, p2)},
		{"p-plus-neg-p", cat(p1, bnNegG1(p1))},
		{"inf-plus-p", cat(zero64, p2)},
		{"truncated", cat(p1, p2[:40])},
		{"extra-bytes", cat(p1, p2, []byte{1, 2, 3})},
		{"x-equals-p", cat(pm, make([]byte, 32), p2)},
		{"not-on-curve", cat(bnG1[:32], word(big.NewInt(3)), p2)},
	}
	k := crypto.Keccak256([]byte("scalar"))
	r := mustHex("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001")
	c.mul = []katCase{
		{"g-times-2", cat(bnG1, word(big.NewInt(2)))},
		{"p1-times-k", cat(p1, k[:])},
		{"p1-times-zero", cat(p1, make([]byte, 32))},
		{"p1-times-r", cat(p1, r)},
		{"p1-times-max", cat(p1, mustHex(strings.Repeat("ff", 32)))},
		{"inf-times-k", cat(zero64, k[:])},
		{"short-scalar", cat(p2, k[:7])},
		{"empty", nil},
		{"y-equals-p", cat(bnG1[:32], pm, k[:])},
	}
	tw := twistPointsOutsideG2(1)[0]
	g2n := bnNegG2(bnG2)
	c.pairing = []katCase{
		{"empty", nil},
		{"e(g,h)e(-g,h)", cat(bnG1, bnG2, bnNegG1(bnG1), bnG2)},
		{"e(g,h)", cat(bnG1, bnG2)},
		{"e(p1,h)e(p1,-h)", cat(p1, bnG2, p1, g2n)},
		{"e(p1,h)e(p2,h)", cat(p1, bnG2, p2, bnG2)},
		{"inf-g1", cat(zero64, bnG2)},
		{"inf-g2", cat(p1, make([]byte, 128))},
		{"g2-not-in-subgroup", cat(bnG1, tw)},
		{"g2-not-in-subgroup-with-inf-g1", cat(zero64, tw)},
		{"length-191", cat(bnG1, bnG2)[:191]},
		{"g2-coordinate-p", cat(bnG1, pm, bnG2[32:])},
	}
	return c
}

func p256KATCases() []katCase {
	curve := elliptic.P256()
	n := curve.Params().N
	d := new(big.Int).SetBytes(mustHex("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"))
	x, y := curve.ScalarBaseMult(d.Bytes())
	key := &ecdsa.PrivateKey{PublicKey: ecdsa.PublicKey{Curve: curve, X: x, Y: y}, D: d}
	h := crypto.Keccak256([]byte("chaind p256 kat"))
	// A fixed nonce keeps the file reproducible: sign by hand.
	kNonce := new(big.Int).SetBytes(mustHex("a6e3c57dd01abe90086538398355dd4c3b17aa873382b0f24d6129493d8aad60"))
	rx, _ := curve.ScalarBaseMult(kNonce.Bytes())
	r := new(big.Int).Mod(rx, n)
	e := new(big.Int).SetBytes(h[:])
	s := new(big.Int).Mul(r, key.D)
	s.Add(s, e)
	s.Mul(s, new(big.Int).ModInverse(kNonce, n))
	s.Mod(s, n)
	in := func(hash []byte, r, s, qx, qy *big.Int) []byte {
		return append(append(append(append(append([]byte{}, hash...), word(r)...), word(s)...), word(qx)...), word(qy)...)
	}
	good := in(h[:], r, s, x, y)
	badHash := append([]byte{}, good...)
	badHash[0] ^= 1
	p := curve.Params().P
	return []katCase{
		{"valid", good},
		{"valid-high-s", in(h[:], r, new(big.Int).Sub(n, s), x, y)},
		{"wrong-hash", badHash},
		{"r-zero", in(h[:], big.NewInt(0), s, x, y)},
		{"s-zero", in(h[:], r, big.NewInt(0), x, y)},
		{"r-equals-n", in(h[:], n, s, x, y)},
		{"s-equals-n", in(h[:], r, n, x, y)},
		{"key-not-on-curve", in(h[:], r, s, x, new(big.Int).Add(y, big.NewInt(1)))},
		{"key-infinity", in(h[:], r, s, big.NewInt(0), big.NewInt(0))},
		{"key-x-equals-p", in(h[:], r, s, p, y)},
		{"length-159", good[:159]},
		{"length-161", append(append([]byte{}, good...), 0)},
		{"empty", nil},
	}
}
