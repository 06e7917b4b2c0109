package pos

import (
	"fmt"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

// Block time on chaind's own chains. Ethereum's rule, a timestamp strictly
// after the parent's in whole seconds, makes blocks faster than one a
// second run ahead of the clock (ten 100 ms blocks take ten seconds of
// chain time in one of real time). chaind's proof-of-stake chains
// therefore record a block's time to the millisecond in its consensus
// data (ConsensusData.TimeMs) and order blocks by it:
//
//   - a block with a millisecond time has a header timestamp equal to it
//     in whole seconds (TimeMs/1000), and a millisecond time after its
//     parent's (the parent's recorded one, or its timestamp × 1000): its
//     header timestamp may equal its parent's;
//   - a block without one keeps Ethereum's rule, a timestamp after its
//     parent's (blocks made before the rule, and makers that choose
//     seconds, such as a --dev node mining on demand the way Hardhat
//     does).
//
// The EVM's TIMESTAMP stays the header's seconds, so contracts see time
// as on Ethereum, never running ahead of the wall clock; rewards, cycles
// and the explorer read real intervals. Imported Ethereum chains run
// chain.Ethereum and keep Ethereum's rule whole.

// TimeMs is h's time in Unix milliseconds: the one its consensus data
// records, else its timestamp's whole seconds.
func TimeMs(h *types.Header) uint64 {
	if d, err := DecodeConsensusData(h.Extra); err == nil && d.TimeMs != 0 {
		return d.TimeMs
	}
	return h.Time * 1000
}

// CheckTime implements chain.TimeRule: the rule above.
func (*Engine) CheckTime(parent, h *types.Header) error {
	d, err := DecodeConsensusData(h.Extra)
	if err != nil {
		return err
	}
	if d.TimeMs == 0 {
		if h.Time <= parent.Time {
			return fmt.Errorf("%w: %d <= %d", chain.ErrBadTimestamp, h.Time, parent.Time)
		}
		return nil
	}
	if d.TimeMs/1000 != h.Time {
		return fmt.Errorf("%w: header timestamp %d, consensus data %d ms", chain.ErrBadTimestamp, h.Time, d.TimeMs)
	}
	if p := TimeMs(parent); d.TimeMs <= p {
		return fmt.Errorf("%w: %d ms <= parent's %d ms", chain.ErrBadTimestamp, d.TimeMs, p)
	}
	return nil
}

// prepareTime orders a new block's millisecond time after its parent's:
// a.TimeMs (asked for) becomes at least the parent's plus one, and the
// header timestamp its seconds. A caller giving its own extra data gets
// seconds, strictly after the parent's.
func prepareTime(parent *types.Header, a *chain.Attributes) {
	if a.TimeMs == 0 {
		return
	}
	if a.Extra != nil {
		a.TimeMs, a.Time = 0, max(a.Time, parent.Time+1)
		return
	}
	a.TimeMs = max(a.TimeMs, TimeMs(parent)+1)
	a.Time = a.TimeMs / 1000
}
