// Package devload makes the workloads chaind's node benchmarks and crash
// tests run: funded sender keys, pre-signed ETH and ERC-20 transfers, a
// minimal ERC-20 token, and whole chains of such blocks built in process.
package devload

import (
	"encoding/binary"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Function selectors and the Transfer event topic of ERC-20.
var (
	SelTransfer   = [4]byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	SelBalanceOf  = [4]byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
	TransferTopic = types.Hash(crypto.Keccak256([]byte("Transfer(address,address,uint256)")))
)

// TokenSupply is what the deployer of the token holds at first.
var TokenSupply = new(uint256.Int).Lsh(uint256.NewInt(1), 200)

// asm is a two-pass assembler just big enough for the token: opcodes,
// pushes and jumps to labels (always PUSH2, so sizes are known up front).
type asm struct {
	code   []byte
	labels map[string]int
	fixups map[int]string
}

func newAsm() *asm { return &asm{labels: map[string]int{}, fixups: map[int]string{}} }

func (a *asm) op(ops ...byte) *asm { a.code = append(a.code, ops...); return a }

// push emits the shortest PUSHn of v (PUSH1 for zero).
func (a *asm) push(v []byte) *asm {
	for len(v) > 1 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) == 0 {
		v = []byte{0}
	}
	a.code = append(a.code, 0x5f+byte(len(v)))
	a.code = append(a.code, v...)
	return a
}

func (a *asm) pushN(n uint64) *asm { return a.push(binary.BigEndian.AppendUint64(nil, n)) }

func (a *asm) pushLabel(name string) *asm {
	a.code = append(a.code, 0x61, 0, 0) // PUSH2
	a.fixups[len(a.code)-2] = name
	return a
}

func (a *asm) label(name string) *asm {
	a.labels[name] = len(a.code)
	a.code = append(a.code, 0x5b) // JUMPDEST
	return a
}

func (a *asm) bytes() []byte {
	for at, name := range a.fixups {
		pos, ok := a.labels[name]
		if !ok {
			panic("devload: undefined label " + name) // a bug in this file, not bad input
		}
		binary.BigEndian.PutUint16(a.code[at:], uint16(pos))
	}
	return a.code
}

// Opcodes used below.
const (
	opADD, opLT, opEQ, opSUB, opSHR  = 0x01, 0x10, 0x14, 0x03, 0x1c
	opSHA3, opCALLER, opCALLDATALOAD = 0x20, 0x33, 0x35
	opCODECOPY, opMSTORE, opSLOAD    = 0x39, 0x52, 0x54
	opSSTORE, opJUMPI, opLOG3        = 0x55, 0x57, 0xa3
	opDUP1, opDUP2, opDUP3, opDUP4   = 0x80, 0x81, 0x82, 0x83
	opSWAP1, opRETURN, opREVERT      = 0x90, 0xf3, 0xfd
)

// balanceSlot leaves keccak256(addr . 0) on the stack with addr on top of
// it: the slot Solidity gives balances[addr] when the mapping is slot 0.
func (a *asm) balanceSlot() *asm {
	return a.pushN(0).op(opMSTORE).pushN(0).pushN(32).op(opMSTORE).pushN(64).pushN(0).op(opSHA3)
}

// TokenRuntime is the deployed code of a minimal ERC-20: transfer and
// balanceOf with Solidity's storage layout and the standard Transfer event.
// It costs about what a compiled token's transfer costs (two SLOADs, two
// SSTOREs, one LOG3).
func TokenRuntime() []byte {
	a := newAsm()
	a.pushN(0).op(opCALLDATALOAD).pushN(0xe0).op(opSHR)
	a.op(opDUP1).push(SelTransfer[:]).op(opEQ).pushLabel("transfer").op(opJUMPI)
	a.op(opDUP1).push(SelBalanceOf[:]).op(opEQ).pushLabel("balanceOf").op(opJUMPI)
	a.label("fail").pushN(0).op(opDUP1, opREVERT)

	a.label("balanceOf")
	a.pushN(4).op(opCALLDATALOAD).balanceSlot().op(opSLOAD)
	a.pushN(0).op(opMSTORE).pushN(32).pushN(0).op(opRETURN)

	a.label("transfer")
	a.op(opCALLER).balanceSlot()   // kf
	a.op(opDUP1, opSLOAD)          // bf kf
	a.pushN(36).op(opCALLDATALOAD) // amt bf kf
	a.op(opDUP1, opDUP3, opLT).pushLabel("fail").op(opJUMPI)
	a.op(opDUP1, opDUP3, opSUB, opDUP4, opSSTORE)           // balances[from] = bf - amt
	a.pushN(4).op(opCALLDATALOAD).balanceSlot()             // kt amt bf kf
	a.op(opDUP1, opSLOAD, opDUP3, opADD, opSWAP1, opSSTORE) // balances[to] += amt
	a.pushN(0).op(opMSTORE)                                 // mem[0] = amt
	a.pushN(4).op(opCALLDATALOAD, opCALLER).push(TransferTopic[:]).pushN(32).pushN(0).op(opLOG3)
	a.pushN(1).pushN(0).op(opMSTORE).pushN(32).pushN(0).op(opRETURN)
	return a.bytes()
}

// TokenInitCode deploys TokenRuntime with TokenSupply credited to the
// deployer.
func TokenInitCode() []byte {
	rt := TokenRuntime()
	a := newAsm()
	a.op(opCALLER).balanceSlot()
	s := TokenSupply.Bytes32()
	a.push(s[:]).op(opSWAP1, opSSTORE)
	// The runtime starts right after this prologue, whose length is fixed
	// once the two PUSH2 operands are placeholders.
	a.code = append(a.code, 0x61, 0, 0) // PUSH2 len
	lenAt := len(a.code) - 2
	a.code = append(a.code, 0x61, 0, 0) // PUSH2 offset
	offAt := len(a.code) - 2
	a.pushN(0).op(opCODECOPY)
	a.code = append(a.code, 0x61, 0, 0) // PUSH2 len
	len2At := len(a.code) - 2
	a.pushN(0).op(opRETURN)
	code := a.bytes()
	binary.BigEndian.PutUint16(code[lenAt:], uint16(len(rt)))
	binary.BigEndian.PutUint16(code[len2At:], uint16(len(rt)))
	binary.BigEndian.PutUint16(code[offAt:], uint16(len(code)))
	return append(code, rt...)
}

// TransferData is the calldata of transfer(to, amount).
func TransferData(to types.Address, amount uint64) []byte {
	d := make([]byte, 4+64)
	copy(d, SelTransfer[:])
	copy(d[4+12:], to[:])
	binary.BigEndian.PutUint64(d[4+64-8:], amount)
	return d
}

// BalanceOfData is the calldata of balanceOf(who).
func BalanceOfData(who types.Address) []byte {
	d := make([]byte, 4+32)
	copy(d, SelBalanceOf[:])
	copy(d[4+12:], who[:])
	return d
}

// TokenSlot is the storage slot of balances[who].
func TokenSlot(who types.Address) types.Hash {
	var buf [64]byte
	copy(buf[12:32], who[:])
	return types.Hash(crypto.Keccak256(buf[:]))
}

// CreateAddress is the address of the contract deployed by from at nonce.
func CreateAddress(from types.Address, nonce uint64) types.Address {
	// rlp([from, nonce]) for nonces below 2^56 needs no general encoder.
	var n []byte
	switch {
	case nonce == 0:
		n = []byte{0x80}
	case nonce < 0x80:
		n = []byte{byte(nonce)}
	default:
		b := binary.BigEndian.AppendUint64(nil, nonce)
		for b[0] == 0 {
			b = b[1:]
		}
		n = append([]byte{0x80 + byte(len(b))}, b...)
	}
	payload := append(append([]byte{0x94}, from[:]...), n...)
	if len(payload) > 55 {
		panic(fmt.Sprintf("devload: unexpected create payload length %d", len(payload)))
	}
	enc := append([]byte{0xc0 + byte(len(payload))}, payload...)
	h := crypto.Keccak256(enc)
	return types.BytesToAddress(h[12:])
}
