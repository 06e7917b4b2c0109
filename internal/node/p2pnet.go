package node

import (
	"fmt"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/node/p2pnet"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/protocol/blocksync"
	"github.com/chaind/chaind/internal/protocol/relay"
	"github.com/chaind/chaind/internal/types"
)

// P2PConfig makes a node one of a network of processes (p2pnet.Config).
type P2PConfig = p2pnet.Config

var _ bft.Transport = (*relay.Reactor)(nil)

// startNetwork joins the p2p network (package p2pnet). A validator starts
// consensus once it has caught up with its peers (see blocksync).
func (n *Node) startNetwork() error {
	vals := n.cfg.Validators
	if e := pos.Of(n.Chain); vals == nil && e != nil {
		vals = e.Validators(n.Chain) // a proof-of-stake chain: its state decides every set
	}
	n.mu.Lock()
	n.validators = vals
	n.mu.Unlock()
	var driver blocksync.Consensus
	if n.cfg.Validator != nil {
		driver = nodeConsensus{n}
	}
	nn, err := p2pnet.Start(n.cfg.P2P, p2pnet.Deps{Chain: n.Chain, Pool: n.Pool, Validator: n.cfg.Validator, Validators: vals,
		Consensus: driver, Inserted: n.pool.Reset, FDBudget: n.cfg.p2pFDs(), Public: n.cfg.Public, Log: n.log})
	if err != nil {
		return err
	}
	n.net.Store(nn) // before the reactors run: block sync may start the validator, which reads it
	nn.Run(n.stop, &n.wg)
	return nil
}

// closeNetwork disconnects from every peer.
func (n *Node) closeNetwork() {
	if nn := n.net.Load(); nn != nil {
		nn.Close()
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
		return nn.Certs()
	}
	if s, ok := local.(consensus.EvidenceSink); ok {
		return s
	}
	return nil
}

// useEvidencePool hands the network the first of candidates that pools
// evidence for blocks (p2pnet.Net.UseEvidencePool).
func (n *Node) useEvidencePool(candidates ...any) {
	if nn := n.net.Load(); nn != nil {
		nn.UseEvidencePool(candidates...)
	}
}

// onValidated remembers the transactions of a block this validator has
// validated (see txgossip).
func (n *Node) onValidated(b *types.Block) {
	if nn := n.net.Load(); nn != nil {
		nn.Validated(b)
	}
}

// nodeNetwork is what the APIs read about the network.
type nodeNetwork struct{ n *Node }

var _ backend.Network = nodeNetwork{}

// Peers lists the connected peers; none before the node joins a network.
func (nw nodeNetwork) Peers() []backend.PeerInfo {
	if nn := nw.n.net.Load(); nn != nil {
		return nn.Peers()
	}
	return nil
}

func (nw nodeNetwork) PeerCount() int {
	if nn := nw.n.net.Load(); nn != nil {
		return nn.PeerCount()
	}
	return 0
}

// Syncing reports the catch-up of a node behind its peers, and a
// validator whose consensus is down as syncing too: its head is not the
// network's, whatever it was when it stopped.
func (nw nodeNetwork) Syncing() (backend.SyncProgress, bool) {
	var highest uint64
	if nn := nw.n.net.Load(); nn != nil {
		if p, ok := nn.Progress(); ok {
			return p, true
		}
		highest = nn.BestHeight()
	}
	return nw.n.stalled(highest)
}
