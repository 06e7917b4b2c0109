package wire

import (
	"encoding/binary"
	"fmt"
	"net"
	"strconv"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Node kinds a NodeAnnouncement names. Validators do not announce: the
// staking state lists them.
const (
	KindFull byte = 1 // verifies and relays blocks
	KindRPC  byte = 2 // a full node that serves JSON-RPC to the public
)

// KindName is the node list's name of an announced kind.
func KindName(k byte) string {
	switch k {
	case KindFull:
		return "full"
	case KindRPC:
		return "rpc"
	}
	return ""
}

// Bounds of an announcement's strings, so that one is at most
// MaxNodeAnnouncementBytes.
const (
	maxAnnouncedAddr    = 255
	maxAnnouncedVersion = 64
	// MaxNodeAnnouncementBytes is the largest encoded announcement.
	MaxNodeAnnouncementBytes = 8 + 20 + 1 + 8 + 1 + 1 + maxAnnouncedAddr + 1 + maxAnnouncedVersion + 65
)

// NodeAnnouncement is a full or RPC node's signed statement that it is on
// the network: of what kind, where peers reach it (Addr, host:port; empty
// when it accepts no connections), whether it is catching up and which
// release it runs. The signer's key is the node's p2p key: its public key
// is recovered from the signature, and must be that of the ID stated, so
// an announcement changed on the way is refused. ChainID binds
// it to one chain; TimeMs (unix milliseconds when signed) orders a node's
// announcements, so a replayed older one is refused and an old one
// expires.
type NodeAnnouncement struct {
	ChainID   uint64
	ID        p2p.ID
	Kind      byte
	TimeMs    uint64
	Syncing   bool
	Addr      string
	Version   string
	Signature [65]byte
}

// body is the signed part: everything but the signature.
func (a *NodeAnnouncement) body() []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, MaxNodeAnnouncementBytes), a.ChainID)
	b = append(b, a.ID[:]...)
	b = append(b, a.Kind)
	b = binary.BigEndian.AppendUint64(b, a.TimeMs)
	if a.Syncing {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = append(b, byte(len(a.Addr)))
	b = append(b, a.Addr...)
	b = append(b, byte(len(a.Version)))
	return append(b, a.Version...)
}

// signingDigest is what the node key signs: a domain tag, so that no
// other signature of that key (a vote, a handshake) passes for an
// announcement, then the body.
func (a *NodeAnnouncement) signingDigest() [32]byte {
	return crypto.Keccak256([]byte("chaind node announcement"), a.body())
}

// Sign sets the ID to the node key's and signs with it.
func (a *NodeAnnouncement) Sign(key *secp256k1.PrivateKey) {
	a.ID = p2p.IDOf(key)
	a.Signature = crypto.Sign(a.signingDigest(), key)
}

// ErrForged is returned for an announcement not signed by the node it
// names.
var ErrForged = fmt.Errorf("%w: announcement not signed by its node", ErrMalformed)

// PublicKey recovers the announcing node's compressed public key from the
// signature; ErrForged if the key is not that of the ID stated (signed by
// another key, or changed since it was signed).
func (a *NodeAnnouncement) PublicKey() ([]byte, error) {
	pub, err := crypto.RecoverPublicKey(a.signingDigest(), a.Signature[:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrForged, err)
	}
	if p2p.ID(crypto.PubkeyToAddress(pub)) != a.ID {
		return nil, fmt.Errorf("%w: %s", ErrForged, a.ID)
	}
	return pub.SerializeCompressed(), nil
}

// Encode returns the wire form of a.
func (a *NodeAnnouncement) Encode() []byte { return append(a.body(), a.Signature[:]...) }

// DecodeNodeAnnouncement parses NodeAnnouncement.Encode output, refusing
// an unknown kind, an address that is not host:port and a version that
// is not printable. It does not check the signature (PublicKey does).
func DecodeNodeAnnouncement(b []byte) (NodeAnnouncement, error) {
	var a NodeAnnouncement
	bad := func(what string) (NodeAnnouncement, error) {
		return NodeAnnouncement{}, fmt.Errorf("%w: node announcement: %s", ErrMalformed, what)
	}
	if len(b) < 8+20+1+8+1+1+1+65 || len(b) > MaxNodeAnnouncementBytes {
		return bad(fmt.Sprintf("%d bytes", len(b)))
	}
	a.ChainID = binary.BigEndian.Uint64(b)
	copy(a.ID[:], b[8:28])
	a.Kind = b[28]
	a.TimeMs = binary.BigEndian.Uint64(b[29:])
	if b[37] > 1 {
		return bad("syncing flag")
	}
	a.Syncing = b[37] == 1
	rest := b[38:]
	str := func(max int) (string, bool) {
		if len(rest) < 1 || int(rest[0]) > max || len(rest) < 1+int(rest[0]) {
			return "", false
		}
		s := string(rest[1 : 1+rest[0]])
		rest = rest[1+len(s):]
		return s, true
	}
	var ok bool
	if a.Addr, ok = str(maxAnnouncedAddr); !ok {
		return bad("address length")
	}
	if a.Version, ok = str(maxAnnouncedVersion); !ok {
		return bad("version length")
	}
	if len(rest) != 65 {
		return bad(fmt.Sprintf("%d bytes of signature", len(rest)))
	}
	copy(a.Signature[:], rest)
	if KindName(a.Kind) == "" {
		return bad(fmt.Sprintf("kind %d", a.Kind))
	}
	if a.Addr != "" {
		host, port, err := net.SplitHostPort(a.Addr)
		if p, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil || p == 0 || host == "" {
			return bad(fmt.Sprintf("address %q", a.Addr))
		}
	}
	for _, c := range []byte(a.Version) {
		if c < 0x21 || c > 0x7e {
			return bad(fmt.Sprintf("version %q", a.Version))
		}
	}
	return a, nil
}
