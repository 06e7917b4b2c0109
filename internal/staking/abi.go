package staking

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The system contracts speak the Solidity ABI: a call's input is a 4-byte
// selector and head/tail-encoded arguments, results are encoded the same
// way, failures revert with Error(string). Only the types the contracts
// use are supported: address, bool, uint256, int256, string, bytes and
// arrays of address or uint256.

// errBadInput is the revert reason of input that does not decode.
var errBadInput = errors.New("malformed call data")

// selector returns the 4-byte selector of a function signature.
func selector(sig string) [4]byte {
	h := crypto.Keccak256([]byte(sig))
	return [4]byte(h[:4])
}

// topic returns the topic of an event signature.
func topic(sig string) types.Hash { return types.Hash(crypto.Keccak256([]byte(sig))) }

// args decodes call arguments.
type args struct {
	data []byte
	err  error
}

func (a *args) word(i int) []byte {
	if a.err != nil {
		return make([]byte, 32)
	}
	if len(a.data) < (i+1)*32 {
		a.err = errBadInput
		return make([]byte, 32)
	}
	return a.data[i*32 : (i+1)*32]
}

func (a *args) uint(i int) *uint256.Int { return new(uint256.Int).SetBytes32(a.word(i)) }

// int returns a signed argument; negative values come back as nil (the
// "leave unchanged" of editValidator).
func (a *args) int(i int) *uint256.Int {
	v := a.uint(i)
	if v.Sign() < 0 {
		return nil
	}
	return v
}

func (a *args) address(i int) types.Address {
	w := a.word(i)
	for _, b := range w[:12] {
		if b != 0 {
			a.err = errBadInput
		}
	}
	return types.BytesToAddress(w[12:])
}

func (a *args) bytes(i int) []byte {
	off := a.uint(i)
	if a.err != nil {
		return nil
	}
	if !off.IsUint64() || off.Uint64()+32 > uint64(len(a.data)) {
		a.err = errBadInput
		return nil
	}
	o := off.Uint64()
	n := new(uint256.Int).SetBytes32(a.data[o : o+32])
	if !n.IsUint64() || n.Uint64() > uint64(len(a.data))-o-32 {
		a.err = errBadInput
		return nil
	}
	return append([]byte(nil), a.data[o+32:o+32+n.Uint64()]...)
}

func (a *args) string(i int) string { return string(a.bytes(i)) }

// encoder builds ABI-encoded results: static words in the head, dynamic
// values appended to the tail with their offsets in the head.
type encoder struct {
	head []value
}

type value struct {
	word    []byte // static
	dynamic []byte // encoded tail part
}

func (e *encoder) uint(v *uint256.Int) *encoder {
	w := v.Bytes32()
	e.head = append(e.head, value{word: w[:]})
	return e
}

func (e *encoder) u64(v uint64) *encoder { return e.uint(uint256.NewInt(v)) }

func (e *encoder) address(a types.Address) *encoder {
	var w [32]byte
	copy(w[12:], a[:])
	e.head = append(e.head, value{word: w[:]})
	return e
}

func (e *encoder) bool(b bool) *encoder {
	var v uint64
	if b {
		v = 1
	}
	return e.u64(v)
}

func (e *encoder) bytes(b []byte) *encoder {
	tail := u256Word(uint64(len(b)))
	tail = append(tail, b...)
	if r := len(b) % 32; r != 0 {
		tail = append(tail, make([]byte, 32-r)...)
	}
	e.head = append(e.head, value{dynamic: tail})
	return e
}

func (e *encoder) string(s string) *encoder { return e.bytes([]byte(s)) }

func (e *encoder) addresses(as []types.Address) *encoder {
	tail := u256Word(uint64(len(as)))
	for _, a := range as {
		var w [32]byte
		copy(w[12:], a[:])
		tail = append(tail, w[:]...)
	}
	e.head = append(e.head, value{dynamic: tail})
	return e
}

func (e *encoder) uints(vs []*uint256.Int) *encoder {
	tail := u256Word(uint64(len(vs)))
	for _, v := range vs {
		w := v.Bytes32()
		tail = append(tail, w[:]...)
	}
	e.head = append(e.head, value{dynamic: tail})
	return e
}

func (e *encoder) encode() []byte {
	headLen := 32 * len(e.head)
	var head, tail []byte
	for _, v := range e.head {
		if v.dynamic == nil {
			head = append(head, v.word...)
			continue
		}
		head = append(head, u256Word(uint64(headLen+len(tail)))...)
		tail = append(tail, v.dynamic...)
	}
	return append(head, tail...)
}

func u256Word(v uint64) []byte {
	w := uint256.NewInt(v).Bytes32()
	return w[:]
}

// revertData is the ABI encoding of Error(reason), what Solidity's
// require(false, reason) returns.
func revertData(reason string) []byte {
	sel := selector("Error(string)")
	return append(sel[:], new(encoder).string(reason).encode()...)
}

// method is one ABI function of a system contract. Its inputs and outputs
// are "type name" pairs; the selector, the ABI JSON and the Solidity
// interface all derive from them.
type method struct {
	name    string
	in, out []string
	payable bool
	write   bool   // changes state: refused in a static call
	gas     uint64 // flat cost charged before the method runs
	run     func(c *call, a *args) ([]byte, error)
}

// sig is the canonical signature, e.g. "delegate(address)".
func (m *method) sig() string { return m.name + "(" + strings.Join(paramTypes(m.in), ",") + ")" }

func paramTypes(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Fields(p)[0]
	}
	return out
}

// event is one ABI event; "indexed" params are topics.
type event struct {
	name   string
	params []string
	topic  types.Hash
}

func newEvent(name string, params ...string) *event {
	e := &event{name: name, params: params}
	e.topic = topic(name + "(" + strings.Join(paramTypes(params), ",") + ")")
	return e
}

// methodTable indexes methods by selector.
type methodTable map[[4]byte]*method

func newMethodTable(ms []*method) methodTable {
	t := make(methodTable, len(ms))
	for _, m := range ms {
		sel := selector(m.sig())
		if _, dup := t[sel]; dup {
			panic(fmt.Sprintf("staking: selector clash at %s", m.sig()))
		}
		t[sel] = m
	}
	return t
}

// done reports a decoding failure; methods call it after reading their
// arguments and before changing anything.
func (a *args) done() error {
	if a.err != nil {
		return revert(a.err.Error())
	}
	return nil
}
