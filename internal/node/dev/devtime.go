package dev

import (
	"context"
	"errors"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// SetTime implements backend.DevTools: the dev clock reads ts now and
// runs on from there (a fixed next timestamp is dropped). It answers the
// seconds ts is ahead of the clock as it was, 0 when it is not ahead.
// A block is never stamped before its parent, so a time set back holds
// the next blocks at one second after the head until the clock passes it.
func (d *Tools) SetTime(ts uint64) uint64 {
	var ahead uint64
	d.miner.with(func(m *devMiner) {
		now := m.now().Unix()
		if was := now + m.offset; int64(ts) > was {
			ahead = uint64(int64(ts) - was)
		}
		m.offset = int64(ts) - now
		m.nextTime = 0
	})
	return ahead
}

// SetBlockTimestampInterval implements backend.DevTools: each next block
// is stamped secs after the one before, whatever the clock says.
func (d *Tools) SetBlockTimestampInterval(secs uint64) {
	head := d.n.Chain.Head().Time()
	d.miner.with(func(m *devMiner) { m.tsInterval, m.headTime = secs, head })
}

// RemoveBlockTimestampInterval implements backend.DevTools; false when
// no interval was set.
func (d *Tools) RemoveBlockTimestampInterval() bool {
	var was bool
	d.miner.with(func(m *devMiner) {
		was = m.tsInterval != 0
		m.tsInterval = 0
	})
	return was
}

// ErrBalanceOverflow is AddBalance's error for a balance that would pass
// 2^256-1.
var ErrBalanceOverflow = errors.New("balance overflows 2^256-1")

// AddBalance implements backend.DevTools.
func (d *Tools) AddBalance(ctx context.Context, a types.Address, amount *uint256.Int) error {
	var overflow bool
	err := d.modify(ctx, func(st *state.StateDB) {
		sum, of := new(uint256.Int).AddOverflow(st.GetBalance(a), amount)
		if overflow = of; !of {
			st.SetBalance(a, sum)
		}
	})
	if err == nil && overflow {
		return ErrBalanceOverflow
	}
	return err
}
