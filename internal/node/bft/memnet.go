package bft

import (
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// MemNetwork connects validators of one process. Each endpoint has a
// bounded inbox; when it is full, messages are dropped, as a congested
// link would (the core retransmits).
type MemNetwork struct {
	mu    sync.RWMutex
	peers map[types.Address]*MemEndpoint
	order []types.Address
	tap   func(from types.Address, msg []byte)
}

// NewMemNetwork returns an empty network.
func NewMemNetwork() *MemNetwork { return &MemNetwork{peers: make(map[types.Address]*MemEndpoint)} }

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
	e := &MemEndpoint{net: n, addr: addr, inbox: make(chan Inbound, 4096)}
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

func (n *MemNetwork) deliver(from, to types.Address, msg []byte) {
	if e := n.peers[to]; e != nil {
		select {
		case e.inbox <- Inbound{From: from, Msg: msg}:
		default:
		}
	}
}

// MemEndpoint is one validator's Transport on a MemNetwork.
type MemEndpoint struct {
	net   *MemNetwork
	addr  types.Address
	inbox chan Inbound
}

// Broadcast implements Transport.
func (e *MemEndpoint) Broadcast(msg []byte) {
	e.net.mu.RLock()
	defer e.net.mu.RUnlock()
	if e.net.tap != nil {
		e.net.tap(e.addr, msg)
	}
	for _, to := range e.net.order {
		if to != e.addr {
			e.net.deliver(e.addr, to, msg)
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
	e.net.deliver(e.addr, to, msg)
}

// Receive implements Transport.
func (e *MemEndpoint) Receive() <-chan Inbound { return e.inbox }
