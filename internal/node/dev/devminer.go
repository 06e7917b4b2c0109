package dev

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// devMiner is a --dev node's mining control (bft.Miner): automine (a block
// as soon as transactions are pending), interval mining, blocks on request
// and the dev clock (an offset from the wall clock and a fixed timestamp
// for the next block). The consensus application asks it when to build;
// the node tells it when a block is committed.
//
// While a block is being built and committed ("busy"), and while a
// revert rewinds the chain ("paused"), the test helpers that change state
// wait (quiet): a change made meanwhile would be built on a state the new
// block no longer has.
type devMiner struct {
	pool     *txpool.Pool
	arrivals <-chan *types.Transaction
	unsub    func()

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change below
	automine bool
	interval time.Duration // until the next interval block; 0: no interval mining
	// intervalMin and intervalMax bound the intervals drawn (equal for a
	// fixed one).
	intervalMin, intervalMax time.Duration
	offset                   int64  // seconds added to the wall clock
	nextTime                 uint64 // timestamp of the next block; 0 none
	// tsInterval, when not 0, stamps each block that many seconds after
	// the last one (anvil_setBlockTimestampInterval) instead of by the
	// clock; headTime is the last block's timestamp.
	tsInterval, headTime uint64
	last                 time.Time // when the last block was committed
	requests             []*mineRequest
	current              *mineRequest // the request the block being built answers
	busy                 bool
	building             *types.Block // proposed, not yet committed
	paused               bool
	stalled              bool // the last unforced build took nothing: pending transactions do not apply
	// buildErr is why the last build failed (nil once a block commits or a
	// transaction arrives): a send waiting for its block answers it
	// instead of waiting for a block that cannot come.
	buildErr error
	now      func() time.Time
	// next holds the fee recipient of the blocks to come and the base fee
	// and PREVRANDAO chosen for the next block alone (devnext.go).
	next devNext
}

// mineRequest is one block asked for by evm_mine and its kin.
type mineRequest struct {
	time  uint64 // 0: the dev clock's time
	done  chan struct{}
	block *types.Block
	err   error
}

// burstWaitDev lets a burst of submissions land in one automined block.
const burstWaitDev = 5 * time.Millisecond

func newDevMiner(pool *txpool.Pool, blockTime time.Duration) *devMiner {
	m := &devMiner{pool: pool, changed: make(chan struct{}), automine: blockTime == 0, interval: blockTime,
		intervalMin: blockTime, intervalMax: blockTime, now: time.Now, last: time.Now()}
	m.arrivals, m.unsub = pool.Subscribe(1024)
	return m
}

// notify wakes everyone waiting on a change; called with m.mu held.
func (m *devMiner) notify() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// clock is the dev clock's time; called with m.mu held.
func (m *devMiner) clock() uint64 {
	if m.nextTime != 0 {
		return m.nextTime
	}
	if m.tsInterval != 0 {
		return m.headTime + m.tsInterval
	}
	return uint64(m.now().Unix() + m.offset)
}

// Await implements bft.Miner.
func (m *devMiner) Await(ctx context.Context, retry bool) (bft.MineOrder, error) {
	for {
		for len(m.arrivals) > 0 { // arrivals so far are covered by the pool check below
			<-m.arrivals
		}
		m.mu.Lock()
		if !m.paused && !m.busy {
			if len(m.requests) > 0 {
				r := m.requests[0]
				m.current, m.busy = r, true
				t := r.time
				if t == 0 {
					t = m.clock()
				}
				o := m.order(t, true)
				m.mu.Unlock()
				return o, nil
			}
			if m.interval > 0 && !m.now().Before(m.last.Add(m.interval)) {
				m.busy = true
				o := m.order(m.clock(), true)
				if m.nextTime == 0 && m.tsInterval == 0 {
					// Interval blocks keep to the clock to the millisecond: at
					// intervals under a second several share one timestamp
					// (pos.CheckTime) instead of running ahead of it.
					o.TimeMs = uint64(m.now().UnixMilli() + m.offset*1000)
				}
				m.mu.Unlock()
				return o, nil
			}
			if pending, _ := m.pool.Stats(); m.automine && pending > 0 && !retry {
				m.busy = true
				o := m.order(m.clock(), false)
				m.mu.Unlock()
				return o, nil
			}
		}
		changed := m.changed
		var due <-chan time.Time
		stop := func() bool { return false }
		if m.interval > 0 && !m.paused && !m.busy {
			t := time.NewTimer(time.Until(m.last.Add(m.interval)))
			due, stop = t.C, t.Stop
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			stop()
			return bft.MineOrder{}, ctx.Err()
		case <-changed:
			stop()
			retry = false
		case <-due:
		case <-m.arrivals:
			retry = false
			m.mu.Lock()
			m.stalled, m.buildErr = false, nil
			m.mu.Unlock()
			stop()
			t := time.NewTimer(burstWaitDev)
			select {
			case <-ctx.Done():
				t.Stop()
				return bft.MineOrder{}, ctx.Err()
			case <-t.C:
			}
		}
	}
}

// Done implements bft.Miner.
func (m *devMiner) Done(o bft.MineOrder, proposed *types.Block, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if proposed != nil {
		m.building = proposed // busy until committed
		return
	}
	if r := m.current; r != nil && err != nil {
		r.err = err
		m.finish(r)
	}
	m.stalled = !o.Force && err == nil
	m.buildErr = err
	m.current, m.busy = nil, false
	m.notify()
}

// committed is told of every block the chain commits.
func (m *devMiner) committed(b *types.Block) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = m.now()
	m.headTime = b.Time()
	m.nextInterval()
	if m.nextTime != 0 && b.Time() >= m.nextTime {
		m.nextTime = 0
	}
	m.next.used()
	// The clock never runs backwards: a block stamped ahead of it (a
	// fixed next timestamp, blocks mined at an interval) moves it on.
	if now := m.now().Unix() + m.offset; int64(b.Time()) > now {
		m.offset += int64(b.Time()) - now
	}
	if r := m.current; r != nil && m.building != nil && m.building.Hash() == b.Hash() {
		r.block = b
		m.finish(r)
	}
	m.current, m.busy, m.building, m.stalled, m.buildErr = nil, false, nil, false, nil
	m.notify()
}

// nextInterval draws the interval to the next interval block; m.mu held.
func (m *devMiner) nextInterval() {
	m.interval = m.intervalMin
	if span := m.intervalMax - m.intervalMin; span > 0 {
		m.interval += time.Duration(rand.Int64N(int64(span) + 1))
	}
}

// finish pops r from the requests and wakes its caller; m.mu held.
func (m *devMiner) finish(r *mineRequest) {
	for i, q := range m.requests {
		if q == r {
			m.requests = append(m.requests[:i], m.requests[i+1:]...)
			break
		}
	}
	close(r.done)
}

// mine asks for blocks with the given timestamps (0: the dev clock's) and
// waits until they are committed.
func (m *devMiner) mine(ctx context.Context, times []uint64) ([]*types.Block, error) {
	rs := make([]*mineRequest, len(times))
	m.mu.Lock()
	for i, t := range times {
		rs[i] = &mineRequest{time: t, done: make(chan struct{})}
	}
	m.requests = append(m.requests, rs...)
	m.notify()
	m.mu.Unlock()
	var blocks []*types.Block
	for _, r := range rs {
		select {
		case <-ctx.Done():
			return blocks, ctx.Err()
		case <-r.done:
		}
		if r.err != nil {
			return blocks, r.err
		}
		blocks = append(blocks, r.block)
	}
	return blocks, nil
}

// errDevBusy is returned when a state change waited too long for a block
// in progress.
var errDevBusy = errors.New("dev: the node is busy making a block; try again")

// quiet runs f while no block is being built or committed and no revert
// runs, so f's view of the head stays the head until it returns.
func (m *devMiner) quiet(ctx context.Context, f func() error) error {
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		if !m.busy && !m.paused {
			defer m.mu.Unlock()
			defer m.notify() // a change may make pending transactions minable
			return f()
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return errDevBusy
		case <-changed:
		}
	}
}

// pause stops new blocks (and state changes) until resume: a revert
// rewinds the chain meanwhile.
func (m *devMiner) pause(ctx context.Context) error {
	return m.quiet(ctx, func() error {
		m.paused = true
		return nil
	})
}

func (m *devMiner) resume() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.paused, m.busy, m.current, m.building = false, false, nil, nil
	m.last = m.now()
	m.notify()
}

// with runs f on the miner's settings under its lock and wakes the
// producer, which may now be due.
func (m *devMiner) with(f func(m *devMiner)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(m)
	m.notify()
}

func (m *devMiner) close() { m.unsub() }

// waitMined returns once tx is in a block, when automine is on, as
// Hardhat Network's eth_sendTransaction does; it returns early when the
// transaction cannot be mined now (a nonce gap, a fee below the base fee)
// or automine is off. When the block that should carry it cannot be built
// it returns why (ErrBlockNotBuilt): the send answers an error rather
// than hanging.
func (m *devMiner) waitMined(ctx context.Context, mined func() bool) error {
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		m.mu.Lock()
		changed := m.changed
		idle := !m.busy && len(m.requests) == 0
		stalled, auto, buildErr := m.stalled, m.automine, m.buildErr
		m.mu.Unlock()
		if !auto || mined() {
			return nil
		}
		if pending, _ := m.pool.Stats(); idle && pending > 0 && buildErr != nil {
			return fmt.Errorf("%w: %v", ErrBlockNotBuilt, buildErr)
		}
		if pending, _ := m.pool.Stats(); idle && (pending == 0 || stalled) {
			return nil
		}
		poll := time.NewTimer(20 * time.Millisecond) // the producer picks arrivals up without a change
		select {
		case <-ctx.Done():
			poll.Stop()
			return nil
		case <-timeout.C:
			poll.Stop()
			return nil
		case <-changed:
		case <-poll.C:
		}
		poll.Stop()
	}
}

// ErrBlockNotBuilt is answered to a send on an automining node whose next
// block fails to build: the transaction is pooled but no block carries it.
var ErrBlockNotBuilt = errors.New("transaction pooled, but the dev node cannot build a block")
