package ethapi

import (
	"encoding/json"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// UnmarshalJSON decodes a call object. The object every eth_call and
// eth_estimateGas carries usually holds a few plain strings (from, to,
// data, gas, value), and decoding those directly costs a fraction of
// encoding/json's reflective walk. Any other shape — null, an access list,
// blob hashes, authorizations, an unknown or differently cased key, a
// repeated key, an escape, or a value that fails to decode — goes to
// encoding/json, so results and errors stay exactly its own.
func (a *CallArgs) UnmarshalJSON(b []byte) error {
	fast := *a // encoding/json keeps fields the object does not mention
	if fast.decodePlain(b) {
		*a = fast
		return nil
	}
	type plain CallArgs // without this method
	return json.Unmarshal(b, (*plain)(a))
}

func (a *CallArgs) decodePlain(b []byte) bool {
	return rpc.DecodePlainObject(b, a.setPlain)
}

// setPlain decodes one quoted value into a field not set before.
func (a *CallArgs) setPlain(key, v []byte) bool {
	switch string(key) {
	case "from":
		return setOnce(&a.From, v)
	case "to":
		return setOnce(&a.To, v)
	case "gas":
		return setOnce(&a.Gas, v)
	case "gasPrice":
		return setOnce(&a.GasPrice, v)
	case "maxFeePerGas":
		return setOnce(&a.MaxFeePerGas, v)
	case "maxPriorityFeePerGas":
		return setOnce(&a.MaxPriorityFeePerGas, v)
	case "value":
		return setOnce(&a.Value, v)
	case "nonce":
		return setOnce(&a.Nonce, v)
	case "data":
		return setOnce(&a.Data, v)
	case "input":
		return setOnce(&a.Input, v)
	case "chainId":
		return setOnce(&a.ChainID, v)
	case "maxFeePerBlobGas":
		return setOnce(&a.MaxFeePerBlobGas, v)
	case "type":
		return setOnce(&a.Type, v)
	}
	return false
}

func setOnce[T types.Address | types.HexUint64 | types.HexU256 | types.HexBytes](field **T, quoted []byte) bool {
	if *field != nil {
		return false
	}
	v := new(T)
	if rpc.DecodeValue(quoted, v) != nil {
		return false
	}
	*field = v
	return true
}
