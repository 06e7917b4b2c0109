package types

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/holiman/uint256"
)

// Reading the JSON forms back. Quantities are read leniently (see
// hexutil.go); the fields each transaction type requires must be present.

// ErrMissingField reports a JSON object without a field its type requires.
var ErrMissingField = errors.New("types: missing required JSON field")

// MarshalJSON renders {"address", "storageKeys"}.
func (t AccessTuple) MarshalJSON() ([]byte, error) {
	o := openObject(nil)
	o.addr("address", &t.Address)
	o.key("storageKeys")
	o.b = appendHashArray(o.b, t.StorageKeys)
	return o.close(), nil
}

// UnmarshalJSON reads {"address", "storageKeys"}.
func (t *AccessTuple) UnmarshalJSON(input []byte) error {
	var v struct {
		Address     *Address `json:"address"`
		StorageKeys []Hash   `json:"storageKeys"`
	}
	if err := json.Unmarshal(input, &v); err != nil {
		return err
	}
	if v.Address == nil {
		return fmt.Errorf("%w: access list entry address", ErrMissingField)
	}
	t.Address = *v.Address
	t.StorageKeys = v.StorageKeys
	if t.StorageKeys == nil {
		t.StorageKeys = []Hash{}
	}
	return nil
}

// MarshalJSON renders the authorization as in a transaction object.
func (a SetCodeAuthorization) MarshalJSON() ([]byte, error) {
	return appendAuthJSON(nil, &a), nil
}

type authJSON struct {
	ChainID *HexU256   `json:"chainId"`
	Address *Address   `json:"address"`
	Nonce   *HexUint64 `json:"nonce"`
	YParity *HexUint64 `json:"yParity"`
	V       *HexUint64 `json:"v"`
	R       *HexU256   `json:"r"`
	S       *HexU256   `json:"s"`
}

// UnmarshalJSON reads an authorization; yParity may also be given as v.
func (a *SetCodeAuthorization) UnmarshalJSON(input []byte) error {
	var v authJSON
	if err := json.Unmarshal(input, &v); err != nil {
		return err
	}
	if v.YParity == nil {
		v.YParity = v.V
	}
	if v.ChainID == nil || v.Address == nil || v.Nonce == nil || v.YParity == nil || v.R == nil || v.S == nil {
		return fmt.Errorf("%w: authorization needs chainId, address, nonce, yParity, r, s", ErrMissingField)
	}
	if *v.YParity > 0xff {
		return fmt.Errorf("types: authorization yParity %d out of range", *v.YParity)
	}
	*a = SetCodeAuthorization{ChainID: uint256.Int(*v.ChainID), Address: *v.Address, Nonce: uint64(*v.Nonce),
		V: uint8(*v.YParity), R: uint256.Int(*v.R), S: uint256.Int(*v.S)}
	return nil
}

// txJSON is the union of the fields of every transaction type.
type txJSON struct {
	Type                 *HexUint64             `json:"type"`
	ChainID              *HexU256               `json:"chainId"`
	Nonce                *HexUint64             `json:"nonce"`
	Gas                  *HexUint64             `json:"gas"`
	GasPrice             *HexU256               `json:"gasPrice"`
	MaxPriorityFeePerGas *HexU256               `json:"maxPriorityFeePerGas"`
	MaxFeePerGas         *HexU256               `json:"maxFeePerGas"`
	MaxFeePerBlobGas     *HexU256               `json:"maxFeePerBlobGas"`
	Value                *HexU256               `json:"value"`
	Input                *HexBytes              `json:"input"`
	Data                 *HexBytes              `json:"data"`
	To                   *Address               `json:"to"`
	AccessList           *AccessList            `json:"accessList"`
	BlobVersionedHashes  []Hash                 `json:"blobVersionedHashes"`
	AuthorizationList    []SetCodeAuthorization `json:"authorizationList"`
	V                    *HexU256               `json:"v"`
	R                    *HexU256               `json:"r"`
	S                    *HexU256               `json:"s"`
	YParity              *HexUint64             `json:"yParity"`
}

// UnmarshalJSON reads a signed transaction object (as AppendTxJSON writes
// it; block fields, from and hash are ignored, since they are derived).
func (tx *Transaction) UnmarshalJSON(input []byte) error {
	var j txJSON
	if err := json.Unmarshal(input, &j); err != nil {
		return err
	}
	need := func(ok bool, field string) error {
		if !ok {
			return fmt.Errorf("%w: %s", ErrMissingField, field)
		}
		return nil
	}
	typ := uint64(0)
	if j.Type != nil {
		typ = uint64(*j.Type)
	}
	data := []byte{}
	if j.Input != nil {
		data = *j.Input
	} else if j.Data != nil {
		data = *j.Data
	}
	u := func(x *HexU256) uint256.Int {
		if x == nil {
			return uint256.Int{}
		}
		return uint256.Int(*x)
	}
	for _, f := range []struct {
		ok   bool
		name string
	}{{j.Nonce != nil, "nonce"}, {j.Gas != nil, "gas"}, {j.Value != nil, "value"}, {j.R != nil, "r"}, {j.S != nil, "s"}} {
		if err := need(f.ok, f.name); err != nil {
			return err
		}
	}
	// Typed transactions carry the y parity; v, when also present, must agree.
	v := u(j.V)
	if typ != LegacyTxType {
		if j.YParity != nil {
			if j.V != nil && !v.Eq(uint256.NewInt(uint64(*j.YParity))) {
				return errors.New("types: v and yParity differ")
			}
			v.SetUint64(uint64(*j.YParity))
		} else if err := need(j.V != nil, "yParity"); err != nil {
			return err
		}
	} else if err := need(j.V != nil, "v"); err != nil {
		return err
	}
	var al AccessList
	if typ != LegacyTxType {
		if err := need(j.AccessList != nil, "accessList"); err != nil {
			return err
		}
		al = *j.AccessList
		if err := need(j.ChainID != nil, "chainId"); err != nil {
			return err
		}
	}
	var inner TxData
	switch typ {
	case LegacyTxType:
		if err := need(j.GasPrice != nil, "gasPrice"); err != nil {
			return err
		}
		inner = &LegacyTx{Nonce: uint64(*j.Nonce), GasPrice: u(j.GasPrice), Gas: uint64(*j.Gas), To: j.To,
			Value: u(j.Value), Data: data, V: v, R: u(j.R), S: u(j.S)}
	case AccessListTxType:
		if err := need(j.GasPrice != nil, "gasPrice"); err != nil {
			return err
		}
		inner = &AccessListTx{ChainID: u(j.ChainID), Nonce: uint64(*j.Nonce), GasPrice: u(j.GasPrice), Gas: uint64(*j.Gas),
			To: j.To, Value: u(j.Value), Data: data, AccessList: al, V: v, R: u(j.R), S: u(j.S)}
	case DynamicFeeTxType, BlobTxType, SetCodeTxType:
		if err := need(j.MaxFeePerGas != nil && j.MaxPriorityFeePerGas != nil, "maxFeePerGas and maxPriorityFeePerGas"); err != nil {
			return err
		}
		switch typ {
		case DynamicFeeTxType:
			inner = &DynamicFeeTx{ChainID: u(j.ChainID), Nonce: uint64(*j.Nonce), GasTipCap: u(j.MaxPriorityFeePerGas),
				GasFeeCap: u(j.MaxFeePerGas), Gas: uint64(*j.Gas), To: j.To, Value: u(j.Value), Data: data, AccessList: al,
				V: v, R: u(j.R), S: u(j.S)}
		case BlobTxType:
			if err := need(j.To != nil, "to"); err != nil {
				return err
			}
			if err := need(j.MaxFeePerBlobGas != nil && j.BlobVersionedHashes != nil, "maxFeePerBlobGas and blobVersionedHashes"); err != nil {
				return err
			}
			inner = &BlobTx{ChainID: u(j.ChainID), Nonce: uint64(*j.Nonce), GasTipCap: u(j.MaxPriorityFeePerGas),
				GasFeeCap: u(j.MaxFeePerGas), Gas: uint64(*j.Gas), To: *j.To, Value: u(j.Value), Data: data, AccessList: al,
				BlobFeeCap: u(j.MaxFeePerBlobGas), BlobHashes: j.BlobVersionedHashes, V: v, R: u(j.R), S: u(j.S)}
		default:
			if err := need(j.To != nil, "to"); err != nil {
				return err
			}
			if err := need(j.AuthorizationList != nil, "authorizationList"); err != nil {
				return err
			}
			inner = &SetCodeTx{ChainID: u(j.ChainID), Nonce: uint64(*j.Nonce), GasTipCap: u(j.MaxPriorityFeePerGas),
				GasFeeCap: u(j.MaxFeePerGas), Gas: uint64(*j.Gas), To: *j.To, Value: u(j.Value), Data: data, AccessList: al,
				AuthList: j.AuthorizationList, V: v, R: u(j.R), S: u(j.S)}
		}
	default:
		return ErrTxTypeNotSupported
	}
	tx.inner = inner
	tx.enc = nil
	tx.hash.Store(nil)
	tx.from.Store(nil)
	tx.size.Store(0)
	return nil
}
