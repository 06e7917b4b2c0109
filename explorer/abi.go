package explorer

import (
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Calls to the system contracts (staking, distribution, governance) and
// their events are decoded by name from the ABI the backend describes
// them with: the explorer knows no contract of its own.

// callJSON is a call decoded by its contract's ABI.
type callJSON struct {
	Contract  string     `json:"contract"`
	Name      string     `json:"name"`
	Signature string     `json:"signature"`
	Args      []eventArg `json:"args"`
}

// systemABI indexes the system contracts' methods by address and
// selector, and their events by address and topic.
type systemABI struct {
	names   map[types.Address]string
	methods map[types.Address]map[[4]byte]backend.ABIFunction
	events  map[types.Address]map[types.Hash]backend.ABIFunction
}

func newSystemABI(cs []backend.SystemContract) *systemABI {
	a := &systemABI{names: map[types.Address]string{}, methods: map[types.Address]map[[4]byte]backend.ABIFunction{},
		events: map[types.Address]map[types.Hash]backend.ABIFunction{}}
	for _, c := range cs {
		a.names[c.Address] = c.Name
		a.methods[c.Address] = map[[4]byte]backend.ABIFunction{}
		a.events[c.Address] = map[types.Hash]backend.ABIFunction{}
		for _, m := range c.Methods {
			h := crypto.Keccak256([]byte(m.Signature()))
			a.methods[c.Address][[4]byte(h[:4])] = m
		}
		for _, e := range c.Events {
			a.events[c.Address][types.Hash(crypto.Keccak256([]byte(e.Signature())))] = e
		}
	}
	return a
}

// call decodes a call's input to a system contract; nil when to is none
// or the input does not fit a method.
func (a *systemABI) call(to *types.Address, input []byte) *callJSON {
	if a == nil || to == nil || len(input) < 4 {
		return nil
	}
	m, ok := a.methods[*to][[4]byte(input[:4])]
	if !ok {
		return nil
	}
	args, ok := decodeArgs(m.Inputs, input[4:])
	if !ok {
		return nil
	}
	return &callJSON{Contract: a.names[*to], Name: m.Name, Signature: m.Signature(), Args: args}
}

// event decodes a system contract's log; nil when it is not one.
func (a *systemABI) event(l *types.Log) *eventJSON {
	if a == nil || len(l.Topics) == 0 {
		return nil
	}
	ev, ok := a.events[l.Address][l.Topics[0]]
	if !ok {
		return nil
	}
	var indexed, data []backend.ABIParam
	for _, p := range ev.Inputs {
		if p.Indexed {
			indexed = append(indexed, p)
		} else {
			data = append(data, p)
		}
	}
	if len(indexed) != len(l.Topics)-1 {
		return nil
	}
	out := &eventJSON{Name: ev.Name, Signature: ev.Signature()}
	for i, p := range indexed {
		v, ok := staticWord(p.Type, l.Topics[1+i][:])
		if !ok {
			return nil
		}
		out.Args = append(out.Args, eventArg{p.Name, p.Type, v})
	}
	rest, ok := decodeArgs(data, l.Data)
	if !ok {
		return nil
	}
	out.Args = append(out.Args, rest...)
	return out
}

// decodeArgs decodes head/tail ABI-encoded arguments of the types the
// system contracts use: static words (address, bool, uintN, intN),
// string, bytes and arrays of static words.
func decodeArgs(ps []backend.ABIParam, data []byte) ([]eventArg, bool) {
	out := make([]eventArg, 0, len(ps))
	if len(data) < 32*len(ps) {
		return nil, false
	}
	for i, p := range ps {
		head := data[32*i : 32*i+32]
		var v string
		ok := true
		switch {
		case p.Type == "string" || p.Type == "bytes":
			var b []byte
			if b, ok = tail(data, head); ok {
				if p.Type == "string" {
					v = string(b)
				} else {
					v = hexBytes(b)
				}
			}
		case strings.HasSuffix(p.Type, "[]"):
			v, ok = decodeArray(strings.TrimSuffix(p.Type, "[]"), data, head)
		default:
			v, ok = staticWord(p.Type, head)
		}
		if !ok {
			return nil, false
		}
		out = append(out, eventArg{p.Name, p.Type, v})
	}
	return out, true
}

// tail reads the length-prefixed bytes at the offset in head.
func tail(data, head []byte) ([]byte, bool) {
	off, ok := smallWord(head, len(data))
	if !ok || off+32 > len(data) {
		return nil, false
	}
	n, ok := smallWord(data[off:off+32], len(data))
	if !ok || off+32+n > len(data) {
		return nil, false
	}
	return data[off+32 : off+32+n], true
}

// decodeArray reads an array of static elements as "[a, b, …]".
func decodeArray(elem string, data, head []byte) (string, bool) {
	off, ok := smallWord(head, len(data))
	if !ok || off+32 > len(data) {
		return "", false
	}
	n, ok := smallWord(data[off:off+32], len(data)/32)
	if !ok || off+32+32*n > len(data) {
		return "", false
	}
	parts := make([]string, n)
	for i := range n {
		if parts[i], ok = staticWord(elem, data[off+32+32*i:off+64+32*i]); !ok {
			return "", false
		}
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}

// smallWord reads a word as an offset or length no larger than limit.
func smallWord(w []byte, limit int) (int, bool) {
	v := new(uint256.Int).SetBytes(w)
	if !v.IsUint64() || v.Uint64() > uint64(limit) {
		return 0, false
	}
	return int(v.Uint64()), true
}

// staticWord decodes one word of a static type; false when it is not a
// valid value of it.
func staticWord(typ string, w []byte) (string, bool) {
	switch {
	case typ == "address" || typ == "bool":
		return word(typ, w)
	case strings.HasPrefix(typ, "uint"):
		v := new(uint256.Int).SetBytes(w)
		if bits := typeBits(typ[4:]); bits < 256 && v.BitLen() > bits {
			return "", false
		}
		return v.Dec(), true
	case strings.HasPrefix(typ, "int"):
		v := new(uint256.Int).SetBytes(w)
		if v.Sign() < 0 {
			return "-" + new(uint256.Int).Neg(v).Dec(), true
		}
		return v.Dec(), true
	case strings.HasPrefix(typ, "bytes"):
		return hexBytes(w), true
	}
	return "", false
}

func typeBits(s string) int {
	if s == "" {
		return 256
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 256
		}
		n = n*10 + int(c-'0')
	}
	return n
}
