// Package certs is the reactor of decided heights and misbehaviour: it
// gossips each block's commit certificate, so nodes that trail behind
// learn of each decided height with its proof, and double-sign evidence,
// so every validator can put it in a block. Both are verified against the
// validator set of their height before they are used or passed on.
package certs

import (
	"log/slog"
	"sync/atomic"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// Chain is what the reactor reads of the chain.
type Chain interface {
	Head() *types.Block
	BlockByNumber(n uint64) (*types.Block, error)
	Certificate(n uint64) ([]byte, error)
}

// EvidencePool takes verified double-sign evidence for the blocks this
// validator proposes. The validator's application (or driver) provides
// it; a node without one still relays evidence.
type EvidencePool interface {
	AddEvidence(ev consensus.DuplicateVoteEvidence) error
}

// Config configures a Reactor.
type Config struct {
	ChainID    uint64
	Chain      Chain
	Validators consensus.ValidatorSource
	// Heard is told each height a verified certificate showed decided
	// (the block syncer's target).
	Heard func(height uint64)
	Log   *slog.Logger
}

// Reactor gossips certificates and evidence on one host.
type Reactor struct {
	cfg      Config
	host     *p2p.Host
	evidence atomic.Pointer[EvidencePool]
	Stats    Stats
}

// Stats count what the reactor verified, for metrics.
type Stats struct {
	Certs    atomic.Uint64 // certificates verified from peers
	Evidence atomic.Uint64 // pieces of evidence verified from peers
}

// New makes the reactor and registers its topics on host.
func New(host *p2p.Host, cfg Config) *Reactor {
	r := &Reactor{cfg: cfg, host: host}
	host.Handle(wire.TopicCert, p2p.TopicConfig{Priority: p2p.High, Gossip: true}, r.onCert)
	host.Handle(wire.TopicEvidence, p2p.TopicConfig{Priority: p2p.Low, Gossip: true}, r.onEvidence)
	return r
}

// Announce gossips the certificate of block num of our chain.
func (r *Reactor) Announce(num uint64) {
	blk, err := r.cfg.Chain.BlockByNumber(num)
	if err != nil {
		return
	}
	cert, err := r.cfg.Chain.Certificate(num)
	if err != nil {
		return
	}
	r.host.Broadcast(wire.TopicCert, wire.Cert{Height: num, Hash: blk.Hash(), Cert: cert}.Encode())
}

// onCert takes a gossiped certificate. One that verifies against the
// validator set of its height proves the height decided: the syncer takes
// it as a target (Config.Heard) and the certificate goes on to peers that
// lack it. One we cannot check yet (the set of its height is not known to
// a node this far behind) is a hint of the sender's head and is not
// passed on.
func (r *Reactor) onCert(from p2p.ID, b []byte) error {
	c, err := wire.DecodeCert(b)
	if err != nil {
		return err
	}
	cert, err := consensus.DecodeCertificate(c.Cert)
	if err != nil {
		return err
	}
	chain := r.cfg.Chain
	head := chain.Head().Number()
	if c.Height <= head {
		// We have a block at that height and announced our own
		// certificate for it to our peers: nothing to pass on. The same
		// block needs no proof; another one would be a fork, which only
		// a valid certificate makes worth reporting.
		if blk, err := chain.BlockByNumber(c.Height); err == nil && blk.Hash() == c.Hash {
			r.cfg.Heard(c.Height)
			return nil
		}
		set, err := r.cfg.Validators.ValidatorSet(c.Height)
		if err != nil {
			return nil
		}
		if err := consensus.VerifyCertificate(r.cfg.ChainID, set, c.Height, c.Hash, cert); err != nil {
			return err
		}
		r.cfg.Log.Error("a peer holds a certified block that conflicts with ours", "number", c.Height, "ours", chain.Head().Hash(), "theirs", c.Hash, "peer", from.String())
		return nil
	}
	set, err := r.cfg.Validators.ValidatorSet(c.Height)
	if err != nil {
		r.cfg.Heard(c.Height)
		return nil
	}
	if err := consensus.VerifyCertificate(r.cfg.ChainID, set, c.Height, c.Hash, cert); err != nil {
		return err
	}
	r.Stats.Certs.Add(1)
	r.cfg.Heard(c.Height)
	r.host.Broadcast(wire.TopicCert, b)
	return nil
}

// ReportDoubleSign implements consensus.EvidenceSink for the local driver:
// the evidence goes to this validator's pool and to every peer.
func (r *Reactor) ReportDoubleSign(ev consensus.DuplicateVoteEvidence) {
	r.addEvidence(ev)
	r.host.Broadcast(wire.TopicEvidence, ev.Encode())
}

func (r *Reactor) addEvidence(ev consensus.DuplicateVoteEvidence) {
	if p := r.evidence.Load(); p != nil {
		if err := (*p).AddEvidence(ev); err != nil {
			r.cfg.Log.Debug("evidence not pooled", "err", err)
		}
	}
}

// SetEvidencePool makes p the pool that evidence from peers goes to (nil:
// none, evidence is only relayed).
func (r *Reactor) SetEvidencePool(p EvidencePool) {
	if p == nil {
		r.evidence.Store(nil)
		return
	}
	r.evidence.Store(&p)
}

// onEvidence takes gossiped double-sign evidence: it must verify against
// the validator set of its height; then it is pooled and passed on.
func (r *Reactor) onEvidence(_ p2p.ID, b []byte) error {
	ev, err := consensus.DecodeDuplicateVoteEvidence(b)
	if err != nil {
		return err
	}
	set, err := r.cfg.Validators.ValidatorSet(ev.A.Height)
	if err != nil {
		return nil // a height whose set we cannot know: neither pooled nor passed on
	}
	if err := ev.Verify(r.cfg.ChainID, set); err != nil {
		return err
	}
	r.Stats.Evidence.Add(1)
	r.addEvidence(ev)
	r.host.Broadcast(wire.TopicEvidence, b)
	return nil
}
