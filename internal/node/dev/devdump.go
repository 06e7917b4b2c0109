package dev

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// anvil_dumpState and anvil_loadState move a development chain's accounts
// between nodes: the head's state as JSON, gzipped, as anvil writes it.
// The state tries are keyed by hashes of addresses and slots, so the dump
// lists what the chain recorded as touched since genesis (every committed
// state's accounts and slots, chain.RecordKeys).

type dumpedState struct {
	BestBlockNumber uint64                   `json:"best_block_number"`
	Accounts        map[string]dumpedAccount `json:"accounts"`
}

type dumpedAccount struct {
	Nonce   uint64                    `json:"nonce"`
	Balance *types.HexU256            `json:"balance"`
	Code    types.HexBytes            `json:"code"`
	Storage map[types.Hash]types.Hash `json:"storage"`
}

// maxStateDump bounds a state anvil_loadState inflates.
const maxStateDump = 256 << 20

// DumpState implements backend.DevTools.
func (d *Tools) DumpState() ([]byte, error) {
	c := d.n.Chain
	head := c.Head()
	st, err := d.n.View.State(head.HeaderRef())
	if err != nil {
		return nil, err
	}
	out := dumpedState{BestBlockNumber: head.Number(), Accounts: map[string]dumpedAccount{}}
	for a, slots := range c.Keys() {
		if !st.Exist(a) {
			continue
		}
		acc := dumpedAccount{Nonce: st.GetNonce(a), Balance: (*types.HexU256)(st.GetBalance(a)), Code: st.GetCode(a),
			Storage: map[types.Hash]types.Hash{}}
		if acc.Code == nil {
			acc.Code = types.HexBytes{}
		}
		for _, k := range slots {
			if v := st.GetState(a, k); v != (types.Hash{}) {
				acc.Storage[k] = v
			}
		}
		out.Accounts[a.Hex()] = acc
	}
	js, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(js)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LoadState implements backend.DevTools: the accounts of a dump (gzipped
// or plain JSON) are written into the head's state: balance, nonce and
// code replaced, the listed storage slots set.
func (d *Tools) LoadState(ctx context.Context, dump []byte) error {
	js := dump
	if len(dump) > 2 && dump[0] == 0x1f && dump[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(dump))
		if err != nil {
			return &backend.ParamError{Arg: 0, Msg: fmt.Sprintf("gzip: %v", err)}
		}
		if js, err = io.ReadAll(io.LimitReader(zr, maxStateDump+1)); err != nil {
			return &backend.ParamError{Arg: 0, Msg: fmt.Sprintf("gzip: %v", err)}
		}
		if len(js) > maxStateDump {
			return &backend.ParamError{Arg: 0, Msg: fmt.Sprintf("state larger than %d bytes", maxStateDump)}
		}
	}
	var in dumpedState
	if err := json.Unmarshal(js, &in); err != nil {
		return &backend.ParamError{Arg: 0, Msg: fmt.Sprintf("state: %v", err)}
	}
	if in.Accounts == nil {
		return &backend.ParamError{Arg: 0, Msg: "state: no accounts"}
	}
	type account struct {
		addr types.Address
		dumpedAccount
	}
	var accs []account
	for k, a := range in.Accounts {
		var addr types.Address
		if err := addr.UnmarshalText([]byte(k)); err != nil {
			return &backend.ParamError{Arg: 0, Msg: fmt.Sprintf("state: account %q: %v", k, err)}
		}
		accs = append(accs, account{addr, a})
	}
	return d.modify(ctx, func(st *state.StateDB) {
		for _, a := range accs {
			bal := new(uint256.Int)
			if a.Balance != nil {
				bal = (*uint256.Int)(a.Balance)
			}
			st.SetBalance(a.addr, bal)
			st.SetNonce(a.addr, a.Nonce)
			st.SetCode(a.addr, a.Code)
			for k, v := range a.Storage {
				st.SetState(a.addr, k, v)
			}
		}
	})
}
