// Package p2pnet is a node's presence on the p2p network: the host and
// the reactors of internal/protocol registered on it, one per concern
// (transaction gossip, the consensus relay, certificates and evidence,
// block sync), and the announcements of new heads that feed them. The
// node starts it with what the reactors need of it (Deps) and reads back
// peers, sync progress and counters; the messages themselves are the
// reactors' business.
package p2pnet

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/protocol/blocksync"
	"github.com/chaind/chaind/internal/protocol/certs"
	"github.com/chaind/chaind/internal/protocol/nodes"
	"github.com/chaind/chaind/internal/protocol/relay"
	"github.com/chaind/chaind/internal/protocol/txgossip"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Config makes a node one of a network of processes: it gossips
// transactions, serves and fetches blocks with their certificates and, on
// a validator, carries consensus messages.
type Config struct {
	// Key is the node key. nil: the validator key on a validator, a fresh
	// key otherwise.
	Key         *secp256k1.PrivateKey
	ListenAddr  string // host:port; empty accepts no connections
	StaticPeers []p2p.PeerAddr
	Bootnodes   []p2p.PeerAddr
	MaxPeers    int
	// NoPeerExchange keeps the node to its static peers (a validator
	// behind sentry nodes); PrivatePeers are never given out in peer
	// exchange (a sentry's validators). See p2p.Config.
	NoPeerExchange bool
	PrivatePeers   []p2p.ID
	// ExternalAddr, if set, is the host:port other machines reach this
	// node at (behind NAT, or listening on every interface): what its
	// announcements carry instead of the listen address.
	ExternalAddr string
}

// Listen is the p2p listen address of c ("" off the network).
func (c *Config) Listen() string {
	if c == nil {
		return ""
	}
	return c.ListenAddr
}

// Deps are what the reactors need of the node.
type Deps struct {
	Chain *chain.Chain
	Pool  *txpool.Pool
	// Validator is the node's validator key; nil on a node that does not
	// validate. Consensus names peers by validator address, so a
	// validator's node key must be this key.
	Validator  *secp256k1.PrivateKey
	Validators consensus.ValidatorSource // the sets certificates are checked against
	// Consensus is the validator the syncer stops while it catches up
	// and starts once it has; nil on a node that does not validate.
	Consensus blocksync.Consensus
	Inserted  func() // after the syncer inserted blocks: the node moves its pool
	FDBudget  int    // descriptors the host may hold (p2p.Config.FDBudget)
	// Public says the node serves JSON-RPC to the public: a node that
	// does not validate announces itself as an RPC node then, else as a
	// full node (package nodes).
	Public bool
	Log    *slog.Logger
}

// Net is the host and its reactors.
type Net struct {
	host  *p2p.Host
	txs   *txgossip.Reactor
	relay *relay.Reactor
	certs *certs.Reactor
	sync  *blocksync.Reactor
	nodes *nodes.Reactor
	chain *chain.Chain
	log   *slog.Logger
}

// Start joins the network; Run then runs the reactors. A validator starts
// consensus once it has caught up with its peers (see blocksync).
func Start(cfg *Config, d Deps) (*Net, error) {
	key := cfg.Key
	if key == nil {
		key = d.Validator
	}
	if v := d.Validator; v != nil && p2p.IDOf(key) != p2p.IDOf(v) {
		return nil, errors.New("node: a validator's node key is its validator key")
	}
	if key == nil {
		var err error
		if key, err = secp256k1.GeneratePrivateKey(); err != nil {
			return nil, err
		}
	}
	if d.Validators == nil {
		return nil, errors.New("node: a node on a p2p network needs the validator sets to check certificates")
	}
	nn := &Net{chain: d.Chain, log: d.Log}
	software, _ := pos.Releases(d.Chain)
	host, err := p2p.New(p2p.Config{
		Key: key,
		Chain: p2p.Chain{ChainID: d.Chain.Config.ChainID, Genesis: d.Chain.Genesis().Hash(), Software: software,
			MinVersion: func() string { _, min := pos.Releases(d.Chain); return min }},
		ListenAddr: cfg.ListenAddr, StaticPeers: cfg.StaticPeers, Bootnodes: cfg.Bootnodes, MaxPeers: cfg.MaxPeers,
		NoPeerExchange: cfg.NoPeerExchange, PrivatePeers: cfg.PrivatePeers, FDBudget: d.FDBudget,
		Logf: func(format string, args ...any) { d.Log.Debug(fmt.Sprintf(format, args...)) },
		// At info: an operator reads from the log whom the node talks to.
		Connected: func(id p2p.ID) {
			d.Log.Info("peer connected", "id", id)
			nn.sync.Connected(id)
			nn.nodes.Connected(id)
		},
		Incompatible: func(err error) { d.Log.Warn("peer refused", "err", err) },
		Disconnected: func(id p2p.ID) {
			d.Log.Info("peer disconnected", "id", id)
			nn.sync.Disconnected(id)
		},
	})
	if err != nil {
		return nil, err
	}
	chainID := d.Chain.Config.ChainID
	nn.host = host
	nn.sync = blocksync.New(host, blocksync.Config{ChainID: chainID, Chain: d.Chain, Validators: d.Validators,
		Consensus: d.Consensus, Inserted: d.Inserted, Log: d.Log})
	nn.relay = relay.New(host, relay.Config{ChainID: chainID, Validators: d.Validators, Validating: d.Validator != nil,
		Head: func() uint64 { return d.Chain.Head().Number() }, Log: d.Log})
	nn.certs = certs.New(host, certs.Config{ChainID: chainID, Chain: d.Chain, Validators: d.Validators, Heard: nn.sync.Heard, Log: d.Log})
	nn.txs = txgossip.New(host, d.Pool)
	nn.nodes = nodes.New(host, announcing(host, key, d, cfg.ExternalAddr, chainID, software, nn.sync.Syncing))
	if err := host.Start(); err != nil {
		return nil, err
	}
	if a := host.Addr(); a != nil {
		d.Log.Info("listening", "kind", "p2p", "addr", a.String(), "id", host.ID().String())
	}
	if len(cfg.StaticPeers) == 0 && len(cfg.Bootnodes) == 0 {
		d.Log.Warn("no peers configured: this node waits for others to connect to it", "chain", chainID)
	}
	return nn, nil
}

// Run runs the reactors until stop is closed, counting their goroutines
// in wg. The node calls it once it holds nn: block sync may start the
// validator at once, which takes its transport from the node.
func (nn *Net) Run(stop <-chan struct{}, wg *sync.WaitGroup) {
	for _, run := range []func(stop <-chan struct{}){nn.txs.Run, nn.announceHeads, nn.sync.Run, nn.nodes.Run} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(stop)
		}()
	}
}

// Close disconnects from every peer.
func (nn *Net) Close() { nn.host.Close() }

// Host is the p2p host.
func (nn *Net) Host() *p2p.Host { return nn.host }

// Transport is the consensus relay: a validator's bft.Transport.
func (nn *Net) Transport() *relay.Reactor { return nn.relay }

// Certs is the certificate and evidence reactor; it is also the sink of
// the double-signing the local driver finds.
func (nn *Net) Certs() *certs.Reactor { return nn.certs }

// announceHeads tells the reactors of each new head: the transaction
// reactor remembers its transactions, every peer hears of the head (so
// that nodes behind fetch it) and, unless we trail, of its certificate.
func (nn *Net) announceHeads(stop <-chan struct{}) {
	heads, cancel := nn.chain.Subscribe(64)
	defer cancel()
	for {
		select {
		case <-stop:
			return
		case h, ok := <-heads:
			if !ok {
				return
			}
			nn.txs.Committed(h)
			nn.sync.HeadChanged()
			if !nn.sync.Syncing() { // nobody needs the proofs of a node that trails
				nn.certs.Announce(h.Number())
			}
		}
	}
}

// UseEvidencePool sends the evidence this node learns (found by its
// driver or gossiped by peers) to the first of candidates that pools
// evidence for blocks (the validator's application or driver). With none,
// evidence is only relayed.
func (nn *Net) UseEvidencePool(candidates ...any) {
	for _, c := range candidates {
		if p, ok := c.(certs.EvidencePool); ok {
			nn.certs.SetEvidencePool(p)
			return
		}
	}
	nn.certs.SetEvidencePool(nil)
}

// Validated remembers the transactions of a block this validator has
// validated (see txgossip).
func (nn *Net) Validated(b *types.Block) { nn.txs.Validated(b) }

// Syncing reports whether the node is catching up with its peers.
func (nn *Net) Syncing() bool { return nn.sync.Syncing() }

// SyncingNodes returns the node IDs (validator addresses for validators)
// of this node, if it syncs, and of the peers that say they do; nil off
// the network (nn nil). Whether a node is catching up is not in the
// chain: the network views add what this node knows.
func (nn *Net) SyncingNodes() map[types.Address]bool {
	if nn == nil {
		return nil
	}
	out := make(map[types.Address]bool)
	if nn.sync.Syncing() {
		out[types.Address(nn.host.ID())] = true
	}
	for _, id := range nn.sync.SyncingPeers() {
		out[types.Address(id)] = true
	}
	return out
}

// announcing configures the node announcements: a node that does not
// validate announces itself, as an RPC node if it serves the public, with
// its external address if it has one, else the address it listens on
// (none when that is every interface: peers could not dial it); a
// validator only relays the others' (the staking state lists it).
func announcing(host *p2p.Host, key *secp256k1.PrivateKey, d Deps, external string, chainID uint64, software string, syncing func() bool) nodes.Config {
	cfg := nodes.Config{ChainID: chainID}
	if d.Validator != nil {
		return cfg
	}
	cfg.Key = key
	cfg.Self = nodes.Self{Kind: wire.KindFull, Version: software, Syncing: syncing}
	if d.Public {
		cfg.Self.Kind = wire.KindRPC
	}
	cfg.Self.Addr = func() string {
		if external != "" {
			return external
		}
		if a, ok := host.Addr().(*net.TCPAddr); ok && !a.IP.IsUnspecified() {
			return a.String()
		}
		return ""
	}
	return cfg
}

// Announced returns the full and RPC nodes that announced themselves
// (this one included), by ID, as the node list shows them; nil off the
// network (nn nil).
func (nn *Net) Announced() []backend.NodeInfo {
	if nn == nil {
		return nil
	}
	ns := nn.nodes.Nodes()
	out := make([]backend.NodeInfo, 0, len(ns))
	for _, n := range ns {
		info := backend.NodeInfo{Kind: wire.KindName(n.Kind), ID: n.ID[:], PublicKey: n.Key, Status: "active"}
		if n.Syncing {
			info.Status = "syncing"
		}
		if host, port, err := net.SplitHostPort(n.Addr); err == nil {
			info.IP = host
			info.Port, _ = strconv.Atoi(port)
		}
		out = append(out, info)
	}
	return out
}

// PeerCount is the number of connected peers.
func (nn *Net) PeerCount() int { return nn.host.PeerCount() }

// Peers lists the connected peers.
func (nn *Net) Peers() []backend.PeerInfo {
	ps := nn.host.Peers()
	out := make([]backend.PeerInfo, len(ps))
	for i, p := range ps {
		out[i] = backend.PeerInfo{ID: p.ID[:], RemoteAddr: p.RemoteAddr, ListenAddr: p.ListenAddr, Inbound: p.Inbound}
	}
	return out
}

// Progress is the catch-up's progress, if the node is catching up.
func (nn *Net) Progress() (backend.SyncProgress, bool) {
	p, ok := nn.sync.Progress()
	if !ok {
		return backend.SyncProgress{}, false
	}
	return backend.SyncProgress{StartingBlock: p.Start, CurrentBlock: p.Current, HighestBlock: p.Highest}, true
}

// BestHeight is the highest head a peer has told of.
func (nn *Net) BestHeight() uint64 { return nn.sync.BestHeight() }

// Metrics exposes the reactors' and the host's counters of the network
// current returns; they read 0 on a node off the network (nil).
func Metrics(r *chainmetrics.Registry, current func() *Net) {
	stat := func(f func(nn *Net) *atomic.Uint64) func() float64 {
		return func() float64 {
			if nn := current(); nn != nil {
				return float64(f(nn).Load())
			}
			return 0
		}
	}
	r.CounterFunc("chaind_p2p_consensus_relayed_total", "Proposals and votes checked and passed on to peers.", stat(func(nn *Net) *atomic.Uint64 { return &nn.relay.Stats.Relayed }))
	r.CounterFunc("chaind_p2p_consensus_stale_total", "Proposals and votes too old or too far ahead to relay.", stat(func(nn *Net) *atomic.Uint64 { return &nn.relay.Stats.Stale }))
	r.CounterFunc("chaind_p2p_certificates_total", "Commit certificates of blocks not yet held, verified from peers.", stat(func(nn *Net) *atomic.Uint64 { return &nn.certs.Stats.Certs }))
	r.CounterFunc("chaind_p2p_evidence_total", "Double-sign evidence verified from peers.", stat(func(nn *Net) *atomic.Uint64 { return &nn.certs.Stats.Evidence }))
	r.CounterFunc("chaind_p2p_consensus_delivered_total", "Consensus messages handed to this validator's driver.", stat(func(nn *Net) *atomic.Uint64 { return &nn.relay.Stats.Delivered }))
	r.CounterFunc("chaind_p2p_consensus_displaced_total", "Older consensus messages dropped from a full driver inbox.", stat(func(nn *Net) *atomic.Uint64 { return &nn.relay.Stats.Displaced }))
	host := func(f func(p2p.GossipStats) uint64) func() float64 {
		return func() float64 {
			if nn := current(); nn != nil {
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
	traffic := func(f func(p2p.Traffic) uint64) func(chainmetrics.Emit) {
		return func(emit chainmetrics.Emit) {
			nn := current()
			if nn == nil {
				return
			}
			byName := map[string]uint64{}
			for _, t := range nn.host.Traffic() {
				name := t.Control
				if name == "" {
					if name = wire.TopicNames[t.Topic]; name == "" {
						name = "other" // a topic of a newer node: the label set stays fixed
					}
				}
				byName[name] += f(t)
			}
			for name, v := range byName {
				emit(float64(v), name)
			}
		}
	}
	r.CounterVecFunc("chaind_p2p_sent_bytes_total", "Bytes of frames sent to peers (length prefix and tag included), by topic, or by the protocol's own frame (ping, pong, getpeers, peers, have, want).", []string{"topic"}, traffic(func(t p2p.Traffic) uint64 { return t.Sent }))
	r.CounterVecFunc("chaind_p2p_received_bytes_total", "Bytes of frames received from peers, by topic or protocol frame as chaind_p2p_sent_bytes_total; invalid counts frames of no known kind.", []string{"topic"}, traffic(func(t p2p.Traffic) uint64 { return t.Received }))
	r.CounterFunc("chaind_p2p_late_txs_total", "Gossiped transactions that arrived after their block was committed.", stat(func(nn *Net) *atomic.Uint64 { return &nn.txs.LateTxs }))
}
