package p2p

import (
	"bytes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/curve25519"
)

// memConn is a net.Conn over memory: reads come from a fixed script,
// writes are kept. Nothing blocks, so a handshake against it needs no
// socket, no second goroutine playing the peer and no timer.
type memConn struct {
	r    *bytes.Reader
	mu   sync.Mutex
	out  bytes.Buffer
	read int
}

func newMemConn(script []byte) *memConn { return &memConn{r: bytes.NewReader(script)} }

func (c *memConn) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.read += n
	return n, err
}

func (c *memConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(b)
}

func (c *memConn) written() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.out.Bytes())
}

func (*memConn) Close() error                     { return nil }
func (*memConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (*memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2} }
func (*memConn) SetDeadline(time.Time) error      { return nil }
func (*memConn) SetReadDeadline(time.Time) error  { return nil }
func (*memConn) SetWriteDeadline(time.Time) error { return nil }

// The fixed keys of the handshake harness: the side under test (local)
// and the peer the harness plays (remote).
var (
	fuzzLocalEph = func() ephemeral {
		e := ephemeral{priv: [32]byte{1}}
		e.pub, _ = curve25519.X25519(e.priv[:], curve25519.Basepoint)
		return e
	}()
	fuzzLocalKey  = secp256k1.PrivKeyFromBytes(bytes.Repeat([]byte{0x11}, 32))
	fuzzRemoteKey = secp256k1.PrivKeyFromBytes(bytes.Repeat([]byte{0x22}, 32))
)

// remoteHello is what the harness's peer sends: its ephemeral key and its
// hello, each field a fuzz input, so that an honest choice completes the
// handshake and any change is a deviation the local side must refuse.
type remoteHello struct {
	ephSeed     []byte // the peer's ephemeral private key is sha256 of it
	rawEph      bool   // send ephSeed itself as the public key (no session keys known)
	version     uint32
	chainID     uint64
	genesisFlip byte   // XORed into the genesis hash's first byte
	port        uint16 // the listen port stated
	badSig      bool   // sign another challenge (the peer does not prove its key)
	sizeDelta   int32  // added to the hello frame's length prefix
	flip        uint16 // if non-zero, the byte at (flip-1) mod length is inverted
	tail        []byte // an application frame after the handshake
}

// script builds the bytes the peer sends and says whether an honest local
// side must accept them. It also returns the peer's receiving session, to
// check what the local side sent.
func (m remoteHello) script() (script []byte, honest, tailIntact bool, recv *secureConn) {
	s := peerSessionOf(m.ephSeed, m.rawEph)
	pub, err, send, rcv, kerr := s.pub, s.err, s.send, s.recv, s.kerr
	script = append(script, pub...)
	// A signature over another challenge still recovers to some key: the
	// handshake completes, but proves a node other than the peer's.
	honest = !m.rawEph && err == nil && kerr == nil && m.version == ProtocolVersion && m.chainID == testChain.ChainID &&
		m.genesisFlip == 0 && m.sizeDelta == 0
	if err != nil || kerr != nil {
		return append(script, m.tail...), false, false, nil
	}
	h := Hello{Version: m.version, ChainID: m.chainID, Genesis: testChain.Genesis, ListenPort: m.port, Signature: s.sig}
	if m.badSig {
		h.Signature = s.badSig
	}
	h.Genesis[0] ^= m.genesisFlip
	peer := &secureConn{send: send}
	peer.bufferFrame(h.encode())
	peer.bufferFrame(m.tail)
	frames := peer.wbuf
	binary.BigEndian.PutUint32(frames, uint32(int32(binary.BigEndian.Uint32(frames))+m.sizeDelta))
	script = append(script, frames...)
	tailIntact = true
	if m.flip != 0 {
		i := int(m.flip-1) % len(script)
		script[i] ^= 0xff
		if i < 32+4+helloFrameSize {
			honest = false
		} else {
			tailIntact = false
		}
	}
	return script, honest, tailIntact, &secureConn{r: nil, recv: rcv}
}

// peerSession is the harness peer's side of the key exchange for one
// ephemeral key: what X25519 and signing give, which the fuzzer would
// otherwise recompute for every input that only changes the hello.
type peerSession struct {
	pub         []byte
	err, kerr   error
	send, recv  cipher.AEAD
	challenge   [32]byte
	sig, badSig [65]byte
}

var peerSessions = struct {
	sync.Mutex
	m map[string]*peerSession
}{m: make(map[string]*peerSession)}

func peerSessionOf(seed []byte, raw bool) *peerSession {
	k := string(seed)
	if raw {
		k = "raw:" + k
	}
	peerSessions.Lock()
	defer peerSessions.Unlock()
	if s, ok := peerSessions.m[k]; ok {
		return s
	}
	if len(peerSessions.m) >= 4096 {
		clear(peerSessions.m)
	}
	s := &peerSession{}
	priv := sha256.Sum256(seed)
	s.pub, _ = curve25519.X25519(priv[:], curve25519.Basepoint)
	if raw {
		s.pub = append([]byte(nil), seed...)
	}
	var secret []byte
	secret, s.err = curve25519.X25519(priv[:], fuzzLocalEph.pub)
	if s.err == nil {
		s.send, s.recv, s.challenge, s.kerr = sessionKeys(secret, s.pub, fuzzLocalEph.pub)
		s.sig = crypto.Sign(crypto.Keccak256(s.challenge[:]), fuzzRemoteKey)
		other := s.challenge
		other[0] ^= 1
		s.badSig = crypto.Sign(crypto.Keccak256(other[:]), fuzzRemoteKey)
	}
	peerSessions.m[k] = s
	return s
}

// runHandshake plays m against the local side and checks the outcome.
func runHandshake(t testing.TB, m remoteHello) {
	script, honest, tailIntact, peer := m.script()
	c := newMemConn(script)
	sc, id, hello, err := handshakeWith(c, fuzzLocalEph, fuzzLocalKey, testChain, 7)
	if c.read > 32+4+helloFrameSize {
		t.Fatalf("handshake read %d bytes, more than the key and the greeting (%d)", c.read, 32+4+helloFrameSize)
	}
	if err != nil {
		if honest {
			t.Fatalf("honest peer refused: %v", err)
		}
		return
	}
	if !honest {
		t.Fatalf("deviating peer %+v accepted", m)
	}
	if m.badSig {
		if id == IDOf(fuzzRemoteKey) {
			t.Fatal("a signature over another challenge proved the peer's key")
		}
		return
	}
	if id != IDOf(fuzzRemoteKey) || hello.ListenPort != m.port {
		t.Fatalf("handshake gave %s port %d, want %s port %d", id, hello.ListenPort, IDOf(fuzzRemoteKey), m.port)
	}
	// After the handshake, frames of any size up to MaxFrameSize pass;
	// a flipped byte in one does not.
	f, err := sc.readFrame()
	if !tailIntact {
		if err == nil {
			t.Fatalf("a frame with a flipped byte read as %x", f)
		}
	} else if err != nil || !bytes.Equal(f, m.tail) {
		t.Fatalf("first frame after the handshake: %x, %v; want %x", f, err, m.tail)
	}
	// What the local side sent is its key, then a hello signed by its node
	// key that the peer can read.
	out := c.written()
	peer.r = bytes.NewReader(out[32:])
	peer.limit = helloSize
	f, err = peer.readFrame()
	if err != nil {
		t.Fatalf("local hello: %v", err)
	}
	ours, err := DecodeHello(f)
	if err != nil || ours.ListenPort != 7 || ours.ChainID != testChain.ChainID {
		t.Fatalf("local hello %+v, %v", ours, err)
	}
}

// FuzzHandshake plays the peer of a handshake with fixed keys over an
// in-memory connection: an honest transcript completes it, and every
// deviation (a bad key, version, chain, genesis or signature, a frame
// length other than the greeting's, a flipped byte) must be refused,
// without reading more than the key and the greeting.
func FuzzHandshake(f *testing.F) {
	honest := remoteHello{ephSeed: []byte("peer"), version: ProtocolVersion, chainID: testChain.ChainID, port: 26656, tail: []byte{kindPing}}
	add := func(m remoteHello) {
		f.Add(m.ephSeed, m.rawEph, m.version, m.chainID, m.genesisFlip, m.port, m.badSig, m.sizeDelta, m.flip, m.tail)
	}
	add(honest)
	for _, mut := range []func(*remoteHello){
		func(m *remoteHello) { m.version++ },
		func(m *remoteHello) { m.chainID = 1 },
		func(m *remoteHello) { m.genesisFlip = 1 },
		func(m *remoteHello) { m.badSig = true },
		func(m *remoteHello) { m.sizeDelta = MaxFrameSize },
		func(m *remoteHello) { m.sizeDelta = 1 },
		func(m *remoteHello) { m.sizeDelta = -1 },
		func(m *remoteHello) { m.flip = 1 },
		func(m *remoteHello) { m.flip = 40 },
		func(m *remoteHello) { m.rawEph, m.ephSeed = true, make([]byte, 32) },
		func(m *remoteHello) { m.rawEph, m.ephSeed = true, nil },
		func(m *remoteHello) { m.tail = bytes.Repeat([]byte{kindMsg}, 3*helloFrameSize) },
	} {
		m := honest
		mut(&m)
		add(m)
	}
	f.Fuzz(func(t *testing.T, ephSeed []byte, rawEph bool, version uint32, chainID uint64, genesisFlip byte, port uint16,
		badSig bool, sizeDelta int32, flip uint16, tail []byte) {
		runHandshake(t, remoteHello{ephSeed, rawEph, version, chainID, genesisFlip, port, badSig, sizeDelta, flip, tail})
	})
}

// The handshake never buffers more than the greeting from a peer that
// has not proved itself: a 4 MiB frame announced (and sent) in place of
// the hello is refused after its 4-byte header.
func TestHandshakeReadsAtMostTheGreeting(t *testing.T) {
	for _, delta := range []int32{MaxFrameSize, 1} {
		m := remoteHello{ephSeed: []byte("peer"), version: ProtocolVersion, chainID: testChain.ChainID, sizeDelta: delta}
		script, _, _, _ := m.script()
		script = append(script, make([]byte, int(delta))...) // the body the header announces
		c := newMemConn(script)
		_, _, _, err := handshakeWith(c, fuzzLocalEph, fuzzLocalKey, testChain, 0)
		if !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("hello frame %d bytes too long: err %v, want ErrFrameTooLarge", delta, err)
		}
		if c.read != 32+4 {
			t.Fatalf("read %d bytes of a too-large hello frame, want only the key and header (36)", c.read)
		}
	}
}

// The harness itself: the honest transcript completes, so the fuzz
// target reaches past the key exchange.
func TestHandshakeHarnessCompletes(t *testing.T) {
	m := remoteHello{ephSeed: []byte("x"), version: ProtocolVersion, chainID: testChain.ChainID, port: 1, tail: []byte("after")}
	script, honest, _, _ := m.script()
	if !honest {
		t.Fatal("honest transcript not marked honest")
	}
	_, id, _, err := handshakeWith(newMemConn(script), fuzzLocalEph, fuzzLocalKey, testChain, 0)
	if err != nil || id != IDOf(fuzzRemoteKey) {
		t.Fatalf("honest transcript: %s, %v", id, err)
	}
	runHandshake(t, m)
}

// BenchmarkHandshakeHarness measures one fuzz input of FuzzHandshake: an
// honest transcript played and checked.
func BenchmarkHandshakeHarness(b *testing.B) {
	m := remoteHello{ephSeed: []byte("peer"), version: ProtocolVersion, chainID: testChain.ChainID, tail: []byte{kindPing}}
	for b.Loop() {
		runHandshake(b, m)
	}
}
