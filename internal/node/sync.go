package node

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// Sync timing.
const (
	syncTick        = 250 * time.Millisecond
	syncTimeout     = 5 * time.Second // a peer that does not answer a request in time is skipped
	syncLogInterval = 2 * time.Second
	// consensusLag is how far a running validator may trail its best
	// peer before it stops voting to fetch blocks: consensus itself hands
	// a validator one or two heights behind the decisions it missed.
	consensusLag = 2
	// startGrace is how long a validator that has heard from no peer
	// waits before it starts consensus anyway (it may be the first up).
	startGrace = 3 * time.Second
)

// syncer keeps a node at the tip of its peers' chain: it learns their
// heads from status messages, fetches the blocks it lacks with their
// certificates, checks each certificate against the validator set of its
// height, and executes the blocks. On a validator it starts consensus
// once caught up and stops it while far behind.
type syncer struct {
	nn     *netNode
	wake   chan struct{}
	blocks chan []certifiedBlock

	mu          sync.Mutex
	heights     map[p2p.ID]uint64
	peerSyncing map[p2p.ID]bool // peers whose last status said they are catching up
	proven      uint64          // the highest height a verified certificate showed decided
	heard       bool
	waiting     p2p.ID
	syncing     bool
	start       uint64
	target      uint64
	consensusOn bool

	lastLog     time.Time // the last progress line, and the head then
	lastLogHead uint64
}

func newSyncer(nn *netNode) *syncer {
	return &syncer{nn: nn, wake: make(chan struct{}, 1), blocks: make(chan []certifiedBlock, 1), heights: make(map[p2p.ID]uint64), peerSyncing: make(map[p2p.ID]bool)}
}

func (s *syncer) onStatus(from p2p.ID, b []byte) error {
	st, err := decodeStatus(b)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.heights[from] = st.Height
	if st.Syncing {
		s.peerSyncing[from] = true
	} else {
		delete(s.peerSyncing, from)
	}
	s.heard = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

func (s *syncer) forget(id p2p.ID) {
	s.mu.Lock()
	delete(s.heights, id)
	delete(s.peerSyncing, id)
	s.mu.Unlock()
}

// heardHeight records that a verified certificate showed height decided.
// The peer that passed it on may not hold the block (certificates are
// relayed by nodes that lack it), so it is a target, not a source.
func (s *syncer) heardHeight(_ p2p.ID, height uint64) {
	s.mu.Lock()
	s.proven = max(s.proven, height)
	s.mu.Unlock()
}

func (s *syncer) isSyncing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncing
}

// syncingPeers lists the connected peers that say they are catching up.
func (s *syncer) syncingPeers() []p2p.ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]p2p.ID, 0, len(s.peerSyncing))
	for id := range s.peerSyncing {
		out = append(out, id)
	}
	return out
}

func (s *syncer) onBlocks(from p2p.ID, b []byte) error {
	s.mu.Lock()
	asked := s.waiting == from
	s.mu.Unlock()
	if !asked {
		return nil // a late answer to a request we gave up on
	}
	blocks, err := decodeBlocks(b)
	if err != nil {
		return err
	}
	select {
	case s.blocks <- blocks:
	default:
	}
	return nil
}

// best is the highest head a peer claims.
func (s *syncer) best() (uint64, p2p.ID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best uint64
	var who p2p.ID
	found := false
	for id, h := range s.heights {
		if !found || h > best {
			best, who, found = h, id, true
		}
	}
	return best, who, found
}

func (s *syncer) progress() (backend.SyncProgress, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.syncing {
		return backend.SyncProgress{}, false
	}
	head := s.nn.n.Chain.Head().Number()
	return backend.SyncProgress{StartingBlock: s.start, CurrentBlock: head, HighestBlock: max(s.target, s.proven, head)}, true
}

func (s *syncer) run() {
	n := s.nn.n
	defer n.wg.Done()
	defer func() {
		if s.consensusOn {
			n.stopConsensusAndWait()
		}
	}()
	began := time.Now()
	t := time.NewTicker(syncTick)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		case <-s.wake:
		}
		for {
			head := n.Chain.Head().Number()
			best, peer, ok := s.best()
			lag := uint64(0)
			if s.consensusOn {
				lag = consensusLag
			}
			if !ok || best <= head+lag {
				break
			}
			s.mu.Lock()
			// A block or two behind is following the tip, not syncing.
			if !s.syncing && best > head+consensusLag {
				s.syncing, s.start = true, head
				s.lastLog, s.lastLogHead = time.Now(), head
				n.log.Info("syncing", "head", head, "target", best, "peer", peer.String())
				s.mu.Unlock()
				s.announce()
				s.mu.Lock()
			}
			s.target = best
			s.mu.Unlock()
			if !s.fetch(peer, head, best) {
				break
			}
			select {
			case <-n.stop:
				return
			default:
			}
		}
		s.mu.Lock()
		wasSyncing := s.syncing
		if s.syncing {
			s.syncing = false
			n.log.Info("synced", "head", n.Chain.Head().Number())
		}
		heard := s.heard
		s.mu.Unlock()
		if wasSyncing {
			s.announce()
		}
		if n.cfg.Validator != nil && !s.consensusOn && (heard || time.Since(began) > startGrace) {
			if err := n.startConsensus(); err != nil {
				n.fail(fmt.Errorf("consensus: %w", err))
				return
			}
			s.consensusOn = true
			select {
			case <-n.stop:
				return
			default:
			}
		}
	}
}

// announce tells every peer our head and whether we are syncing.
func (s *syncer) announce() { s.nn.host.Broadcast(topicStatus, s.nn.status().encode()) }

// logProgress writes the progress line (blocks/s, ETA) every
// syncLogInterval while syncing.
func (s *syncer) logProgress(best uint64) {
	s.mu.Lock()
	syncing := s.syncing
	s.mu.Unlock()
	if !syncing || time.Since(s.lastLog) < syncLogInterval {
		return
	}
	n := s.nn.n
	now := n.Chain.Head().Number()
	rate := float64(now-s.lastLogHead) / time.Since(s.lastLog).Seconds()
	eta := "unknown"
	if rate > 0 {
		eta = (time.Duration(float64(best-min(now, best))/rate) * time.Second).Round(time.Second).String()
	}
	n.log.Info("sync progress", "head", now, "target", best, "blocks/s", fmt.Sprintf("%.1f", rate), "eta", eta)
	s.lastLog, s.lastLogHead = time.Now(), now
}

// fetch asks peer for the blocks after head up to best and executes what
// comes back; it reports whether the chain moved. It is a pipeline: this
// goroutine receives a batch and checks its certificates, then asks for
// the next batch and hands the checked one to an inserter goroutine; so
// while a batch executes, the peer sends the next and this node checks
// its certificates.
func (s *syncer) fetch(peer p2p.ID, head, best uint64) bool {
	n := s.nn.n
	select {
	case <-s.blocks: // a stale answer
	default:
	}
	s.mu.Lock()
	s.waiting = peer
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.waiting = p2p.ID{}
		s.mu.Unlock()
	}()
	request := func(from uint64) bool {
		count := min(best-from+1, maxBlocksPerRequest)
		if !s.nn.host.Send(peer, topicGetBlocks, getBlocksMsg{From: from, Count: uint16(count)}.encode()) {
			s.forget(peer)
			return false
		}
		return true
	}
	next := head + 1
	if !request(next) {
		return false
	}
	ins := s.startInserter(peer, best) // every return below goes through ins.finish
	for {
		var blocks []certifiedBlock
		select {
		case blocks = <-s.blocks:
		case <-time.After(syncTimeout):
			n.log.Debug("sync request timed out", "peer", peer.String())
			s.forget(peer)
			return ins.finish()
		case <-ins.failed:
			return ins.finish()
		case <-n.stop:
			return ins.finish()
		}
		if len(blocks) == 0 {
			s.nn.host.Ban(peer, fmt.Errorf("claimed head %d but served no block after %d", best, next-1))
			return ins.finish()
		}
		// Check every certificate before stopping consensus: a peer that
		// merely claims a high head cannot make a validator stop voting. On
		// a proof-of-stake chain the sets of later cycles are decided by
		// blocks not inserted yet; those blocks are checked just before
		// they are inserted, once their set is known.
		for i, cb := range blocks {
			if cb.Block.Number() != next+uint64(i) {
				s.nn.host.Ban(peer, fmt.Errorf("served block %d for %d", cb.Block.Number(), next+uint64(i)))
				return ins.finish()
			}
		}
		verified := 0
		for _, cb := range blocks {
			if _, err := n.validators.ValidatorSet(cb.Block.Number()); errors.Is(err, chain.ErrNotFound) {
				break // decided by a block still to be inserted
			}
			verified++
		}
		if verified == 0 && s.consensusOn {
			// Nothing proven yet (the set of the next height is known
			// once the head is in, so this is a defence only).
			return ins.finish()
		}
		if i, err := verifyAll(n.Chain.Config.ChainID, n.validators, blocks[:verified]); err != nil {
			s.nn.host.Ban(peer, fmt.Errorf("block %d: %w", blocks[i].Block.Number(), err))
			return ins.finish()
		}
		if s.consensusOn {
			n.log.Info("behind the network: pausing consensus to catch up", "head", next-1, "target", best)
			n.stopConsensusAndWait()
			s.consensusOn = false
		}
		after := next + uint64(len(blocks))
		more := after <= best && request(after)
		select {
		case ins.batches <- syncBatch{blocks, verified}:
		case <-ins.failed:
			return ins.finish()
		case <-n.stop:
			return ins.finish()
		}
		if !more {
			return ins.finish()
		}
		next = after
	}
}

// syncBatch is a run of blocks whose first verified certificates have
// been checked.
type syncBatch struct {
	blocks   []certifiedBlock
	verified int
}

// inserter executes the batches a fetch has checked, in order, on its own
// goroutine.
type inserter struct {
	batches chan syncBatch
	failed  chan struct{} // closed when a block fails (the peer is banned)
	done    chan struct{}
	moved   atomic.Bool
	once    sync.Once
}

func (s *syncer) startInserter(peer p2p.ID, best uint64) *inserter {
	n := s.nn.n
	ins := &inserter{batches: make(chan syncBatch, 1), failed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ins.done)
		for b := range ins.batches {
			select {
			case <-n.stop:
				continue // closing: drain without inserting
			default:
			}
			bs := make([]*types.Block, len(b.blocks))
			certs := make([][]byte, len(b.blocks))
			for i, cb := range b.blocks {
				bs[i], certs[i] = cb.Block, cb.Cert
			}
			headBefore := n.Chain.Head().Number()
			done, err := n.Chain.InsertCertifiedChain(bs, certs, func(i int) error {
				if i < b.verified {
					return nil
				}
				return verifyCertified(n.Chain.Config.ChainID, n.validators, bs[i], certs[i])
			})
			if n.Chain.Head().Number() > headBefore {
				ins.moved.Store(true)
				n.resetPool()
			}
			s.logProgress(best)
			if err != nil {
				s.nn.host.Ban(peer, fmt.Errorf("block %d: %w", bs[done].Number(), err))
				close(ins.failed)
				for range ins.batches { // the fetch stops sending: drain what it sent
				}
				return
			}
		}
	}()
	return ins
}

// finish lets the inserter run out its batches, waits for it, and
// reports whether the chain moved.
func (ins *inserter) finish() bool {
	ins.once.Do(func() { close(ins.batches) })
	<-ins.done
	return ins.moved.Load()
}

// stopConsensusAndWait stops the validator and waits until its driver has
// returned, so nothing else commits while the syncer inserts blocks.
func (n *Node) stopConsensusAndWait() {
	n.mu.Lock()
	stop, done := n.stopConsensus, n.consensusDone
	n.stopConsensus, n.consensusDone = nil, nil
	n.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// verifyAll checks the certificates of blocks whose validator sets are
// known, spread over the CPUs (each costs a signature recovery per
// signer, the largest cost of a sync besides execution). It returns the
// index and error of the first block that fails, in block order.
func verifyAll(chainID uint64, sets consensus.ValidatorSource, blocks []certifiedBlock) (int, error) {
	errs := make([]error, len(blocks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.NumCPU(), len(blocks)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(blocks) {
					return
				}
				errs[i] = verifyCertified(chainID, sets, blocks[i].Block, blocks[i].Cert)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return 0, nil
}
