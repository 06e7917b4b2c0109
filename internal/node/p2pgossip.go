package node

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/consensus"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// Consensus gossip. Validators need not be connected to each other: every
// node, validator or full node, checks the signature of each proposal and
// vote it receives and passes it on to the peers that do not have it yet
// (the transport keeps, per peer, the hashes it sent it or got from it,
// and relays what it got from a peer by announcement, so a peer that has
// a message already is not sent it again), so a vote crosses any
// connected mesh. Commit certificates travel the
// same way, so nodes that trail behind learn of each decided height with
// its proof; double-sign evidence too, so every validator can put it in a
// block.

// The kind bytes of proposals and votes on the wire, as the codec writes
// them: signed by their authors, so any node may pass them on. A status
// message is a hint about the sending peer, only meaningful from it.
var (
	proposalKind = bft.EncodeMessage(consensus.ProposalEvent{})[0]
	voteKind     = bft.EncodeMessage(consensus.VoteEvent{})[0]
)

// signedMessage reports whether msg is a proposal or a vote.
func signedMessage(msg []byte) bool {
	return len(msg) > 0 && (msg[0] == proposalKind || msg[0] == voteKind)
}

// relayAhead bounds how far past our head a proposal or vote may be and
// still be relayed: consensus never runs further ahead of the chain, and
// older or further ones are of no use to anyone we could help.
const relayAhead = 2

// evidencePool takes verified double-sign evidence for the blocks this
// validator proposes. The validator's application (or driver) provides
// it; a node without one still relays evidence.
type evidencePool interface {
	AddEvidence(ev consensus.DuplicateVoteEvidence) error
}

// gossipState is the part of netNode that consensus gossip needs.
type gossipState struct {
	evidence atomic.Pointer[evidencePool]
	known    *knownTxs
	stats    gossipStats
}

// gossipStats count gossip, for /metrics (see gossipMetrics).
type gossipStats struct {
	Relayed   atomic.Uint64 // proposals and votes passed on
	Stale     atomic.Uint64 // proposals and votes too old or too far ahead to relay
	Certs     atomic.Uint64 // certificates verified from peers
	Evidence  atomic.Uint64 // pieces of evidence verified from peers
	Delivered atomic.Uint64 // consensus messages handed to the local driver
	Displaced atomic.Uint64 // older messages dropped from a full driver inbox
	LateTxs   atomic.Uint64 // gossiped transactions that arrived after their block
}

// gossipMetrics exposes the gossip counters; they read 0 on a node off
// the network.
func (n *Node) gossipMetrics(r *chainmetrics.Registry) {
	stat := func(f func(*gossipStats) *atomic.Uint64) func() float64 {
		return func() float64 {
			if nn := n.net.Load(); nn != nil {
				return float64(f(&nn.stats).Load())
			}
			return 0
		}
	}
	r.CounterFunc("chaind_p2p_consensus_relayed_total", "Proposals and votes checked and passed on to peers.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.Relayed }))
	r.CounterFunc("chaind_p2p_consensus_stale_total", "Proposals and votes too old or too far ahead to relay.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.Stale }))
	r.CounterFunc("chaind_p2p_certificates_total", "Commit certificates of blocks not yet held, verified from peers.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.Certs }))
	r.CounterFunc("chaind_p2p_evidence_total", "Double-sign evidence verified from peers.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.Evidence }))
	r.CounterFunc("chaind_p2p_consensus_delivered_total", "Consensus messages handed to this validator's driver.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.Delivered }))
	r.CounterFunc("chaind_p2p_consensus_displaced_total", "Older consensus messages dropped from a full driver inbox.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.Displaced }))
	host := func(f func(p2p.GossipStats) uint64) func() float64 {
		return func() float64 {
			if nn := n.net.Load(); nn != nil {
				return float64(f(nn.host.Stats()))
			}
			return 0
		}
	}
	r.CounterFunc("chaind_p2p_gossip_pushed_total", "Gossip messages this node originated, sent whole to peers.", host(func(s p2p.GossipStats) uint64 { return s.Pushed }))
	r.CounterFunc("chaind_p2p_gossip_announced_total", "Gossip messages relayed to peers by announcing their hash.", host(func(s p2p.GossipStats) uint64 { return s.Announced }))
	r.CounterFunc("chaind_p2p_gossip_wanted_total", "Announced gossip messages this node asked for.", host(func(s p2p.GossipStats) uint64 { return s.Wanted }))
	r.CounterFunc("chaind_p2p_gossip_served_total", "Gossip messages sent to peers that asked for them.", host(func(s p2p.GossipStats) uint64 { return s.Served }))
	r.CounterFunc("chaind_p2p_gossip_duplicates_total", "Gossip messages received that this node already had.", host(func(s p2p.GossipStats) uint64 { return s.Duplicates }))
	r.CounterFunc("chaind_p2p_late_txs_total", "Gossiped transactions that arrived after their block was committed.", stat(func(s *gossipStats) *atomic.Uint64 { return &s.LateTxs }))
}

// handleGossip registers the gossip topics on the host.
func (nn *netNode) handleGossip() {
	nn.host.Handle(topicVote, p2p.TopicConfig{Priority: p2p.High, Gossip: true}, nn.onVote)
	nn.host.Handle(topicCert, p2p.TopicConfig{Priority: p2p.High, Gossip: true}, nn.onCert)
	nn.host.Handle(topicEvidence, p2p.TopicConfig{Priority: p2p.Low, Gossip: true}, nn.onEvidence)
}

// deliver hands a consensus message to the local driver, if this node
// validates. A full inbox sheds its oldest message: the newest ones are
// the ones consensus still needs.
func (nn *netNode) deliver(in consensus.Verified) {
	if nn.n.cfg.Validator == nil {
		return
	}
	for {
		select {
		case nn.inbox <- in:
			nn.stats.Delivered.Add(1)
			return
		default:
		}
		select {
		case <-nn.inbox:
			nn.stats.Displaced.Add(1)
		default:
		}
	}
}

// onVote takes a gossiped proposal or vote: it must carry a valid
// signature (a peer that relays a forged one is dropped); if it belongs
// near our height and to a validator of it, it goes to our driver and on
// to the peers that lack it. This is the one place its signature is
// checked: the driver takes the verified event.
func (nn *netNode) onVote(from p2p.ID, msg []byte) error {
	if !signedMessage(msg) {
		return errors.New("node: only proposals and votes are gossiped")
	}
	m, err := consensus.VerifyMessage(nn.n.Chain.Config.ChainID, types.Address(from), msg)
	if err != nil {
		return err
	}
	var height uint64
	var signer types.Address
	switch e := m.Event().(type) {
	case consensus.ProposalEvent:
		height, signer = e.Proposal.Height, e.Proposal.Proposer
	case consensus.VoteEvent:
		height, signer = e.Vote.Height, e.Vote.Validator
	}
	if !nn.relevant(height, signer) {
		nn.stats.Stale.Add(1)
		return nil
	}
	nn.traceVote("vote received", m.Event())
	nn.deliver(m)
	nn.host.Broadcast(topicVote, msg)
	nn.stats.Relayed.Add(1)
	return nil
}

// relevant reports whether a message of signer at height is worth
// relaying: the height is the one the network decides now (or one the
// laggards still need) and signer validates it.
func (nn *netNode) relevant(height uint64, signer types.Address) bool {
	head := nn.n.Chain.Head().Number()
	if height+1 < head || height > head+relayAhead {
		return false
	}
	set, err := nn.n.validators.ValidatorSet(height)
	if err != nil {
		return false
	}
	_, ok := set.Index(signer)
	return ok
}

// certMsg announces a decided block: its height, hash and commit
// certificate.
type certMsg struct {
	Height uint64
	Hash   types.Hash
	Cert   []byte
}

func (c certMsg) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, c.Height)
	b = append(b, c.Hash[:]...)
	return append(b, c.Cert...)
}

func decodeCert(b []byte) (certMsg, error) {
	var c certMsg
	if len(b) <= 40 {
		return c, fmt.Errorf("%w: certificate of %d bytes", errBadSyncMessage, len(b))
	}
	c.Height = binary.BigEndian.Uint64(b)
	copy(c.Hash[:], b[8:40])
	c.Cert = b[40:]
	return c, nil
}

// announceCert gossips the certificate of block num of our chain.
func (nn *netNode) announceCert(num uint64) {
	blk, err := nn.n.Chain.BlockByNumber(num)
	if err != nil {
		return
	}
	cert, err := nn.n.Chain.Certificate(num)
	if err != nil {
		return
	}
	nn.host.Broadcast(topicCert, certMsg{Height: num, Hash: blk.Hash(), Cert: cert}.encode())
}

// onCert takes a gossiped certificate. One that verifies against the
// validator set of its height proves the height decided: the syncer takes
// it as the sender's head (it serves the blocks it certifies) and the
// certificate goes on to peers that lack it. One we cannot check yet (the
// set of its height is not known to a node this far behind) is a hint of
// the sender's head and is not passed on.
func (nn *netNode) onCert(from p2p.ID, b []byte) error {
	c, err := decodeCert(b)
	if err != nil {
		return err
	}
	cert, err := consensus.DecodeCertificate(c.Cert)
	if err != nil {
		return err
	}
	head := nn.n.Chain.Head().Number()
	if c.Height <= head {
		// We have a block at that height and announced our own
		// certificate for it to our peers: nothing to pass on. The same
		// block needs no proof; another one would be a fork, which only
		// a valid certificate makes worth reporting.
		if blk, err := nn.n.Chain.BlockByNumber(c.Height); err == nil && blk.Hash() == c.Hash {
			nn.sync.heardHeight(from, c.Height)
			return nil
		}
		set, err := nn.n.validators.ValidatorSet(c.Height)
		if err != nil {
			return nil
		}
		if err := consensus.VerifyCertificate(nn.n.Chain.Config.ChainID, set, c.Height, c.Hash, cert); err != nil {
			return err
		}
		nn.n.log.Error("a peer holds a certified block that conflicts with ours", "number", c.Height, "ours", nn.n.Chain.Head().Hash(), "theirs", c.Hash, "peer", from.String())
		return nil
	}
	set, err := nn.n.validators.ValidatorSet(c.Height)
	if err != nil {
		nn.sync.heardHeight(from, c.Height)
		return nil
	}
	if err := consensus.VerifyCertificate(nn.n.Chain.Config.ChainID, set, c.Height, c.Hash, cert); err != nil {
		return err
	}
	nn.stats.Certs.Add(1)
	nn.sync.heardHeight(from, c.Height)
	nn.host.Broadcast(topicCert, b)
	return nil
}

// ReportDoubleSign implements consensus.EvidenceSink for the local driver:
// the evidence goes to this validator's pool and to every peer.
func (nn *netNode) ReportDoubleSign(ev consensus.DuplicateVoteEvidence) {
	nn.addEvidence(ev)
	nn.host.Broadcast(topicEvidence, ev.Encode())
}

func (nn *netNode) addEvidence(ev consensus.DuplicateVoteEvidence) {
	if p := nn.evidence.Load(); p != nil {
		if err := (*p).AddEvidence(ev); err != nil {
			nn.n.log.Debug("evidence not pooled", "err", err)
		}
	}
}

// setEvidencePool makes p the pool that evidence from peers goes to (nil:
// none, evidence is only relayed).
func (nn *netNode) setEvidencePool(p evidencePool) {
	if p == nil {
		nn.evidence.Store(nil)
		return
	}
	nn.evidence.Store(&p)
}

// onEvidence takes gossiped double-sign evidence: it must verify against
// the validator set of its height; then it is pooled and passed on.
func (nn *netNode) onEvidence(_ p2p.ID, b []byte) error {
	ev, err := consensus.DecodeDuplicateVoteEvidence(b)
	if err != nil {
		return err
	}
	set, err := nn.n.validators.ValidatorSet(ev.A.Height)
	if err != nil {
		return nil // a height whose set we cannot know: neither pooled nor passed on
	}
	if err := ev.Verify(nn.n.Chain.Config.ChainID, set); err != nil {
		return err
	}
	nn.stats.Evidence.Add(1)
	nn.addEvidence(ev)
	nn.host.Broadcast(topicEvidence, b)
	return nil
}

// evidenceSink is what the local driver reports double-signing to: on a
// network, the node, which pools the evidence (see useEvidencePool) and
// gossips it; off one, local, if it is a consensus.EvidenceSink (the
// validator's application), or nobody.
func (n *Node) evidenceSink(local any) consensus.EvidenceSink {
	if nn := n.net.Load(); nn != nil {
		return nn
	}
	if s, ok := local.(consensus.EvidenceSink); ok {
		return s
	}
	return nil
}

// useEvidencePool sends the evidence this node learns (found by its driver
// or gossiped by peers) to the first of candidates that pools evidence
// for blocks (the validator's application or driver). With none, evidence
// is only relayed.
func (n *Node) useEvidencePool(candidates ...any) {
	nn := n.net.Load()
	if nn == nil {
		return
	}
	for _, c := range candidates {
		if p, ok := c.(evidencePool); ok {
			nn.setEvidencePool(p)
			return
		}
	}
	nn.setEvidencePool(nil)
}

// knownTxs remembers the transactions of recent blocks this node has
// executed, so that a gossiped copy costs no second signature check: the
// transactions travel at low priority and the blocks at high, so copies
// often arrive after their block. A copy of a transaction of a committed
// block is dropped; one of a validated block not yet decided takes the
// sender recovered during validation and goes to the pool (the block may
// yet lose its round).
type knownTxs struct {
	mu        sync.Mutex
	max       int
	cur, prev map[types.Hash]*types.Transaction // nil: committed
}

func newKnownTxs(max int) *knownTxs {
	return &knownTxs{max: max, cur: make(map[types.Hash]*types.Transaction), prev: make(map[types.Hash]*types.Transaction)}
}

func (s *knownTxs) add(b *types.Block, committed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tx := range b.Transactions() {
		v := tx
		if committed {
			v = nil
		}
		s.cur[tx.Hash()] = v
		if len(s.cur) >= s.max {
			s.prev, s.cur = s.cur, make(map[types.Hash]*types.Transaction, s.max)
		}
	}
}

// lookup reports whether h is in a committed block, or else the copy of
// it a validated block holds (nil if none).
func (s *knownTxs) lookup(h types.Hash) (committed bool, validated *types.Transaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, ok := s.cur[h]
	if !ok {
		tx, ok = s.prev[h]
	}
	return ok && tx == nil, tx
}

// traceVote logs, at debug level, a vote this node sent or received, with
// the vote's identity, so that gossip latency can be read from the logs of
// the nodes of one machine (netbench does).
func (nn *netNode) traceVote(what string, ev consensus.Event) {
	if !nn.n.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	if v, ok := ev.(consensus.VoteEvent); ok {
		nn.n.log.Debug(what, "height", v.Vote.Height, "round", v.Vote.Round, "type", v.Vote.Type.String(), "validator", v.Vote.Validator.String())
	}
}

// onValidated remembers the transactions of a block this validator has
// validated (see knownTxs).
func (n *Node) onValidated(b *types.Block) {
	if nn := n.net.Load(); nn != nil {
		nn.known.add(b, false)
	}
}
