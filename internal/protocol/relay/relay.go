// Package relay is the consensus relay reactor. Validators need not be
// connected to each other: every node, validator or full node, checks the
// signature of each proposal and vote it receives and passes it on to the
// peers that do not have it yet (the transport keeps, per peer, the hashes
// it sent it or got from it, and relays what it got from a peer by
// announcement, so a peer that has a message already is not sent it
// again), so a vote crosses any connected mesh.
//
// On a validator the reactor is also the driver's transport (the
// bft.Transport methods): each message is decoded and its signature
// checked once, here, and the driver gets the verified event
// (consensus.Verified); it checks nothing again.
package relay

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// Ahead bounds how far past our head a proposal or vote may be and still
// be relayed: consensus never runs further ahead of the chain, and older
// or further ones are of no use to anyone we could help.
const Ahead = 2

// RecentVotes is how many of the last proposals and votes a peer that
// connects is told of (p2p.TopicConfig.Recent): the two vote types and the
// proposals of a few rounds of a 100-validator set. Without it a validator
// that joins its sentry a moment late never sees the votes cast before,
// since relays drop the authors' retransmissions as duplicates.
const RecentVotes = 1024

// ErrNotGossiped is returned for a message on the vote topic that is not
// a proposal or a vote.
var ErrNotGossiped = errors.New("relay: only proposals and votes are gossiped")

// The kind bytes of proposals and votes on the wire, as the codec writes
// them: signed by their authors, so any node may pass them on. A status
// message is a hint about the sending peer, only meaningful from it.
var (
	proposalKind = consensus.EncodeMessage(consensus.ProposalEvent{})[0]
	voteKind     = consensus.EncodeMessage(consensus.VoteEvent{})[0]
)

// signedMessage reports whether msg is a proposal or a vote.
func signedMessage(msg []byte) bool {
	return len(msg) > 0 && (msg[0] == proposalKind || msg[0] == voteKind)
}

// Head is the chain's head height.
type Head func() uint64

// Config configures a Reactor.
type Config struct {
	ChainID    uint64
	Head       Head
	Validators consensus.ValidatorSource // the set of each height, to relay only its members' messages
	// Validating makes the reactor deliver messages to the local driver
	// (Receive) and take consensus messages sent to it directly.
	Validating bool
	// InboxBytes bounds the bytes of messages waiting for the local
	// driver (0: 32 MiB); older ones are shed past it.
	InboxBytes int
	Log        *slog.Logger
}

// Reactor relays proposals and votes and, on a validator, carries the
// driver's messages.
type Reactor struct {
	cfg   Config
	host  *p2p.Host
	inbox *inbox
	Stats Stats
}

// Stats count the relay's work, for metrics.
type Stats struct {
	Relayed   atomic.Uint64 // proposals and votes passed on
	Stale     atomic.Uint64 // proposals and votes too old or too far ahead to relay
	Delivered atomic.Uint64 // consensus messages handed to the local driver
	Displaced atomic.Uint64 // older messages dropped from a full driver inbox
}

// New makes the reactor and registers its topics on host.
func New(host *p2p.Host, cfg Config) *Reactor {
	if cfg.InboxBytes <= 0 {
		cfg.InboxBytes = inboxBytes
	}
	r := &Reactor{cfg: cfg, host: host, inbox: newInbox(inboxSize, cfg.InboxBytes)}
	if cfg.Validating {
		go r.inbox.run(host.Done())
		host.Handle(wire.TopicConsensus, p2p.TopicConfig{Priority: p2p.High}, r.onConsensus)
	}
	host.Handle(wire.TopicVote, p2p.TopicConfig{Priority: p2p.High, Gossip: true, Recent: RecentVotes}, r.onVote)
	return r
}

// Broadcast sends a message of the local driver. Proposals and votes go
// out as gossip, which skips peers known to have them: a retransmission
// reaches only peers that lack the message.
func (r *Reactor) Broadcast(msg []byte) {
	if signedMessage(msg) {
		if r.cfg.Log.Enabled(context.Background(), slog.LevelDebug) {
			if ev, err := consensus.DecodeMessage(msg); err == nil {
				r.trace("vote sent", ev)
			}
		}
		r.host.Broadcast(wire.TopicVote, msg)
		return
	}
	r.host.Broadcast(wire.TopicConsensus, msg)
}

// Send sends a message of the local driver to one validator.
func (r *Reactor) Send(to types.Address, msg []byte) {
	r.host.Send(p2p.ID(to), wire.TopicConsensus, msg)
}

// Receive delivers the verified messages for the local driver.
func (r *Reactor) Receive() <-chan consensus.Verified { return r.inbox.out }

// deliver hands a verified message, size bytes on the wire, to the local
// driver, if this node validates. A full inbox sheds its oldest messages:
// the newest ones are the ones consensus still needs.
func (r *Reactor) deliver(m consensus.Verified, size int) {
	if !r.cfg.Validating {
		return
	}
	r.Stats.Displaced.Add(uint64(r.inbox.push(m, size)))
	r.Stats.Delivered.Add(1)
}

// onConsensus hands a consensus message sent to this validator (a status,
// or the votes and decision a status asked for) to the driver, decoded
// and checked once, here. A message that does not decode is the peer's
// offence; one with a bad signature is dropped without holding it against
// the peer.
func (r *Reactor) onConsensus(from p2p.ID, msg []byte) error {
	m, err := consensus.VerifyMessage(r.cfg.ChainID, types.Address(from), msg)
	if errors.Is(err, consensus.ErrBadSignature) {
		return nil
	}
	if err != nil {
		return err
	}
	r.trace("vote received", m.Event())
	r.deliver(m, len(msg))
	return nil
}

// onVote takes a gossiped proposal or vote: it must carry a valid
// signature (a peer that relays a forged one is dropped); if it belongs
// near our height and to a validator of it, it goes to our driver and on
// to the peers that lack it.
func (r *Reactor) onVote(from p2p.ID, msg []byte) error {
	if !signedMessage(msg) {
		return ErrNotGossiped
	}
	m, err := consensus.VerifyMessage(r.cfg.ChainID, types.Address(from), msg)
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
	if !r.relevant(height, signer) {
		r.Stats.Stale.Add(1)
		return nil
	}
	r.trace("vote received", m.Event())
	r.deliver(m, len(msg))
	r.host.Broadcast(wire.TopicVote, msg)
	r.Stats.Relayed.Add(1)
	return nil
}

// relevant reports whether a message of signer at height is worth
// relaying: the height is the one the network decides now (or one the
// laggards still need) and signer validates it.
func (r *Reactor) relevant(height uint64, signer types.Address) bool {
	head := r.cfg.Head()
	if height+1 < head || height > head+Ahead {
		return false
	}
	set, err := r.cfg.Validators.ValidatorSet(height)
	if err != nil {
		return false
	}
	_, ok := set.Index(signer)
	return ok
}

// trace logs, at debug level, a vote this node sent or received, with the
// vote's identity, so that gossip latency can be read from the logs of the
// nodes of one machine (netbench does).
func (r *Reactor) trace(what string, ev consensus.Event) {
	if !r.cfg.Log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	if v, ok := ev.(consensus.VoteEvent); ok {
		r.cfg.Log.Debug(what, "height", v.Vote.Height, "round", v.Vote.Round, "type", v.Vote.Type.String(), "validator", v.Vote.Validator.String())
	}
}
