package p2p

import (
	"errors"
	"slices"
)

// ErrBootnodesNeedExchange reports bootnodes configured on a host with
// peer exchange off: nothing could be learned from them.
var ErrBootnodesNeedExchange = errors.New("p2p: bootnodes need peer exchange; list the peers as static peers instead")

// askPeers asks p for the addresses it knows, unless peer exchange is off.
func (h *Host) askPeers(p *peer) {
	if !h.cfg.NoPeerExchange {
		p.send(Low, []byte{kindGetPeers})
	}
}

// private reports whether id's address is kept out of peer exchange.
func (h *Host) private(id ID) bool { return slices.Contains(h.cfg.PrivatePeers, id) }

// KnownAddrs lists the addresses the host has learned (bootnodes, peers
// that dialed it, and what peers shared) and may dial to find peers.
func (h *Host) KnownAddrs() []PeerAddr {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]PeerAddr, 0, len(h.learned))
	for _, c := range h.learned {
		out = append(out, c.addr)
	}
	return out
}
