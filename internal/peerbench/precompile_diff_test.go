package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/chaind/chaind/evm/precompile"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/ethereum/go-ethereum/core/vm"
)

// Differential testing of evm/precompile against go-ethereum's core/vm:
// for random and edge-case inputs both must agree on RequiredGas, on
// whether Run fails, and on the output.
//
//	go test -run TestPrecompileDiff -precompile-diff-time 2m
//	go test -fuzz FuzzPrecompileDiff -fuzztime 2m

var diffTime = flag.Duration("precompile-diff-time", 5*time.Second, "how long TestPrecompileDiff generates inputs")

type forkPair struct {
	name string
	ours *precompile.Set
	geth vm.PrecompiledContracts
}

func diffForks() []forkPair {
	return []forkPair{
		{"Homestead", precompile.Homestead, vm.PrecompiledContractsHomestead},
		{"Byzantium", precompile.Byzantium, vm.PrecompiledContractsByzantium},
		{"Istanbul", precompile.Istanbul, vm.PrecompiledContractsIstanbul},
		{"Berlin", precompile.Berlin, vm.PrecompiledContractsBerlin},
		{"Cancun", precompile.Cancun, vm.PrecompiledContractsCancun},
		{"Prague", precompile.Prague, vm.PrecompiledContractsPrague},
		{"Osaka", precompile.Osaka, vm.PrecompiledContractsOsaka},
	}
}

// maxDiffGas bounds the calls whose Run is compared: anything dearer is
// unaffordable in a block and only its gas is compared.
const maxDiffGas = 50_000_000

type diffStats struct{ compared, gasOnly, skipped int }

// diffOne compares one input at one address under one fork.
func diffOne(t testing.TB, fp forkPair, addr uint16, in []byte, st *diffStats) {
	oa, ga := precompileAddr(addr)
	ours, ok1 := fp.ours.Get(oa)
	geth, ok2 := fp.geth[ga]
	if ok1 != ok2 {
		t.Fatalf("%s %#x: present ours=%v geth=%v", fp.name, addr, ok1, ok2)
	}
	if !ok1 {
		return
	}
	og, gg := ours.RequiredGas(in), geth.RequiredGas(in)
	if og != gg {
		t.Fatalf("%s %#x gas: ours %d geth %d\ninput %x", fp.name, addr, og, gg, in)
	}
	if og > maxDiffGas {
		st.gasOnly++
		return
	}
	oo, oe := ours.Run(in)
	if errors.Is(oe, precompile.ErrNotImplemented) {
		st.skipped++
		return
	}
	go_, ge := geth.Run(in)
	if (oe != nil) != (ge != nil) {
		t.Fatalf("%s %#x error: ours %v geth %v\ninput %x", fp.name, addr, oe, ge, in)
	}
	if oe == nil && !bytes.Equal(oo, go_) {
		t.Fatalf("%s %#x output:\n ours %x\n geth %x\ninput %x", fp.name, addr, oo, go_, in)
	}
	st.compared++
}

// inputGen produces structured random inputs per precompile.
type inputGen struct {
	r      *rand.Rand
	bnPts  [][]byte // valid G1 points
	bnG2s  [][]byte // valid G2 points
	sigs   [][]byte // valid ecrecover inputs
	p256   [][]byte // valid P256VERIFY inputs
	blake  []byte
	twists [][]byte // twist points outside G2
}

func newInputGen(seed int64) *inputGen {
	g := &inputGen{r: rand.New(rand.NewSource(seed))}
	g.sigs = ecrecoverInputs()
	mul := vm.PrecompiledContractsOsaka[common20(7)]
	for i := 1; i <= 16; i++ {
		k := crypto.Keccak256([]byte{byte(i)})
		p, err := mul.Run(append(append([]byte{}, bnG1...), k[:]...))
		if err != nil {
			panic(err)
		}
		g.bnPts = append(g.bnPts, p)
	}
	g.bnG2s = append(g.bnG2s, bnG2, bnNegG2(bnG2))
	g.twists = twistPointsOutsideG2(4)
	for i := 0; i < 8; i++ {
		g.p256 = append(g.p256, p256Input())
	}
	g.blake = mustHex("0000000c48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b61626300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000300000000000000000000000000000001")
	return g
}

func common20(a uint16) [20]byte {
	var x [20]byte
	x[18], x[19] = byte(a>>8), byte(a)
	return x
}

func (g *inputGen) bytes(n int) []byte {
	b := make([]byte, n)
	g.r.Read(b)
	return b
}

// mutate flips, truncates or extends an input now and then.
func (g *inputGen) mutate(in []byte) []byte {
	out := append([]byte{}, in...)
	switch g.r.Intn(8) {
	case 0:
		if len(out) > 0 {
			out[g.r.Intn(len(out))] ^= byte(1 << g.r.Intn(8))
		}
	case 1:
		if len(out) > 0 {
			out = out[:g.r.Intn(len(out))]
		}
	case 2:
		out = append(out, g.bytes(g.r.Intn(40))...)
	case 3:
		if len(out) >= 32 {
			i := 32 * g.r.Intn(len(out)/32)
			copy(out[i:], edgeWord(g.r))
		}
	}
	return out
}

var fieldEdges = []string{
	"30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47", // bn254 p
	"30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd46",
	"30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", // bn254 r
	"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", // secp256k1 n
	"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", // p256 p
	"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", // p256 n
	"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000001",
}

func edgeWord(r *rand.Rand) []byte { return mustHex(fieldEdges[r.Intn(len(fieldEdges))]) }

func (g *inputGen) pick(list [][]byte) []byte { return list[g.r.Intn(len(list))] }

func (g *inputGen) g1() []byte {
	switch g.r.Intn(6) {
	case 0:
		return make([]byte, 64)
	case 1:
		return g.bytes(64)
	case 2:
		return bnNegG1(g.pick(g.bnPts))
	default:
		return g.pick(g.bnPts)
	}
}

func (g *inputGen) g2() []byte {
	switch g.r.Intn(8) {
	case 0:
		return make([]byte, 128)
	case 1:
		return g.bytes(128)
	case 2:
		return g.pick(g.twists)
	default:
		return g.pick(g.bnG2s)
	}
}

func (g *inputGen) modexp() []byte {
	lens := []uint64{0, 1, 2, 31, 32, 33, 64, 65, 127, 128, 200, 256, 511, 512, 1024, 1025}
	pickLen := func() []byte {
		w := make([]byte, 32)
		switch g.r.Intn(12) {
		case 0:
			copy(w, g.bytes(32))
		case 1:
			binary.BigEndian.PutUint64(w[24:], 1<<uint(g.r.Intn(64)))
		case 2:
			w[g.r.Intn(24)] = 1
		default:
			binary.BigEndian.PutUint64(w[24:], lens[g.r.Intn(len(lens))])
		}
		return w
	}
	in := append(append(pickLen(), pickLen()...), pickLen()...)
	bl := new(big.Int).SetBytes(in[0:32])
	el := new(big.Int).SetBytes(in[32:64])
	ml := new(big.Int).SetBytes(in[64:96])
	total := new(big.Int).Add(bl, el)
	total.Add(total, ml)
	n := 0
	if total.IsInt64() && total.Int64() < 4000 {
		n = int(total.Int64())
		if g.r.Intn(4) == 0 {
			n = g.r.Intn(n + 1) // truncated
		}
	} else {
		n = g.r.Intn(200)
	}
	data := g.bytes(n)
	if g.r.Intn(3) == 0 && el.IsInt64() && el.Int64() <= 32 && bl.IsInt64() && int(bl.Int64()+el.Int64()) <= n {
		// small exponents are common in practice
		for i := int(bl.Int64()); i < int(bl.Int64()+el.Int64()); i++ {
			data[i] = 0
		}
		if el.Int64() > 0 {
			data[bl.Int64()+el.Int64()-1] = byte(g.r.Intn(256))
		}
	}
	return append(in, data...)
}

func (g *inputGen) input(addr uint16) []byte {
	switch addr {
	case 0x01:
		if g.r.Intn(3) == 0 {
			return g.mutate(g.bytes(g.r.Intn(160)))
		}
		return g.mutate(g.pick(g.sigs))
	case 0x05:
		return g.modexp()
	case 0x06:
		return g.mutate(append(g.g1(), g.g1()...))
	case 0x07:
		k := g.bytes(32)
		if g.r.Intn(4) == 0 {
			k = edgeWord(g.r)
		}
		return g.mutate(append(g.g1(), k...))
	case 0x08:
		n := g.r.Intn(4)
		var in []byte
		for i := 0; i < n; i++ {
			in = append(in, g.g1()...)
			in = append(in, g.g2()...)
		}
		if g.r.Intn(5) == 0 {
			return g.mutate(in)
		}
		return in
	case 0x09:
		in := append([]byte{}, g.blake...)
		binary.BigEndian.PutUint32(in, uint32(g.r.Intn(64)))
		copy(in[4:212], g.bytes(208))
		in[212] = byte(g.r.Intn(2))
		if g.r.Intn(4) == 0 {
			return g.mutate(in)
		}
		return in
	case 0x100:
		return g.mutate(g.pick(g.p256))
	default:
		return g.mutate(g.bytes(g.r.Intn(600)))
	}
}

var diffAddrs = []uint16{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x100}

func TestPrecompileDiff(t *testing.T) {
	g := newInputGen(time.Now().UnixNano())
	forks := diffForks()
	var st diffStats
	deadline := time.Now().Add(*diffTime)
	n := 0
	for time.Now().Before(deadline) {
		addr := diffAddrs[g.r.Intn(len(diffAddrs))]
		in := g.input(addr)
		for _, fp := range forks {
			diffOne(t, fp, addr, in, &st)
		}
		n++
	}
	t.Logf("%d inputs in %v: %d runs compared, %d gas-only, %d skipped (not implemented)", n, *diffTime, st.compared, st.gasOnly, st.skipped)
}

func FuzzPrecompileDiff(f *testing.F) {
	g := newInputGen(1)
	for _, a := range diffAddrs {
		for i := 0; i < 4; i++ {
			f.Add(a, g.input(a))
		}
	}
	forks := diffForks()
	f.Fuzz(func(t *testing.T, addr uint16, in []byte) {
		addr = diffAddrs[int(addr)%len(diffAddrs)]
		var st diffStats
		for _, fp := range forks {
			diffOne(t, fp, addr, in, &st)
		}
	})
}

// bnNegG2 negates a G2 point in EIP-197 encoding.
func bnNegG2(q []byte) []byte {
	out := append([]byte{}, q...)
	for _, off := range []int{64, 96} {
		y := new(big.Int).SetBytes(q[off : off+32])
		if y.Sign() != 0 {
			y.Sub(bnP, y)
		}
		copy(out[off:off+32], word(y))
	}
	return out
}

// twistPointsOutsideG2 finds points on the BN254 twist y² = x³ + 3/(9+i)
// that are (with overwhelming probability) not in G2, using math/big.
func twistPointsOutsideG2(n int) [][]byte {
	p := bnP
	type fp2 struct{ a, b *big.Int } // a + b·i
	mod := func(x *big.Int) *big.Int { return x.Mod(x, p) }
	mul := func(x, y fp2) fp2 {
		a := new(big.Int).Mul(x.a, y.a)
		a.Sub(a, new(big.Int).Mul(x.b, y.b))
		b := new(big.Int).Mul(x.a, y.b)
		b.Add(b, new(big.Int).Mul(x.b, y.a))
		return fp2{mod(a), mod(b)}
	}
	exp := func(x fp2, e *big.Int) fp2 {
		r := fp2{big.NewInt(1), big.NewInt(0)}
		for i := e.BitLen() - 1; i >= 0; i-- {
			r = mul(r, r)
			if e.Bit(i) == 1 {
				r = mul(r, x)
			}
		}
		return r
	}
	// 3/(9+i) = 3(9-i)/82
	inv82 := new(big.Int).ModInverse(big.NewInt(82), p)
	bt := fp2{mod(new(big.Int).Mul(big.NewInt(27), inv82)), mod(new(big.Int).Mul(big.NewInt(-3), inv82))}
	// Square roots in Fp2 with p ≡ 3 mod 4 (Adj–Rodríguez-Henríquez).
	sqrt := func(a fp2) (fp2, bool) {
		e1 := new(big.Int).Sub(p, big.NewInt(3))
		e1.Rsh(e1, 2)
		a1 := exp(a, e1)
		alpha := mul(mul(a1, a1), a)
		x0 := mul(a1, a)
		var r fp2
		if alpha.a.Cmp(new(big.Int).Sub(p, big.NewInt(1))) == 0 && alpha.b.Sign() == 0 {
			r = mul(fp2{big.NewInt(0), big.NewInt(1)}, x0)
		} else {
			e2 := new(big.Int).Sub(p, big.NewInt(1))
			e2.Rsh(e2, 1)
			b := exp(fp2{mod(new(big.Int).Add(alpha.a, big.NewInt(1))), alpha.b}, e2)
			r = mul(b, x0)
		}
		chk := mul(r, r)
		return r, chk.a.Cmp(a.a) == 0 && chk.b.Cmp(a.b) == 0
	}
	var out [][]byte
	for k := int64(1); len(out) < n && k < 1000; k++ {
		x := fp2{big.NewInt(k), big.NewInt(k + 1)}
		rhs := mul(mul(x, x), x)
		rhs = fp2{mod(rhs.a.Add(rhs.a, bt.a)), mod(rhs.b.Add(rhs.b, bt.b))}
		y, ok := sqrt(rhs)
		if !ok {
			continue
		}
		out = append(out, bytes.Join([][]byte{word(x.b), word(x.a), word(y.b), word(y.a)}, nil))
	}
	if len(out) < n {
		panic(fmt.Sprint("found only ", len(out), " twist points"))
	}
	return out
}

var _ = ecdsa.Verify
var _ = elliptic.P256
