package dev

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

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
	// Block is the head's block environment, which anvil requires in a
	// dump it loads (its BlockEnv); chaind reads only the accounts.
	Block *dumpedBlockEnv `json:"block,omitempty"`
	// BestBlockNumber is always 0: anvil looks the best block up among
	// the dump's blocks and refuses a number it has none for, and this
	// chain's blocks are not anvil's to replay, so a dump starts anvil's
	// chain from its genesis with these accounts; the head's number is
	// in Block.
	BestBlockNumber uint64                   `json:"best_block_number"`
	Accounts        map[string]dumpedAccount `json:"accounts"`
}

// dumpedBlockEnv is anvil's BlockEnv as its dumps write it.
type dumpedBlockEnv struct {
	Number      types.HexUint64 `json:"number"`
	Beneficiary types.Address   `json:"beneficiary"`
	Timestamp   types.HexUint64 `json:"timestamp"`
	GasLimit    uint64          `json:"gas_limit"`
	BaseFee     uint64          `json:"basefee"`
	Difficulty  types.HexU256   `json:"difficulty"`
	PrevRandao  types.Hash      `json:"prevrandao"`
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
	js, err := d.dumpJSON()
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

// dumpJSON is the head's state in anvil's dump format, plain JSON (what
// anvil --dump-state writes to a file).
func (d *Tools) dumpJSON() ([]byte, error) {
	c := d.n.Chain
	head := c.Head()
	st, err := d.n.View.State(head.HeaderRef())
	if err != nil {
		return nil, err
	}
	h := head.HeaderRef()
	env := &dumpedBlockEnv{Number: types.HexUint64(h.Number), Beneficiary: h.Coinbase, Timestamp: types.HexUint64(h.Time),
		GasLimit: h.GasLimit, Difficulty: types.HexU256(h.Difficulty), PrevRandao: h.MixDigest}
	if h.BaseFee != nil {
		env.BaseFee = h.BaseFee.Uint64()
	}
	out := dumpedState{Block: env, Accounts: map[string]dumpedAccount{}}
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
	return json.Marshal(out)
}

// WriteStateFile writes the head's state to path in anvil's dump format
// (plain JSON, as anvil --dump-state and --state write it), through a
// temporary file so a crash leaves the old file whole.
func (d *Tools) WriteStateFile(path string) error {
	js, err := d.dumpJSON()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, js, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadStateFile loads a dump file of anvil's or chaind's into the head's
// state (--state); a missing file is no error: the chain starts as it is.
func (d *Tools) LoadStateFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	js, err := io.ReadAll(io.LimitReader(f, maxStateDump+1))
	if err != nil {
		return err
	}
	if len(js) > maxStateDump {
		return fmt.Errorf("%s: state larger than %d bytes", path, maxStateDump)
	}
	if err := d.LoadState(ctx, js); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
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
