// Package blocksync is the block sync reactor. It keeps a node at the tip
// of its peers' chain: it learns their heads from status messages, fetches
// the blocks it lacks with their certificates, checks each certificate
// against the validator set of its height, and executes the blocks; it
// serves the same to peers. On a validator it starts consensus once caught
// up and stops it while far behind.
package blocksync

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// Chain is what the syncer reads and extends.
type Chain interface {
	Head() *types.Block
	BlockByNumber(n uint64) (*types.Block, error)
	Certificate(n uint64) ([]byte, error)
	// InsertCertifiedChain executes blocks in order, calling check(i)
	// before block i; it returns how many were inserted.
	InsertCertifiedChain(blocks []*types.Block, certs [][]byte, check func(i int) error) (int, error)
}

// Consensus is the local validator's driver, which the syncer starts
// once caught up and stops while the node is far behind.
type Consensus interface {
	// Start starts the driver. Its error is fatal to the node: the
	// implementation reports it, and the syncer stops.
	Start() error
	// StopAndWait stops the driver and waits until it has returned, so
	// nothing else commits while the syncer inserts blocks.
	StopAndWait()
}

// Config configures a Reactor.
type Config struct {
	ChainID    uint64
	Chain      Chain
	Validators consensus.ValidatorSource
	Consensus  Consensus // nil: a node that does not validate
	// Inserted is called after synced blocks moved the head (the node
	// resets its transaction pool).
	Inserted func()
	Log      *slog.Logger
}

// Progress is a sync in progress: the head it started from, the head now
// and the highest height a peer claims or a certificate proved.
type Progress struct {
	Start, Current, Highest uint64
}

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

// Reactor syncs blocks over one host.
type Reactor struct {
	cfg    Config
	host   *p2p.Host
	stop   <-chan struct{} // Run's
	wake   chan struct{}
	blocks chan []wire.CertifiedBlock

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

// New makes the reactor and registers its topics on host.
func New(host *p2p.Host, cfg Config) *Reactor {
	s := &Reactor{cfg: cfg, host: host, wake: make(chan struct{}, 1), blocks: make(chan []wire.CertifiedBlock, 1), heights: make(map[p2p.ID]uint64), peerSyncing: make(map[p2p.ID]bool)}
	host.Handle(wire.TopicStatus, p2p.TopicConfig{Priority: p2p.High}, s.onStatus)
	host.Handle(wire.TopicGetBlocks, p2p.TopicConfig{Priority: p2p.Low}, s.onGetBlocks)
	host.Handle(wire.TopicBlocks, p2p.TopicConfig{Priority: p2p.Low}, s.onBlocks)
	return s
}

// Connected tells a new peer our head.
func (s *Reactor) Connected(id p2p.ID) { s.host.Send(id, wire.TopicStatus, s.Status().Encode()) }

// Disconnected forgets a peer's head.
func (s *Reactor) Disconnected(id p2p.ID) { s.forget(id) }

// Status is our head and whether we are syncing.
func (s *Reactor) Status() wire.Status {
	h := s.cfg.Chain.Head()
	return wire.Status{Height: h.Number(), Head: h.Hash(), Syncing: s.Syncing()}
}

func (s *Reactor) onStatus(from p2p.ID, b []byte) error {
	st, err := wire.DecodeStatus(b)
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

func (s *Reactor) forget(id p2p.ID) {
	s.mu.Lock()
	delete(s.heights, id)
	delete(s.peerSyncing, id)
	s.mu.Unlock()
}

// Heard records that a verified certificate showed height decided. The
// peer that passed it on may not hold the block (certificates are relayed
// by nodes that lack it), so it is a target, not a source.
func (s *Reactor) Heard(height uint64) {
	s.mu.Lock()
	s.proven = max(s.proven, height)
	s.mu.Unlock()
}

// Syncing reports whether the node is catching up.
func (s *Reactor) Syncing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncing
}

// SyncingPeers lists the connected peers that say they are catching up.
func (s *Reactor) SyncingPeers() []p2p.ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]p2p.ID, 0, len(s.peerSyncing))
	for id := range s.peerSyncing {
		out = append(out, id)
	}
	return out
}

func (s *Reactor) onBlocks(from p2p.ID, b []byte) error {
	s.mu.Lock()
	asked := s.waiting == from
	s.mu.Unlock()
	if !asked {
		return nil // a late answer to a request we gave up on
	}
	blocks, err := wire.DecodeBlocks(b)
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
func (s *Reactor) best() (uint64, p2p.ID, bool) {
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

// BestHeight is the highest head a connected peer claims (0: none).
func (s *Reactor) BestHeight() uint64 {
	h, _, _ := s.best()
	return h
}

// Progress reports the sync in progress, if any.
func (s *Reactor) Progress() (Progress, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.syncing {
		return Progress{}, false
	}
	head := s.cfg.Chain.Head().Number()
	return Progress{Start: s.start, Current: head, Highest: max(s.target, s.proven, head)}, true
}

// Run syncs until stop is closed; on a validator it starts consensus once
// caught up (or once startGrace has passed without a peer) and stops it
// when it returns.
func (s *Reactor) Run(stop <-chan struct{}) {
	s.stop = stop
	defer func() {
		if s.consensusOn {
			s.cfg.Consensus.StopAndWait()
		}
	}()
	began := time.Now()
	t := time.NewTicker(syncTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-s.wake:
		}
		for {
			head := s.cfg.Chain.Head().Number()
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
				s.cfg.Log.Info("syncing", "head", head, "target", best, "peer", peer.String())
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
			case <-stop:
				return
			default:
			}
		}
		s.mu.Lock()
		wasSyncing := s.syncing
		if s.syncing {
			s.syncing = false
			s.cfg.Log.Info("synced", "head", s.cfg.Chain.Head().Number())
		}
		heard := s.heard
		s.mu.Unlock()
		if wasSyncing {
			s.announce()
		}
		if s.cfg.Consensus != nil && !s.consensusOn && (heard || time.Since(began) > startGrace) {
			if err := s.cfg.Consensus.Start(); err != nil {
				return // the node has failed (see Consensus.Start)
			}
			s.consensusOn = true
			select {
			case <-stop:
				return
			default:
			}
		}
	}
}

// announce tells every peer our head and whether we are syncing.
func (s *Reactor) announce() { s.host.Broadcast(wire.TopicStatus, s.Status().Encode()) }

// HeadChanged tells every peer our new head, so that nodes behind fetch
// it.
func (s *Reactor) HeadChanged() { s.announce() }

// logProgress writes the progress line (blocks/s, ETA) every
// syncLogInterval while syncing.
func (s *Reactor) logProgress(best uint64) {
	s.mu.Lock()
	syncing := s.syncing
	s.mu.Unlock()
	if !syncing || time.Since(s.lastLog) < syncLogInterval {
		return
	}
	now := s.cfg.Chain.Head().Number()
	rate := float64(now-s.lastLogHead) / time.Since(s.lastLog).Seconds()
	eta := "unknown"
	if rate > 0 {
		eta = (time.Duration(float64(best-min(now, best))/rate) * time.Second).Round(time.Second).String()
	}
	s.cfg.Log.Info("sync progress", "head", now, "target", best, "blocks/s", fmt.Sprintf("%.1f", rate), "eta", eta)
	s.lastLog, s.lastLogHead = time.Now(), now
}

// fetch asks peer for the blocks from head up to best and executes what
// comes back; it reports whether the chain moved. It is a pipeline: this
// goroutine receives a batch and checks its certificates, then asks for
// the next batch and hands the checked one to an inserter goroutine; so
// while a batch executes, the peer sends the next and this node checks
// its certificates.
func (s *Reactor) fetch(peer p2p.ID, head, best uint64) bool {
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
		count := min(best-from+1, wire.MaxBlocksPerRequest)
		if !s.host.Send(peer, wire.TopicGetBlocks, wire.GetBlocks{From: from, Count: uint16(count)}.Encode()) {
			s.forget(peer)
			return false
		}
		return true
	}
	// The run starts at the head itself (past the genesis block), which
	// comes back with the certificate the peer keeps for it: the one its
	// child commits to, which this node's own may not be. The child's
	// header check needs it (chain.InsertCertifiedChain).
	next := max(head, 1)
	if !request(next) {
		return false
	}
	ins := s.startInserter(peer, best) // every return below goes through ins.finish
	for {
		var blocks []wire.CertifiedBlock
		select {
		case blocks = <-s.blocks:
		case <-time.After(syncTimeout):
			s.cfg.Log.Debug("sync request timed out", "peer", peer.String())
			s.forget(peer)
			return ins.finish()
		case <-ins.failed:
			return ins.finish()
		case <-s.stop:
			return ins.finish()
		}
		if len(blocks) == 0 {
			s.host.Ban(peer, fmt.Errorf("claimed head %d but served no block after %d", best, next-1))
			return ins.finish()
		}
		// Check every certificate before stopping consensus: a peer that
		// merely claims a high head cannot make a validator stop voting. On
		// a proof-of-stake chain the sets of later cycles are decided by
		// blocks not inserted yet; those blocks are checked just before
		// they are inserted, once their set is known.
		for i, cb := range blocks {
			if cb.Block.Number() != next+uint64(i) {
				s.host.Ban(peer, fmt.Errorf("served block %d for %d", cb.Block.Number(), next+uint64(i)))
				return ins.finish()
			}
		}
		verified := 0
		for _, cb := range blocks {
			if _, err := s.cfg.Validators.ValidatorSet(cb.Block.Number()); errors.Is(err, chain.ErrNotFound) {
				break // decided by a block still to be inserted
			}
			verified++
		}
		if verified == 0 && s.consensusOn {
			// Nothing proven yet (the set of the next height is known
			// once the head is in, so this is a defence only).
			return ins.finish()
		}
		if i, err := verifyAll(s.cfg.ChainID, s.cfg.Validators, blocks[:verified]); err != nil {
			s.host.Ban(peer, fmt.Errorf("block %d: %w", blocks[i].Block.Number(), err))
			return ins.finish()
		}
		if s.consensusOn {
			s.cfg.Log.Info("behind the network: pausing consensus to catch up", "head", next-1, "target", best)
			s.cfg.Consensus.StopAndWait()
			s.consensusOn = false
		}
		after := next + uint64(len(blocks))
		more := after <= best && request(after)
		select {
		case ins.batches <- syncBatch{blocks, verified}:
		case <-ins.failed:
			return ins.finish()
		case <-s.stop:
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
	blocks   []wire.CertifiedBlock
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

func (s *Reactor) startInserter(peer p2p.ID, best uint64) *inserter {
	c := s.cfg.Chain
	ins := &inserter{batches: make(chan syncBatch, 1), failed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ins.done)
		for b := range ins.batches {
			select {
			case <-s.stop:
				continue // closing: drain without inserting
			default:
			}
			bs := make([]*types.Block, len(b.blocks))
			certs := make([][]byte, len(b.blocks))
			for i, cb := range b.blocks {
				bs[i], certs[i] = cb.Block, cb.Cert
			}
			headBefore := c.Head().Number()
			done, err := c.InsertCertifiedChain(bs, certs, func(i int) error {
				if i < b.verified {
					return nil
				}
				return VerifyCertified(s.cfg.ChainID, s.cfg.Validators, bs[i], certs[i])
			})
			if c.Head().Number() > headBefore {
				ins.moved.Store(true)
				s.cfg.Inserted()
			}
			s.logProgress(best)
			if err != nil {
				s.host.Ban(peer, fmt.Errorf("block %d: %w", bs[done].Number(), err))
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

// verifyAll checks the certificates of blocks whose validator sets are
// known, spread over the CPUs (each costs a signature recovery per
// signer, the largest cost of a sync besides execution). It returns the
// index and error of the first block that fails, in block order.
func verifyAll(chainID uint64, sets consensus.ValidatorSource, blocks []wire.CertifiedBlock) (int, error) {
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
				errs[i] = VerifyCertified(chainID, sets, blocks[i].Block, blocks[i].Cert)
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

// VerifyCertified checks that raw, a certificate, decided b, against the validator set of
// b's height.
func VerifyCertified(chainID uint64, vals consensus.ValidatorSource, b *types.Block, raw []byte) error {
	cert, err := consensus.DecodeCertificate(raw)
	if err != nil {
		return err
	}
	set, err := vals.ValidatorSet(b.Number())
	if err != nil {
		return err
	}
	return consensus.VerifyCertificate(chainID, set, b.Number(), b.Hash(), cert)
}

// onGetBlocks answers a sync request with the blocks we have, each with
// its certificate.
func (s *Reactor) onGetBlocks(from p2p.ID, b []byte) error {
	req, err := wire.DecodeGetBlocks(b)
	if err != nil {
		return err
	}
	c := s.cfg.Chain
	var out []wire.CertifiedBlock
	size := 0
	for num := req.From; num < req.From+uint64(req.Count) && num <= c.Head().Number() && size < wire.MaxBlocksBytes; num++ {
		blk, err := c.BlockByNumber(num)
		if err != nil {
			break
		}
		cert, err := c.Certificate(num)
		if err != nil {
			break // decided before certificates were kept; nothing to prove it with
		}
		out = append(out, wire.CertifiedBlock{Block: blk, Cert: cert})
		size += int(blk.Size()) + len(cert)
	}
	s.host.Send(from, wire.TopicBlocks, wire.EncodeBlocks(out))
	return nil
}
