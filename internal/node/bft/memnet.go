package bft

import (
	"sync"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// MemNetwork connects validators of one process. Each endpoint has a
// bounded inbox; when it is full, messages are dropped, as a congested
// link would (the core retransmits). A message is decoded and its
// signature checked once, when it is sent, as a network's edge would; one
// that fails reaches nobody.
type MemNetwork struct {
	chainID uint64
	mu      sync.RWMutex
	peers   map[types.Address]*MemEndpoint
	order   []types.Address
	tap     func(from types.Address, msg []byte)
}

// NewMemNetwork returns an empty network of validators of chainID.
func NewMemNetwork(chainID uint64) *MemNetwork {
	return &MemNetwork{chainID: chainID, peers: make(map[types.Address]*MemEndpoint)}
}

// Tap registers a function that sees every message sent (for tests and
// tracing). It must not block.
func (n *MemNetwork) Tap(f func(from types.Address, msg []byte)) {
	n.mu.Lock()
	n.tap = f
	n.mu.Unlock()
}

// Join attaches a validator and returns its transport. Joining again with
// the same address replaces the old endpoint (a restart).
func (n *MemNetwork) Join(addr types.Address) *MemEndpoint {
	n.mu.Lock()
	defer n.mu.Unlock()
	e := &MemEndpoint{net: n, addr: addr, inbox: make(chan consensus.Verified, 4096)}
	if _, ok := n.peers[addr]; !ok {
		n.order = append(n.order, addr)
	}
	n.peers[addr] = e
	return e
}

// Leave detaches a validator (a crash): messages to it are dropped.
func (n *MemNetwork) Leave(addr types.Address) {
	n.mu.Lock()
	delete(n.peers, addr)
	n.mu.Unlock()
}

func (n *MemNetwork) deliver(to types.Address, m consensus.Verified) {
	if e := n.peers[to]; e != nil {
		select {
		case e.inbox <- m:
		default:
		}
	}
}

// MemEndpoint is one validator's Transport on a MemNetwork.
type MemEndpoint struct {
	net   *MemNetwork
	addr  types.Address
	inbox chan consensus.Verified
}

// Broadcast implements Transport.
func (e *MemEndpoint) Broadcast(msg []byte) {
	e.net.mu.RLock()
	defer e.net.mu.RUnlock()
	if e.net.tap != nil {
		e.net.tap(e.addr, msg)
	}
	m, err := consensus.VerifyMessage(e.net.chainID, e.addr, msg)
	if err != nil {
		return
	}
	for _, to := range e.net.order {
		if to != e.addr {
			e.net.deliver(to, m)
		}
	}
}

// Send implements Transport.
func (e *MemEndpoint) Send(to types.Address, msg []byte) {
	e.net.mu.RLock()
	defer e.net.mu.RUnlock()
	if e.net.tap != nil {
		e.net.tap(e.addr, msg)
	}
	if m, err := consensus.VerifyMessage(e.net.chainID, e.addr, msg); err == nil {
		e.net.deliver(to, m)
	}
}

// Receive implements Transport.
func (e *MemEndpoint) Receive() <-chan consensus.Verified { return e.inbox }
