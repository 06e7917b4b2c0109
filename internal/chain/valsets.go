package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// The validator-set index: a block whose end-of-block rule decided a
// validator set (Engine.Finalize) has the set and the height it takes
// over recorded under its hash, in the batch that stores the block, so
// the set is where it was decided and survives nothing the block does
// not. Readers (the engine's validator sets, the consensus driver, block
// sync) look a set up by the block that decided it instead of opening
// that block's state.
var prefixValidators = []byte("v") // v + block hash -> encodeValidatorUpdate

// ValidatorUpdate returns the validator set the stored block with hash
// decided; ErrNotFound when it decided none (or is not stored).
func (c *Chain) ValidatorUpdate(block types.Hash) (*ValidatorUpdate, error) {
	v, err := c.db.kv.Get(key(prefixValidators, block[:]))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	up, err := decodeValidatorUpdate(v)
	if err != nil {
		return nil, fmt.Errorf("chain: validator set of block %s: %w", block, err)
	}
	return up, nil
}

// stageValidators adds the set block decided to the pending batch.
func (db *DB) stageValidators(block types.Hash, up *ValidatorUpdate) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.putKey(prefixValidators, block[:], encodeValidatorUpdate(up))
}

// encodeValidatorUpdate is rlp([height, [[address, power], ...]]).
func encodeValidatorUpdate(up *ValidatorUpdate) []byte {
	var buf rlp.Buffer
	l := buf.List()
	buf.WriteUint64(up.Height)
	vl := buf.List()
	for _, v := range up.Validators {
		e := buf.List()
		buf.WriteBytes(v.Address[:])
		buf.WriteUint64(uint64(v.Power))
		buf.ListEnd(e)
	}
	buf.ListEnd(vl)
	buf.ListEnd(l)
	return buf.Bytes()
}

func decodeValidatorUpdate(b []byte) (*ValidatorUpdate, error) {
	content, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errors.New("trailing bytes")
	}
	up := &ValidatorUpdate{}
	if up.Height, content, err = rlp.SplitUint64(content); err != nil {
		return nil, err
	}
	vals, rest, err := rlp.SplitList(content)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errors.New("trailing bytes")
	}
	for len(vals) > 0 {
		var item []byte
		if item, vals, err = rlp.SplitList(vals); err != nil {
			return nil, err
		}
		addr, item, err := rlp.SplitString(item)
		if err != nil {
			return nil, err
		}
		if len(addr) != len(types.Address{}) {
			return nil, fmt.Errorf("address of %d bytes", len(addr))
		}
		power, item, err := rlp.SplitUint64(item)
		if err != nil {
			return nil, err
		}
		if len(item) != 0 || power > 1<<62 {
			return nil, errors.New("bad validator entry")
		}
		up.Validators = append(up.Validators, Validator{Address: types.Address(addr), Power: int64(power)})
	}
	return up, nil
}
