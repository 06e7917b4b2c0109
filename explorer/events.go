package explorer

import (
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// eventJSON is a log decoded by a known event signature.
type eventJSON struct {
	Name      string     `json:"name"`
	Signature string     `json:"signature"`
	Args      []eventArg `json:"args"`
}

type eventArg struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// knownEvent is an event the explorer decodes: its parameters of static
// types (address, uint256, bool), indexed ones first as the topics hold
// them, the rest from the data in order.
type knownEvent struct {
	name    string
	sig     string
	indexed []param
	data    []param
	// topics is the number of topics including the signature hash: ERC-20
	// and ERC-721 share Transfer's signature and differ only in it.
	topics int
}

type param struct{ name, typ string }

var knownEvents = map[types.Hash][]knownEvent{}

func init() {
	for _, ev := range []knownEvent{
		{name: "Transfer", sig: "Transfer(address,address,uint256)", topics: 3,
			indexed: []param{{"from", "address"}, {"to", "address"}}, data: []param{{"value", "uint256"}}},
		{name: "Transfer", sig: "Transfer(address,address,uint256)", topics: 4,
			indexed: []param{{"from", "address"}, {"to", "address"}, {"tokenId", "uint256"}}},
		{name: "Approval", sig: "Approval(address,address,uint256)", topics: 3,
			indexed: []param{{"owner", "address"}, {"spender", "address"}}, data: []param{{"value", "uint256"}}},
		{name: "Approval", sig: "Approval(address,address,uint256)", topics: 4,
			indexed: []param{{"owner", "address"}, {"approved", "address"}, {"tokenId", "uint256"}}},
		{name: "ApprovalForAll", sig: "ApprovalForAll(address,address,bool)", topics: 3,
			indexed: []param{{"owner", "address"}, {"operator", "address"}}, data: []param{{"approved", "bool"}}},
		{name: "Deposit", sig: "Deposit(address,uint256)", topics: 2,
			indexed: []param{{"dst", "address"}}, data: []param{{"wad", "uint256"}}},
		{name: "Withdrawal", sig: "Withdrawal(address,uint256)", topics: 2,
			indexed: []param{{"src", "address"}}, data: []param{{"wad", "uint256"}}},
		{name: "OwnershipTransferred", sig: "OwnershipTransferred(address,address)", topics: 3,
			indexed: []param{{"previousOwner", "address"}, {"newOwner", "address"}}},
	} {
		h := types.Hash(crypto.Keccak256([]byte(ev.sig)))
		knownEvents[h] = append(knownEvents[h], ev)
	}
}

// RegisterEvent adds an event signature the explorer decodes, e.g. the
// staking contract's. Parameters are "name type" pairs of static types
// (address, uint256, bool); indexed ones come first. Call it before
// serving.
func RegisterEvent(name, sig string, indexed, data [][2]string) {
	ev := knownEvent{name: name, sig: sig, topics: 1 + len(indexed)}
	for _, p := range indexed {
		ev.indexed = append(ev.indexed, param{p[0], p[1]})
	}
	for _, p := range data {
		ev.data = append(ev.data, param{p[0], p[1]})
	}
	h := types.Hash(crypto.Keccak256([]byte(sig)))
	knownEvents[h] = append(knownEvents[h], ev)
}

// decodeLog decodes l when its signature is known and its shape fits.
func decodeLog(l *types.Log) *eventJSON {
	if len(l.Topics) == 0 {
		return nil
	}
	for _, ev := range knownEvents[l.Topics[0]] {
		if len(l.Topics) != ev.topics || len(l.Data) != 32*len(ev.data) {
			continue
		}
		out := &eventJSON{Name: ev.name, Signature: ev.sig}
		ok := true
		for i, p := range ev.indexed {
			v, good := word(p.typ, l.Topics[1+i][:])
			ok = ok && good
			out.Args = append(out.Args, eventArg{p.name, p.typ, v})
		}
		for i, p := range ev.data {
			v, good := word(p.typ, l.Data[32*i:32*i+32])
			ok = ok && good
			out.Args = append(out.Args, eventArg{p.name, p.typ, v})
		}
		if ok {
			return out
		}
	}
	return nil
}

// word decodes one ABI word of a static type; false when it is not a
// valid value of that type.
func word(typ string, w []byte) (string, bool) {
	switch typ {
	case "address":
		for _, b := range w[:12] {
			if b != 0 {
				return "", false
			}
		}
		return types.BytesToAddress(w[12:]).Hex(), true
	case "bool":
		v := new(uint256.Int).SetBytes(w)
		if v.GtUint64(1) {
			return "", false
		}
		if v.IsZero() {
			return "false", true
		}
		return "true", true
	default:
		return new(uint256.Int).SetBytes(w).Dec(), true
	}
}
