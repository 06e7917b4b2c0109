// Package p2p moves bytes between the nodes of one chain: node identity,
// an authenticated and encrypted TCP transport, admission of inbound
// connections (admit.go), peers with priority send queues bounded in
// bytes and keepalive, dialing with backoff, peer exchange that resists
// poisoning (pex.go), bans per key and per IP (ban.go), and topics whose
// messages are gossiped without repeats. It knows nothing of blocks or
// transactions: the node maps topics to those.
package p2p

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// ID names a node: the address (last 20 bytes of keccak256 of the public
// key) of its secp256k1 node key. A validator's node key is its validator
// key, so its ID is its validator address.
type ID [20]byte

// IDOf returns the ID of a node key.
func IDOf(key *secp256k1.PrivateKey) ID { return ID(crypto.PrivkeyToAddress(key)) }

func (id ID) String() string { return hex.EncodeToString(id[:]) }

// ParseID parses 40 hex digits, with or without 0x.
func ParseID(s string) (ID, error) {
	var id ID
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("p2p: node ID %q is not 40 hex digits", s)
	}
	copy(id[:], b)
	return id, nil
}

// PeerAddr is where a peer listens, and optionally who it must be.
type PeerAddr struct {
	ID   ID // zero: any node
	Addr string
}

func (a PeerAddr) String() string {
	if a.ID == (ID{}) {
		return a.Addr
	}
	return a.ID.String() + "@" + a.Addr
}

// ErrBadPeerAddr reports a peer address that is not [ID@]host:port.
var ErrBadPeerAddr = errors.New("p2p: peer address must be [ID@]host:port")

// ParsePeerAddr parses "ID@host:port" or "host:port".
func ParsePeerAddr(s string) (PeerAddr, error) {
	var a PeerAddr
	s = strings.TrimSpace(s)
	if at := strings.IndexByte(s, '@'); at >= 0 {
		id, err := ParseID(s[:at])
		if err != nil {
			return a, fmt.Errorf("%w: %v", ErrBadPeerAddr, err)
		}
		a.ID, s = id, s[at+1:]
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || port == "" {
		return a, fmt.Errorf("%w: %q", ErrBadPeerAddr, s)
	}
	a.Addr = s
	return a, nil
}

// ParsePeerAddrs parses a comma-separated list, ignoring empty items.
func ParsePeerAddrs(s string) ([]PeerAddr, error) {
	var out []PeerAddr
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		a, err := ParsePeerAddr(item)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
