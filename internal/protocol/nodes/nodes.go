// Package nodes is the reactor through which full and RPC nodes make
// themselves known: each signs an announcement (wire.NodeAnnouncement:
// kind, p2p address, whether it syncs, release) with its node key and
// gossips it; every node keeps the announcements it has checked in a
// bounded table that forgets a node which stops announcing. The node list
// (chain_getNodeList) shows them beside the validators the staking state
// lists.
//
// Why not chain state: a full node has no stake and no account to pay for
// a transaction, its presence changes by the minute, and a record nobody
// renews would stay forever. Gossip reaches every connected node within
// seconds, so every node's table holds the same announcements.
//
// What a peer can do with it is bounded: the table holds at most
// MaxNodes announcements of at most wire.MaxNodeAnnouncementBytes each; a
// forged one (not signed by the node it names, for another chain, malformed) is refused and
// its sender dropped as any peer sending invalid data; a replayed one
// (not newer than the one held for that node, or older than TTL) and one
// from the future (more than MaxSkew ahead of our clock) are refused and
// not relayed.
package nodes

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Defaults of Config.
const (
	DefaultInterval = time.Minute
	DefaultTTL      = 5 * time.Minute
	DefaultMaxNodes = 1024
	DefaultMaxSkew  = 30 * time.Second
)

// connectBurst caps the announcements sent whole to a new peer, freshest
// first: the rest reach it with their next renewal.
const connectBurst = 128

// Errors of Check, testable with errors.Is.
var (
	ErrWrongChain = errors.New("nodes: announcement for another chain")
	ErrStale      = errors.New("nodes: announcement expired or not newer than the one held")
	ErrFuture     = errors.New("nodes: announcement from the future")
	ErrFull       = errors.New("nodes: announcement table full")
)

// Self is what this node announces of itself.
type Self struct {
	Kind    byte          // wire.KindFull or wire.KindRPC
	Addr    func() string // host:port peers dial; nil or "" when it accepts no connections
	Version string
	Syncing func() bool // nil: never
}

// Config configures a Reactor.
type Config struct {
	ChainID uint64
	// Key is the node key that signs this node's announcements; nil (a
	// validator, which the staking state lists) announces nothing but
	// still keeps and relays the others'.
	Key  *secp256k1.PrivateKey
	Self Self
	// Interval is how often the node renews its announcement; TTL how
	// long an announcement is kept without renewal (several intervals,
	// so a lost one does not drop a node).
	Interval, TTL time.Duration
	MaxNodes      int
	MaxSkew       time.Duration
	Now           func() time.Time // nil: time.Now
}

// Node is an announced node as the table holds it.
type Node struct {
	wire.NodeAnnouncement
	Key []byte // compressed secp256k1 public key
}

// Reactor gossips announcements on one host.
type Reactor struct {
	host *p2p.Host
	cfg  Config

	mu    sync.Mutex
	table map[p2p.ID]entry
	// Refused counts announcements not taken: stale, replayed, from the
	// future, or over the table's bound.
	Refused atomic.Uint64
}

type entry struct {
	node Node
	raw  []byte
}

// New makes the reactor and registers its topic on host (nil: a table
// only, for tests).
func New(host *p2p.Host, cfg Config) *Reactor {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.MaxNodes <= 0 {
		cfg.MaxNodes = DefaultMaxNodes
	}
	if cfg.MaxSkew <= 0 {
		cfg.MaxSkew = DefaultMaxSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Reactor{host: host, cfg: cfg, table: make(map[p2p.ID]entry)}
	if host != nil {
		host.Handle(wire.TopicNode, p2p.TopicConfig{Priority: p2p.Low, Gossip: true}, r.onAnnouncement)
	}
	return r
}

// onAnnouncement takes an announcement from a peer: a malformed or forged
// one is the peer's offence; one that is only out of date is not (it may
// have crossed a newer one), and is dropped.
func (r *Reactor) onAnnouncement(_ p2p.ID, b []byte) error {
	_, err := r.Add(b)
	switch {
	case err == nil:
		r.host.Broadcast(wire.TopicNode, b) // pass it on
		return nil
	case errors.Is(err, ErrStale), errors.Is(err, ErrFuture), errors.Is(err, ErrFull):
		r.Refused.Add(1)
		return nil
	}
	return err
}

// Add checks an encoded announcement and keeps it, replacing the older
// one of the same node. Errors: wire.ErrMalformed (bad encoding or
// signature), ErrWrongChain, ErrStale, ErrFuture, ErrFull.
func (r *Reactor) Add(b []byte) (Node, error) {
	a, err := wire.DecodeNodeAnnouncement(b)
	if err != nil {
		return Node{}, err
	}
	if a.ChainID != r.cfg.ChainID {
		return Node{}, fmt.Errorf("%w: chain %d, we are on %d", ErrWrongChain, a.ChainID, r.cfg.ChainID)
	}
	id := a.ID
	pub, err := a.PublicKey()
	if err != nil {
		return Node{}, err
	}
	now := r.cfg.Now()
	switch t := time.UnixMilli(int64(min(a.TimeMs, 1<<62))); {
	case t.After(now.Add(r.cfg.MaxSkew)):
		return Node{}, fmt.Errorf("%w: signed at %v, now %v", ErrFuture, t, now)
	case !t.Add(r.cfg.TTL).After(now):
		return Node{}, fmt.Errorf("%w: signed at %v, kept for %v", ErrStale, t, r.cfg.TTL)
	}
	n := Node{NodeAnnouncement: a, Key: pub}
	r.mu.Lock()
	defer r.mu.Unlock()
	old, held := r.table[id]
	if held && a.TimeMs <= old.node.TimeMs {
		return Node{}, fmt.Errorf("%w: %s signed at %d, we hold %d", ErrStale, id, a.TimeMs, old.node.TimeMs)
	}
	if !held && len(r.table) >= r.cfg.MaxNodes {
		r.expire(now)
		if len(r.table) >= r.cfg.MaxNodes {
			// Keep those we have: they renew, an unknown one may be one
			// of many keys made to crowd them out.
			return Node{}, fmt.Errorf("%w: %d nodes", ErrFull, len(r.table))
		}
	}
	r.table[id] = entry{node: n, raw: append([]byte(nil), b...)}
	return n, nil
}

// expire drops the announcements older than TTL; r.mu is held.
func (r *Reactor) expire(now time.Time) {
	for id, e := range r.table {
		if !time.UnixMilli(int64(min(e.node.TimeMs, 1<<62))).Add(r.cfg.TTL).After(now) {
			delete(r.table, id)
		}
	}
}

// Nodes returns the live announcements (not older than TTL), by ID.
func (r *Reactor) Nodes() []Node {
	r.mu.Lock()
	r.expire(r.cfg.Now())
	out := make([]Node, 0, len(r.table))
	for _, e := range r.table {
		out = append(out, e.node)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b Node) int { return slices.Compare(a.ID[:], b.ID[:]) })
	return out
}

// Connected sends a new peer this node's table, freshest first, so that
// it lists the network's nodes without waiting for their renewals.
func (r *Reactor) Connected(id p2p.ID) {
	r.mu.Lock()
	es := make([]entry, 0, len(r.table))
	for _, e := range r.table {
		es = append(es, e)
	}
	r.mu.Unlock()
	slices.SortFunc(es, func(a, b entry) int { return -cmpU64(a.node.TimeMs, b.node.TimeMs) })
	for _, e := range es[:min(len(es), connectBurst)] {
		r.host.Send(id, wire.TopicNode, e.raw)
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// announcement signs this node's announcement as of now.
func (r *Reactor) announcement(syncing bool) []byte {
	s := r.cfg.Self
	a := wire.NodeAnnouncement{ChainID: r.cfg.ChainID, Kind: s.Kind, TimeMs: uint64(r.cfg.Now().UnixMilli()),
		Syncing: syncing, Version: s.Version}
	if s.Addr != nil {
		a.Addr = s.Addr()
	}
	a.Sign(r.cfg.Key)
	return a.Encode()
}

// Run announces this node (if it has a key) at once, every Interval and
// whenever it starts or stops syncing, until stop is closed. Its own
// announcement goes into its own table too, so that it lists itself as
// every other node lists it.
func (r *Reactor) Run(stop <-chan struct{}) {
	if r.cfg.Key == nil {
		return
	}
	syncing := func() bool { return r.cfg.Self.Syncing != nil && r.cfg.Self.Syncing() }
	announce := func(s bool) {
		b := r.announcement(s)
		if _, err := r.Add(b); err == nil {
			r.host.Broadcast(wire.TopicNode, b)
		}
	}
	last := syncing()
	announce(last)
	renew := time.NewTicker(r.cfg.Interval)
	defer renew.Stop()
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		select {
		case <-stop:
			return
		case <-renew.C:
			last = syncing()
			announce(last)
		case <-poll.C:
			if s := syncing(); s != last {
				last = s
				announce(s)
			}
		}
	}
}
