package stakebackend

import (
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
)

var _ backend.NetworkEvents = (*network)(nil)

// SubscribeNetwork implements backend.NetworkEvents from the committed
// blocks: a cycle's record when its last block commits, and the state
// changes the selection block of a cycle made (validator states change
// nowhere else).
func (nw *network) SubscribeNetwork(buffer int) (<-chan backend.NetworkEvent, func()) {
	out := make(chan backend.NetworkEvent, buffer)
	blocks, cancel := nw.n.Chain.Subscribe(64)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for {
			select {
			case <-done:
				return
			case b, ok := <-blocks:
				if !ok {
					return
				}
				for _, ev := range nw.blockEvents(b) {
					select {
					case out <- ev:
					default: // the subscriber is behind; drop rather than stall
					}
				}
			}
		}
	}()
	stop := func() {
		cancel()
		select {
		case <-done:
		default:
			close(done)
		}
	}
	return out, stop
}

// blockEvents are the network events block b makes.
func (nw *network) blockEvents(b *types.Block) []backend.NetworkEvent {
	if !nw.n.Chain.Engine().ProofOfStake() {
		return nil
	}
	var evs []backend.NetworkEvent
	num := b.Number()
	cycles, err := nw.Cycles()
	if err != nil {
		return nil
	}
	switch {
	case cycles.IsSelection(num):
		prev, err := nw.n.Chain.BlockByNumber(num - 1)
		if err != nil {
			return nil
		}
		before, err := nw.n.stateOf(prev.HeaderRef())
		if err != nil {
			return nil
		}
		defer before.Release()
		after, err := nw.n.stateOf(b.HeaderRef())
		if err != nil {
			return nil
		}
		defer after.Release()
		old := map[types.Address]string{}
		for _, v := range staking.ReadValidators(before) {
			old[v.Operator] = v.Status.String()
		}
		for _, nd := range stakingNodes(after) {
			from, ok := old[nd.Operator]
			if !ok {
				from = "" // created since the last selection
			}
			if from != nd.Status {
				evs = append(evs, backend.NetworkEvent{Node: &backend.NodeStateChange{Node: nd, From: from, To: nd.Status, Block: num}})
			}
		}
	case cycles.IsLast(num):
		c := cycles.Of(num)
		if ci, err := nw.CycleInfo(&c); err == nil {
			evs = append(evs, backend.NetworkEvent{Cycle: ci})
		}
	}
	return evs
}
