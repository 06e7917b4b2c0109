package p2p

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/version"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/hkdf"
)

// ProtocolVersion is the version of this wire protocol. Peers of another
// version are refused at the handshake. 3: the hello states the node's
// release and the network's minVersion.
const ProtocolVersion = 3

// MaxFrameSize caps the plaintext of one frame. A peer announcing a larger
// frame is sending invalid data.
const MaxFrameSize = 4 << 20

// Handshake errors, testable with errors.Is.
var (
	ErrFrameTooLarge   = errors.New("p2p: frame too large")
	ErrDecrypt         = errors.New("p2p: frame does not authenticate")
	ErrBadHello        = errors.New("p2p: malformed hello")
	ErrVersionMismatch = errors.New("p2p: protocol version mismatch")
	ErrChainMismatch   = errors.New("p2p: chain ID mismatch")
	ErrGenesisMismatch = errors.New("p2p: genesis hash mismatch")
	ErrBadKeyExchange  = errors.New("p2p: bad key exchange")
	// ErrBelowMinVersion refuses a peer that runs a release below the
	// network's minVersion, or a peer whose chain requires one above
	// this node's release.
	ErrBelowMinVersion = errors.New("p2p: release below the network's minVersion")
)

// Hello is what each side states, encrypted, right after the key
// exchange. Its signature is over a challenge derived from both ephemeral
// keys, so it proves the sender holds its node key in this very session.
type Hello struct {
	Version    uint32
	ChainID    uint64
	Genesis    [32]byte
	ListenPort uint16 // 0: does not accept connections
	// Software is the sender's release (chaind version) and MinVersion
	// the lowest release its chain's head admits ("" none); each at most
	// versionField bytes.
	Software, MinVersion string
	Signature            [65]byte // R || S || V over keccak256(challenge)
}

// versionField is the fixed size of a release string in the hello, padded
// with zero bytes (the staking parameters allow 64).
const versionField = 64

const helloSize = 4 + 8 + 32 + 2 + 2*versionField + 65

// helloFrameSize is the whole greeting on the wire after the key exchange:
// the hello's ciphertext and tag (127 bytes). Until the handshake is done
// no frame may be larger, so an unauthenticated connection makes the node
// hold at most this much, not a full MaxFrameSize frame.
const helloFrameSize = helloSize + chacha20poly1305.Overhead

func (h *Hello) encode() []byte {
	b := make([]byte, 0, helloSize)
	b = binary.BigEndian.AppendUint32(b, h.Version)
	b = binary.BigEndian.AppendUint64(b, h.ChainID)
	b = append(b, h.Genesis[:]...)
	b = binary.BigEndian.AppendUint16(b, h.ListenPort)
	for _, s := range []string{h.Software, h.MinVersion} {
		var f [versionField]byte
		copy(f[:], s)
		b = append(b, f[:]...)
	}
	return append(b, h.Signature[:]...)
}

// versionOf reads a zero-padded release field: printable ASCII, then only
// zero bytes.
func versionOf(f []byte) (string, error) {
	n := bytes.IndexByte(f, 0)
	if n < 0 {
		n = len(f)
	}
	for i, c := range f {
		if (i < n && (c < 0x21 || c > 0x7e)) || (i >= n && c != 0) {
			return "", fmt.Errorf("%w: release field %q", ErrBadHello, f)
		}
	}
	return string(f[:n]), nil
}

// DecodeHello parses a hello frame's plaintext.
func DecodeHello(b []byte) (Hello, error) {
	var h Hello
	if len(b) != helloSize {
		return h, fmt.Errorf("%w: %d bytes, want %d", ErrBadHello, len(b), helloSize)
	}
	h.Version = binary.BigEndian.Uint32(b)
	h.ChainID = binary.BigEndian.Uint64(b[4:])
	copy(h.Genesis[:], b[12:44])
	h.ListenPort = binary.BigEndian.Uint16(b[44:])
	var err error
	if h.Software, err = versionOf(b[46 : 46+versionField]); err != nil {
		return Hello{}, err
	}
	if h.MinVersion, err = versionOf(b[46+versionField : 46+2*versionField]); err != nil {
		return Hello{}, err
	}
	copy(h.Signature[:], b[46+2*versionField:])
	return h, nil
}

// Chain says which network a node belongs to; peers must agree on all of
// it. Software is this node's release ("": this binary's, version.Binary);
// MinVersion, if set, returns the
// lowest release the network admits now (the minVersion at its chain's
// head). A peer below it is refused, and so is this node by a peer whose
// chain admits none as low as this node's release (each side says so,
// naming both releases, with ErrBelowMinVersion).
type Chain struct {
	ChainID    uint64
	Genesis    [32]byte
	Software   string
	MinVersion func() string
}

// software is this node's release.
func (c Chain) software() string {
	if c.Software == "" {
		return version.Binary
	}
	return c.Software
}

// minVersion is the chain's current minVersion ("" none).
func (c Chain) minVersion() string {
	if c.MinVersion == nil {
		return ""
	}
	return c.MinVersion()
}

// checkRelease applies the minVersion rule to a peer's hello.
func (c Chain) checkRelease(hello Hello) error {
	if min := c.minVersion(); version.Below(hello.Software, min) {
		return fmt.Errorf("%w: the peer runs chaind %q, below the network's minVersion %s; it must upgrade", ErrBelowMinVersion, hello.Software, min)
	}
	if version.Below(c.software(), hello.MinVersion) {
		return fmt.Errorf("%w: this node runs chaind %s and the peer's chain requires minVersion %s; start chaind %s or later", ErrBelowMinVersion, c.software(), hello.MinVersion, hello.MinVersion)
	}
	return nil
}

// secureConn frames and encrypts a TCP connection with ChaCha20-Poly1305,
// one key and one nonce counter per direction. A frame is a 4-byte
// big-endian ciphertext length, then the ciphertext.
type secureConn struct {
	conn       net.Conn
	r          io.Reader
	send, recv cipher.AEAD
	sendN      uint64
	recvN      uint64
	wmu        sync.Mutex
	wbuf, rbuf []byte
	// limit caps the plaintext of the next frames read; 0 means
	// MaxFrameSize. It is the hello's size until the handshake is done.
	limit int
}

func nonce(n uint64) []byte {
	var b [chacha20poly1305.NonceSize]byte
	binary.BigEndian.PutUint64(b[4:], n)
	return b[:]
}

// writeFrame sends one frame at once.
func (s *secureConn) writeFrame(p []byte) error {
	if err := s.bufferFrame(p); err != nil {
		return err
	}
	return s.flush()
}

// bufferFrame encrypts a frame into the write buffer; flush sends what
// the buffer holds. Frames queued back to back thus leave in one write.
func (s *secureConn) bufferFrame(p []byte) error {
	if len(p) > MaxFrameSize {
		return ErrFrameTooLarge
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	start := len(s.wbuf)
	b := append(s.wbuf, 0, 0, 0, 0)
	b = s.send.Seal(b, nonce(s.sendN), p, nil)
	s.sendN++
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	s.wbuf = b
	if len(s.wbuf) >= flushSize {
		return s.flushLocked()
	}
	return nil
}

// flushSize is how much buffered output makes bufferFrame write at once.
const flushSize = 64 << 10

func (s *secureConn) flush() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.flushLocked()
}

func (s *secureConn) flushLocked() error {
	if len(s.wbuf) == 0 {
		return nil
	}
	_, err := s.conn.Write(s.wbuf)
	if cap(s.wbuf) > 4*flushSize+MaxFrameSize/4 {
		s.wbuf = nil // do not keep a huge buffer after one large frame
	} else {
		s.wbuf = s.wbuf[:0]
	}
	return err
}

// readFrame returns the next frame's plaintext, valid until the next call.
func (s *secureConn) readFrame() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	limit := MaxFrameSize
	if s.limit > 0 {
		limit = s.limit
	}
	if n < chacha20poly1305.Overhead || n > uint32(limit+chacha20poly1305.Overhead) {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrFrameTooLarge, n, limit+chacha20poly1305.Overhead)
	}
	ct, err := s.readBody(int(n))
	if err != nil {
		return nil, err
	}
	pt, err := s.recv.Open(ct[:0], nonce(s.recvN), ct, nil)
	if err != nil {
		return nil, ErrDecrypt
	}
	s.recvN++
	return pt, nil
}

// readBody reads n bytes into the read buffer, growing it as the bytes
// arrive rather than to the announced size at once: a peer that announces
// a large frame and sends little of it makes the node hold what it sent.
func (s *secureConn) readBody(n int) ([]byte, error) {
	buf := s.rbuf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(n, max(2*cap(buf), readStep)))
			copy(grown, buf)
			buf = grown
		}
		k, err := io.ReadFull(s.r, buf[len(buf):min(n, cap(buf))])
		buf = buf[:len(buf)+k]
		if err != nil {
			return nil, err
		}
	}
	s.rbuf = buf
	return buf, nil
}

// readStep is the first size of the read buffer for a frame.
const readStep = 64 << 10

// sessionKeys derives both directions' keys and the challenge each side
// signs from the X25519 secret and both ephemeral public keys.
func sessionKeys(secret, ours, theirs []byte) (send, recv cipher.AEAD, challenge [32]byte, err error) {
	lo, hi := ours, theirs
	weLow := string(ours) < string(theirs)
	if !weLow {
		lo, hi = theirs, ours
	}
	info := append(append([]byte("chaind p2p v1"), lo...), hi...)
	kdf := hkdf.New(sha256.New, secret, nil, info)
	var keys [96]byte
	if _, err = io.ReadFull(kdf, keys[:]); err != nil {
		return
	}
	loToHi, hiToLo := keys[:32], keys[32:64]
	copy(challenge[:], keys[64:])
	if !weLow {
		loToHi, hiToLo = hiToLo, loToHi
	}
	if send, err = chacha20poly1305.New(loToHi); err != nil {
		return
	}
	recv, err = chacha20poly1305.New(hiToLo)
	return
}

// handshake runs the key exchange and the hello on conn (whose deadline
// the caller sets) and returns the secured connection with the peer's ID
// and hello. Both ends run the same steps.
func handshake(conn net.Conn, key *secp256k1.PrivateKey, chain Chain, listenPort uint16) (*secureConn, ID, Hello, error) {
	eph, err := newEphemeral()
	if err != nil {
		return nil, ID{}, Hello{}, err
	}
	return handshakeWith(conn, eph, key, chain, listenPort)
}

// clip fits a release string into its hello field; one that does not fit
// is not a release (the staking parameters refuse it).
func clip(s string) string {
	if len(s) > versionField {
		return s[:versionField]
	}
	return s
}

// ephemeral is a session's X25519 key pair.
type ephemeral struct {
	priv [32]byte
	pub  []byte
}

func newEphemeral() (ephemeral, error) {
	var e ephemeral
	if _, err := rand.Read(e.priv[:]); err != nil {
		return e, err
	}
	var err error
	e.pub, err = curve25519.X25519(e.priv[:], curve25519.Basepoint)
	return e, err
}

// handshakeWith is handshake with a given ephemeral key: the fuzz harness
// fixes it so that it can play the other side of a session.
func handshakeWith(conn net.Conn, eph ephemeral, key *secp256k1.PrivateKey, chain Chain, listenPort uint16) (*secureConn, ID, Hello, error) {
	priv, pub := eph.priv, eph.pub
	werr := make(chan error, 1)
	go func() { _, err := conn.Write(pub); werr <- err }()
	theirs := make([]byte, 32)
	if _, err := io.ReadFull(conn, theirs); err != nil {
		return nil, ID{}, Hello{}, err
	}
	if err := <-werr; err != nil {
		return nil, ID{}, Hello{}, err
	}
	if string(theirs) == string(pub) {
		return nil, ID{}, Hello{}, fmt.Errorf("%w: reflected key", ErrBadKeyExchange)
	}
	secret, err := curve25519.X25519(priv[:], theirs) // fails on low-order points
	if err != nil {
		return nil, ID{}, Hello{}, fmt.Errorf("%w: %v", ErrBadKeyExchange, err)
	}
	send, recv, challenge, err := sessionKeys(secret, pub, theirs)
	if err != nil {
		return nil, ID{}, Hello{}, err
	}
	sc := &secureConn{conn: conn, r: conn, send: send, recv: recv, limit: helloSize}
	digest := crypto.Keccak256(challenge[:])
	ours := Hello{Version: ProtocolVersion, ChainID: chain.ChainID, Genesis: chain.Genesis, ListenPort: listenPort,
		Software: clip(chain.software()), MinVersion: clip(chain.minVersion()), Signature: crypto.Sign(digest, key)}
	go func() { werr <- sc.writeFrame(ours.encode()) }()
	frame, err := sc.readFrame()
	if err != nil {
		return nil, ID{}, Hello{}, err
	}
	if err := <-werr; err != nil {
		return nil, ID{}, Hello{}, err
	}
	hello, err := DecodeHello(frame)
	if err != nil {
		return nil, ID{}, Hello{}, err
	}
	id, err := crypto.RecoverAddress(digest, hello.Signature[:])
	if err != nil {
		return nil, ID{}, Hello{}, fmt.Errorf("%w: signature: %v", ErrBadHello, err)
	}
	switch {
	case hello.Version != ProtocolVersion:
		return nil, ID{}, Hello{}, fmt.Errorf("%w: peer speaks %d, we speak %d", ErrVersionMismatch, hello.Version, ProtocolVersion)
	case hello.ChainID != chain.ChainID:
		return nil, ID{}, Hello{}, fmt.Errorf("%w: peer is on %d, we are on %d", ErrChainMismatch, hello.ChainID, chain.ChainID)
	case hello.Genesis != chain.Genesis:
		return nil, ID{}, Hello{}, fmt.Errorf("%w: peer has %x, we have %x", ErrGenesisMismatch, hello.Genesis, chain.Genesis)
	}
	if err := chain.checkRelease(hello); err != nil {
		return nil, ID{}, Hello{}, err
	}
	sc.limit = 0 // authenticated from here on: full frames
	return sc, ID(id), hello, nil
}
