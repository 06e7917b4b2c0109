package rpc

import (
	"encoding/json"

	"github.com/chaind/chaind/internal/types"
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
	return scanPlainObject(b, func(key []byte, i int) (int, bool) {
		_, end, ok := plainString(b, i)
		if !ok || !a.setPlain(string(key), b[i:end]) {
			return 0, false
		}
		return end, true
	})
}

// setPlain decodes one quoted value into a field not set before.
func (a *CallArgs) setPlain(key string, v []byte) bool {
	switch key {
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
	if decodeParam(quoted, v) != nil {
		return false
	}
	*field = v
	return true
}
