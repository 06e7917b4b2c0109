package node

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/node/bft"
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

// netNode is a node's presence on the p2p network. It is the validator's
// bft.Transport: proposals and votes are gossiped at high priority (every
// node relays them, see onVote); status messages and the answers to them
// go straight to the peer concerned. The driver copes with loss.
type netNode struct {
	n     *Node
	host  *p2p.Host
	inbox chan bft.Inbound
	sync  *syncer
	gossipState
}

var _ bft.Transport = (*netNode)(nil)

// Broadcast sends a message of the local driver. Proposals and votes go
// out as gossip, which skips peers known to have them: a retransmission
// reaches only peers that lack the message.
func (nn *netNode) Broadcast(msg []byte) {
	if signedMessage(msg) {
		nn.traceVote("vote sent", msg)
		nn.host.Broadcast(topicVote, msg)
		return
	}
	nn.host.Broadcast(topicConsensus, msg)
}

func (nn *netNode) Send(to types.Address, msg []byte) { nn.host.Send(p2p.ID(to), topicConsensus, msg) }

func (nn *netNode) Receive() <-chan bft.Inbound { return nn.inbox }

// startNetwork joins the p2p network. A validator starts consensus once
// it has caught up with its peers (see syncer).
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
	if vals == nil && n.Chain.Config.Natives != nil {
		vals = newStakeSchedule(n.Chain) // a proof-of-stake chain: its state decides every set
	}
	if vals == nil {
		return errors.New("node: a node on a p2p network needs the validator sets to check certificates")
	}
	n.mu.Lock()
	n.validators = vals
	n.mu.Unlock()
	nn := &netNode{n: n, inbox: make(chan bft.Inbound, 4096)}
	nn.known = newKnownTxs(1 << 16)
	host, err := p2p.New(p2p.Config{
		Key:        key,
		Chain:      p2p.Chain{ChainID: n.Chain.Config.ChainID, Genesis: n.Chain.Genesis().Hash()},
		ListenAddr: cfg.ListenAddr, StaticPeers: cfg.StaticPeers, Bootnodes: cfg.Bootnodes, MaxPeers: cfg.MaxPeers,
		NoPeerExchange: cfg.NoPeerExchange, PrivatePeers: cfg.PrivatePeers,
		Logf:         func(format string, args ...any) { n.log.Debug(fmt.Sprintf(format, args...)) },
		Connected:    func(id p2p.ID) { nn.host.Send(id, topicStatus, nn.status().encode()) },
		Disconnected: func(id p2p.ID) { nn.sync.forget(id) },
	})
	if err != nil {
		return err
	}
	nn.host = host
	nn.sync = newSyncer(nn)
	if n.cfg.Validator != nil {
		host.Handle(topicConsensus, p2p.TopicConfig{Priority: p2p.High}, nn.onConsensus)
	}
	nn.handleGossip()
	host.Handle(topicTx, p2p.TopicConfig{Priority: p2p.Low, Gossip: true}, nn.onTx)
	host.Handle(topicStatus, p2p.TopicConfig{Priority: p2p.High}, nn.sync.onStatus)
	host.Handle(topicGetBlocks, p2p.TopicConfig{Priority: p2p.Low}, nn.onGetBlocks)
	host.Handle(topicBlocks, p2p.TopicConfig{Priority: p2p.Low}, nn.sync.onBlocks)
	if err := host.Start(); err != nil {
		return err
	}
	n.net.Store(nn)
	if a := host.Addr(); a != nil {
		n.log.Info("listening", "kind", "p2p", "addr", a.String(), "id", host.ID().String())
	}
	if len(cfg.StaticPeers) == 0 && len(cfg.Bootnodes) == 0 {
		n.log.Warn("no peers configured: this node waits for others to connect to it", "chain", n.Chain.Config.ChainID)
	}
	n.wg.Add(3)
	go nn.gossipTransactions()
	go nn.announceHeads()
	go nn.sync.run()
	return nil
}

// closeNetwork disconnects from every peer.
func (n *Node) closeNetwork() {
	if nn := n.net.Load(); nn != nil {
		nn.host.Close()
	}
}

func (nn *netNode) status() statusMsg {
	h := nn.n.Chain.Head()
	return statusMsg{Height: h.Number(), Head: h.Hash(), Syncing: nn.sync.isSyncing()}
}

// onConsensus hands a consensus message to the driver. A message that
// does not decode is the peer's offence; one with a bad signature is the
// driver's to drop.
func (nn *netNode) onConsensus(from p2p.ID, msg []byte) error {
	if _, err := bft.DecodeMessage(msg); err != nil {
		return err
	}
	nn.traceVote("vote received", msg)
	nn.deliver(from, msg)
	return nil
}

// onTx puts a gossiped transaction into the pool; the pool's feed then
// passes it on to peers that lack it. A transaction the pool refuses
// (already known, nonce too low) is not an offence; one of a block we
// already executed is not checked again (see knownTxs).
func (nn *netNode) onTx(_ p2p.ID, b []byte) error {
	tx, err := types.DecodeTx(b)
	if err != nil {
		return err
	}
	committed, validated := nn.known.lookup(tx.Hash())
	if committed {
		nn.stats.LateTxs.Add(1)
		return nil
	}
	if validated != nil {
		tx.ShareSender(validated)
	}
	nn.n.Pool.Add(tx)
	return nil
}

// gossipTransactions sends every transaction the pool accepts, from RPC or
// from a peer, to the peers that do not have it.
func (nn *netNode) gossipTransactions() {
	defer nn.n.wg.Done()
	txs, cancel := nn.n.Pool.Subscribe(4096)
	defer cancel()
	for {
		select {
		case <-nn.n.stop:
			return
		case tx, ok := <-txs:
			if !ok {
				return
			}
			if b, err := tx.MarshalBinary(); err == nil {
				nn.host.Broadcast(topicTx, b)
			}
		}
	}
}

// announceHeads tells every peer about each new head, so that nodes
// behind fetch it.
func (nn *netNode) announceHeads() {
	defer nn.n.wg.Done()
	heads, cancel := nn.n.Chain.Subscribe(64)
	defer cancel()
	for {
		select {
		case <-nn.n.stop:
			return
		case h, ok := <-heads:
			if !ok {
				return
			}
			nn.known.add(h, true)
			nn.host.Broadcast(topicStatus, nn.status().encode())
			if !nn.sync.isSyncing() { // nobody needs the proofs of a node that trails
				nn.announceCert(h.Number())
			}
		}
	}
}

// onGetBlocks answers a sync request with the blocks we have, each with
// its certificate.
func (nn *netNode) onGetBlocks(from p2p.ID, b []byte) error {
	req, err := decodeGetBlocks(b)
	if err != nil {
		return err
	}
	c := nn.n.Chain
	var out []certifiedBlock
	size := 0
	for num := req.From; num < req.From+uint64(req.Count) && num <= c.Head().Number() && size < maxBlocksBytes; num++ {
		blk, err := c.BlockByNumber(num)
		if err != nil {
			break
		}
		cert, err := c.Certificate(num)
		if err != nil {
			break // decided before certificates were kept; nothing to prove it with
		}
		out = append(out, certifiedBlock{Block: blk, Cert: cert})
		size += int(blk.Size()) + len(cert)
	}
	nn.host.Send(from, topicBlocks, encodeBlocks(out))
	return nil
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
		if p, ok := nn.sync.progress(); ok {
			return p, true
		}
	}
	var highest uint64
	if nn != nil {
		highest, _, _ = nn.sync.best()
	}
	return nw.n.stalled(highest)
}

// verifyCertified checks that cert decided b, against the validator set of
// b's height.
func verifyCertified(chainID uint64, vals consensus.ValidatorSource, b *types.Block, raw []byte) error {
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
