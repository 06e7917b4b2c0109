package node

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/protocol/blocksync"
	"github.com/chaind/chaind/internal/protocol/certs"
	"github.com/chaind/chaind/internal/protocol/relay"
	"github.com/chaind/chaind/internal/protocol/txgossip"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// P2PConfig makes a node one of a network of processes: it gossips
// transactions, serves and fetches blocks with their certificates and, on
// a validator, carries consensus messages.
type P2PConfig struct {
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
}

// netNode is a node's presence on the p2p network: the host and the
// reactors of internal/protocol registered on it, one per concern. The
// consensus relay is the validator's bft.Transport.
type netNode struct {
	host  *p2p.Host
	txs   *txgossip.Reactor
	relay *relay.Reactor
	certs *certs.Reactor
	sync  *blocksync.Reactor
}

var _ bft.Transport = (*relay.Reactor)(nil)

// startNetwork joins the p2p network. A validator starts consensus once
// it has caught up with its peers (see blocksync).
func (n *Node) startNetwork() error {
	cfg := n.cfg.P2P
	key := cfg.Key
	if key == nil {
		key = n.cfg.Validator
	}
	// Consensus names peers by validator address, so a validator's node
	// ID must be its address.
	if v := n.cfg.Validator; v != nil && p2p.IDOf(key) != p2p.IDOf(v) {
		return errors.New("node: a validator's node key is its validator key")
	}
	if key == nil {
		var err error
		if key, err = secp256k1.GeneratePrivateKey(); err != nil {
			return err
		}
	}
	vals := n.cfg.Validators
	if e := pos.Of(n.Chain); vals == nil && e != nil {
		vals = e.Validators(n.Chain) // a proof-of-stake chain: its state decides every set
	}
	if vals == nil {
		return errors.New("node: a node on a p2p network needs the validator sets to check certificates")
	}
	n.mu.Lock()
	n.validators = vals
	n.mu.Unlock()
	nn := &netNode{}
	host, err := p2p.New(p2p.Config{
		Key:        key,
		Chain:      p2p.Chain{ChainID: n.Chain.Config.ChainID, Genesis: n.Chain.Genesis().Hash()},
		ListenAddr: cfg.ListenAddr, StaticPeers: cfg.StaticPeers, Bootnodes: cfg.Bootnodes, MaxPeers: cfg.MaxPeers,
		NoPeerExchange: cfg.NoPeerExchange, PrivatePeers: cfg.PrivatePeers, FDBudget: n.cfg.p2pFDs(),
		Logf: func(format string, args ...any) { n.log.Debug(fmt.Sprintf(format, args...)) },
		// At info: an operator reads from the log whom the node talks to.
		Connected: func(id p2p.ID) {
			n.log.Info("peer connected", "id", id)
			nn.sync.Connected(id)
		},
		Disconnected: func(id p2p.ID) {
			n.log.Info("peer disconnected", "id", id)
			nn.sync.Disconnected(id)
		},
	})
	if err != nil {
		return err
	}
	chainID := n.Chain.Config.ChainID
	var driver blocksync.Consensus
	if n.cfg.Validator != nil {
		driver = nodeConsensus{n}
	}
	nn.host = host
	nn.sync = blocksync.New(host, blocksync.Config{ChainID: chainID, Chain: n.Chain, Validators: vals,
		Consensus: driver, Inserted: n.resetPool, Log: n.log})
	nn.relay = relay.New(host, relay.Config{ChainID: chainID, Validators: vals, Validating: n.cfg.Validator != nil,
		Head: func() uint64 { return n.Chain.Head().Number() }, Log: n.log})
	nn.certs = certs.New(host, certs.Config{ChainID: chainID, Chain: n.Chain, Validators: vals, Heard: nn.sync.Heard, Log: n.log})
	nn.txs = txgossip.New(host, n.Pool)
	if err := host.Start(); err != nil {
		return err
	}
	n.net.Store(nn)
	if a := host.Addr(); a != nil {
		n.log.Info("listening", "kind", "p2p", "addr", a.String(), "id", host.ID().String())
	}
	if len(cfg.StaticPeers) == 0 && len(cfg.Bootnodes) == 0 {
		n.log.Warn("no peers configured: this node waits for others to connect to it", "chain", chainID)
	}
	announce := func(stop <-chan struct{}) { n.announceHeads(nn, stop) }
	for _, run := range []func(stop <-chan struct{}){nn.txs.Run, announce, nn.sync.Run} {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			run(n.stop)
		}()
	}
	return nil
}

// closeNetwork disconnects from every peer.
func (n *Node) closeNetwork() {
	if nn := n.net.Load(); nn != nil {
		nn.host.Close()
	}
}

// announceHeads tells the reactors of each new head: the transaction
// reactor remembers its transactions, every peer hears of the head (so
// that nodes behind fetch it) and, unless we trail, of its certificate.
func (n *Node) announceHeads(nn *netNode, stop <-chan struct{}) {
	heads, cancel := n.Chain.Subscribe(64)
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

// nodeConsensus is the node's validator as the syncer starts and stops it.
type nodeConsensus struct{ n *Node }

// Start starts the validator; a failure fails the node.
func (c nodeConsensus) Start() error {
	err := c.n.startConsensus()
	if err != nil {
		c.n.fail(fmt.Errorf("consensus: %w", err))
	}
	return err
}

func (c nodeConsensus) StopAndWait() { c.n.stopConsensusAndWait() }

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

// evidenceSink is what the local driver reports double-signing to: on a
// network, the certificate and evidence reactor, which pools the evidence
// (see useEvidencePool) and gossips it; off one, local, if it is a
// consensus.EvidenceSink (the validator's application), or nobody.
func (n *Node) evidenceSink(local any) consensus.EvidenceSink {
	if nn := n.net.Load(); nn != nil {
		return nn.certs
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
		if p, ok := c.(certs.EvidencePool); ok {
			nn.certs.SetEvidencePool(p)
			return
		}
	}
	nn.certs.SetEvidencePool(nil)
}

// onValidated remembers the transactions of a block this validator has
// validated (see txgossip).
func (n *Node) onValidated(b *types.Block) {
	if nn := n.net.Load(); nn != nil {
		nn.txs.Validated(b)
	}
}

// gossipMetrics exposes the reactors' and the host's counters; they read
// 0 on a node off the network.
func (n *Node) gossipMetrics(r *chainmetrics.Registry) {
	stat := func(f func(nn *netNode) *atomic.Uint64) func() float64 {
		return func() float64 {
			if nn := n.net.Load(); nn != nil {
				return float64(f(nn).Load())
			}
			return 0
		}
	}
	r.CounterFunc("chaind_p2p_consensus_relayed_total", "Proposals and votes checked and passed on to peers.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.relay.Stats.Relayed }))
	r.CounterFunc("chaind_p2p_consensus_stale_total", "Proposals and votes too old or too far ahead to relay.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.relay.Stats.Stale }))
	r.CounterFunc("chaind_p2p_certificates_total", "Commit certificates of blocks not yet held, verified from peers.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.certs.Stats.Certs }))
	r.CounterFunc("chaind_p2p_evidence_total", "Double-sign evidence verified from peers.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.certs.Stats.Evidence }))
	r.CounterFunc("chaind_p2p_consensus_delivered_total", "Consensus messages handed to this validator's driver.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.relay.Stats.Delivered }))
	r.CounterFunc("chaind_p2p_consensus_displaced_total", "Older consensus messages dropped from a full driver inbox.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.relay.Stats.Displaced }))
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
	r.CounterFunc("chaind_p2p_late_txs_total", "Gossiped transactions that arrived after their block was committed.", stat(func(nn *netNode) *atomic.Uint64 { return &nn.txs.LateTxs }))
}

// listenAddr is the p2p listen address of c ("" off the network).
func (c *P2PConfig) listenAddr() string {
	if c == nil {
		return ""
	}
	return c.ListenAddr
}

// syncingNodes returns the node IDs (validator addresses for validators)
// of this node, if it syncs, and of the peers that say they do. Whether a
// node is catching up is not in the chain: the network views add what
// this node knows.
func (n *Node) syncingNodes() map[types.Address]bool {
	nn := n.net.Load()
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

// nodeNetwork is what the APIs read about the network.
type nodeNetwork struct{ n *Node }

var _ backend.Network = nodeNetwork{}

func (nw nodeNetwork) PeerCount() int {
	if nn := nw.n.net.Load(); nn != nil {
		return nn.host.PeerCount()
	}
	return 0
}

// Syncing reports the catch-up of a node behind its peers, and a
// validator whose consensus is down as syncing too: its head is not the
// network's, whatever it was when it stopped.
func (nw nodeNetwork) Syncing() (backend.SyncProgress, bool) {
	nn := nw.n.net.Load()
	if nn != nil {
		if p, ok := nn.sync.Progress(); ok {
			return backend.SyncProgress{StartingBlock: p.Start, CurrentBlock: p.Current, HighestBlock: p.Highest}, true
		}
	}
	var highest uint64
	if nn != nil {
		highest = nn.sync.BestHeight()
	}
	return nw.n.stalled(highest)
}
