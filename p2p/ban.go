package p2p

import (
	"net"
	"time"
)

// Bans. A peer that sends what no honest peer sends is dropped and its
// key refused for BanDuration. Keys cost nothing, so a key ban alone lets
// the same machine straight back in with a new one: an IP is banned too,
// for IPBanDuration, once IPBanAfter distinct keys from it have been
// banned within IPBanDuration. Not at the first offence, because honest
// nodes share IPs (every node of a loopback test network is 127.0.0.1,
// nodes behind one NAT) and one bad node should not cut its neighbours
// off. An IPv6 address counts as its /64, which one machine usually has
// whole.
//
// Configured peers are exempt, so an operator's own network survives a
// ban of an IP it shares with a bad node: the static and private peers'
// offences are not counted against their IP; a banned IP does not stop
// this node dialing its static peers or bootnodes, nor a static or
// private peer connecting from it; and connections from the IP of a
// static peer (written as an IP) are not closed at accept, only refused
// after the handshake if their key is not a configured peer's. Connections
// from any other banned IP are closed at accept, before any read, and
// learned addresses at a banned IP are not dialed.

// Defaults of per-IP bans.
const (
	defaultIPBanAfter    = 2
	defaultIPBanDuration = time.Hour
	// maxOffenceIPs bounds the IPs with recent offences remembered; past
	// it the expired ones are forgotten, and if none is, new offences
	// count against their key only.
	maxOffenceIPs = 4096
)

// ipBans remembers recent offences per IP and the IPs banned; the host's
// mutex guards it.
type ipBans struct {
	offences map[string]map[ID]time.Time // per IP key: keys banned from it, and when
	until    map[string]time.Time
}

// ipKey is what an IP is counted as: itself for IPv4, its /64 for IPv6.
func ipKey(ip string) string {
	a := net.ParseIP(ip)
	switch {
	case a == nil:
		return ip
	case a.To4() != nil:
		return a.String()
	}
	return a.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// configured reports whether id is one of the operator's peers.
func (h *Host) configured(id ID) bool {
	if h.private(id) {
		return true
	}
	for _, a := range h.cfg.StaticPeers {
		if a.ID == id {
			return true
		}
	}
	return false
}

// Ban drops a peer and refuses it for the ban duration; enough banned
// keys from one IP get the IP banned.
func (h *Host) Ban(id ID, reason error) {
	now := time.Now()
	h.mu.Lock()
	h.pruneBans(now)
	h.bans[id] = now.Add(h.cfg.BanDuration)
	p := h.peers[id]
	var ipBanned string
	if p != nil && !h.configured(id) {
		ipBanned = h.offence(ipKey(p.remoteIP()), id, now)
	}
	h.mu.Unlock()
	h.cfg.Logf("banning peer %s: %v", id, reason)
	if ipBanned != "" {
		h.cfg.Logf("banning IP %s for %v: %d keys from it banned", ipBanned, h.cfg.IPBanDuration, h.cfg.IPBanAfter)
	}
	if p != nil {
		p.close(reason)
	}
}

// offence counts id's ban against ip and bans ip if it is the last one
// allowed; it returns ip if so. The host's mutex is held.
func (h *Host) offence(ip string, id ID, now time.Time) string {
	if ip == "" {
		return ""
	}
	keys := h.ipb.offences[ip]
	if keys == nil {
		if len(h.ipb.offences) >= maxOffenceIPs {
			return ""
		}
		keys = make(map[ID]time.Time)
		h.ipb.offences[ip] = keys
	}
	for k, at := range keys {
		if now.Sub(at) >= h.cfg.IPBanDuration {
			delete(keys, k)
		}
	}
	keys[id] = now
	if len(keys) < h.cfg.IPBanAfter {
		return ""
	}
	delete(h.ipb.offences, ip)
	h.ipb.until[ip] = now.Add(h.cfg.IPBanDuration)
	return ip
}

func (h *Host) banned(id ID) bool {
	until, ok := h.bans[id]
	if ok && time.Now().After(until) {
		delete(h.bans, id)
		return false
	}
	return ok
}

// ipBanned reports whether ip (an address, not yet an ipKey) is banned.
// The host's mutex is held.
func (h *Host) ipBanned(ip string, now time.Time) bool {
	k := ipKey(ip)
	until, ok := h.ipb.until[k]
	if ok && now.After(until) {
		delete(h.ipb.until, k)
		return false
	}
	return ok
}

// pruneBans forgets expired bans and offences, so that what a stream of
// offenders leaves behind stays bounded by the ban durations. The host's
// mutex is held.
func (h *Host) pruneBans(now time.Time) {
	for id, until := range h.bans {
		if now.After(until) {
			delete(h.bans, id)
		}
	}
	for ip, until := range h.ipb.until {
		if now.After(until) {
			delete(h.ipb.until, ip)
		}
	}
	if len(h.ipb.offences) < maxOffenceIPs {
		return
	}
	for ip, keys := range h.ipb.offences {
		for k, at := range keys {
			if now.Sub(at) >= h.cfg.IPBanDuration {
				delete(keys, k)
			}
		}
		if len(keys) == 0 {
			delete(h.ipb.offences, ip)
		}
	}
}

// staticIPs lists the IPs of the static peers written as IPs: inbound
// connections from them are not closed at accept for a ban of their IP.
func staticIPs(peers []PeerAddr) map[string]bool {
	out := make(map[string]bool)
	for _, a := range peers {
		if ip := net.ParseIP(hostOf(a.Addr)); ip != nil {
			out[ip.String()] = true
		}
	}
	return out
}
