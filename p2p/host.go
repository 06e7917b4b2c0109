package p2p

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Config configures a Host.
type Config struct {
	Key   *secp256k1.PrivateKey // the node key; its ID names the node
	Chain Chain                 // peers on another chain are refused
	// ListenAddr is where to accept connections ("127.0.0.1:26656";
	// port 0 picks one; empty accepts none).
	ListenAddr string
	// StaticPeers are dialed and kept connected, redialed with backoff.
	StaticPeers []PeerAddr
	// Bootnodes are dialed to learn peers when the host has too few.
	Bootnodes []PeerAddr
	MaxPeers  int           // default 50
	Keepalive time.Duration // a quiet link is pinged this often; default 5s
	// HandshakeTimeout bounds a connection's key exchange and hello, one
	// round trip each for an honest peer; default 2s. It is how long a
	// silent socket can hold a handshake slot.
	HandshakeTimeout time.Duration
	// MaxPendingHandshakes caps the inbound connections still in their
	// handshake, in all (default 64) and from one IP (MaxPendingPerIP,
	// default 8). A connection over either cap, or arriving while the
	// host has MaxPeers peers, is closed at once, before any read.
	MaxPendingHandshakes int
	MaxPendingPerIP      int
	// FDBudget, if set, is the most file descriptors the host's
	// connections may hold: MaxPeers, the static peers and the
	// handshakes in progress must fit in it, and MaxPendingHandshakes is
	// lowered to what is left. New fails if fewer than a few handshake
	// slots are left.
	FDBudget    int
	BanDuration time.Duration // a bad peer's key is refused this long; default 10m
	// IPBanAfter distinct keys banned from one IP (an IPv6 /64) within
	// IPBanDuration get the IP banned for IPBanDuration; default 2 and 1h.
	// Configured peers are exempt (see ban.go).
	IPBanAfter    int
	IPBanDuration time.Duration
	// MaxAddrsPerSource caps the addresses learned from one IP held to
	// dial, default 32; a source adds new ones at most one per AddrRefill
	// (default 30s) past that many (see pex.go).
	MaxAddrsPerSource int
	AddrRefill        time.Duration
	// NoPeerExchange turns peer exchange off, as CometBFT's pex = false
	// does: the host connects to its static peers only, never asks a
	// peer for addresses, ignores addresses it is sent, keeps no
	// addresses of the peers that dial it, and does not answer a peer
	// that asks (a node that keeps its connections to itself has none to
	// give). Validators behind sentry nodes run this way. It excludes
	// Bootnodes, which exist to learn peers from.
	NoPeerExchange bool
	// MaxQueueBytes caps the bytes waiting to be sent to one peer; a peer
	// that lets more pile up is dropped. Default 8 MiB (two of the largest
	// frames); less than MaxFrameSize drops a peer sent one large frame.
	MaxQueueBytes int
	// PrivatePeers are nodes whose addresses the host never gives out in
	// peer exchange: a sentry node lists the validators behind it.
	PrivatePeers []ID
	Logf         func(format string, args ...any)
	// Connected and Disconnected are told about every peer that comes
	// and goes. They must not block.
	Connected, Disconnected func(ID)
	// Incompatible is told of every handshake refused by the minVersion
	// rule (ErrBelowMinVersion), on either side, for the operator's log:
	// unlike a dropped connection, it does not heal by itself. It must
	// not block.
	Incompatible func(error)
}

// Handler takes a message of a topic from a peer. It runs on that peer's
// reading goroutine, so a slow handler slows only that peer. An error
// means the peer sent invalid data: it is dropped and banned.
type Handler func(from ID, payload []byte) error

// TopicConfig says how a topic's messages travel.
type TopicConfig struct {
	Priority Priority
	// Gossip topics are deduplicated by hash: a message is handed to the
	// handler once, and Broadcast never sends a peer what it sent us or
	// what we sent it before.
	Gossip bool
	// Recent, on a gossip topic, makes a peer that connects hear of the
	// last Recent messages sent or relayed on it (see recent.go): what
	// went round just before it joined.
	Recent int
}

type topic struct {
	cfg TopicConfig
	fn  Handler
}

// PeerInfo describes a connected peer.
type PeerInfo struct {
	ID         ID
	RemoteAddr string
	ListenAddr string // empty if the peer accepts no connections
	Inbound    bool
}

// Errors of connection setup.
var (
	ErrSelf         = errors.New("p2p: connected to self")
	ErrTooManyPeers = errors.New("p2p: too many peers")
	ErrBanned       = errors.New("p2p: peer is banned")
	ErrWrongPeer    = errors.New("p2p: peer is not the expected node")
	ErrClosed       = errors.New("p2p: host closed")
)

// Backoff bounds of redialing a peer.
const (
	minBackoff = 250 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// Host is a node's endpoint on the network.
type Host struct {
	cfg    Config
	id     ID
	topics map[Topic]topic
	recent map[Topic]*recentRing // catch-up topics (recent.go); written by Handle before Start
	seen   *hashSet              // gossip already handed to a handler or sent
	cache  *frameCache
	wants  wantSet
	stats  struct{ pushed, announced, wanted, served, duplicates atomic.Uint64 }
	// traffic counts the peers' frame bytes by topic (traffic.go).
	traffic traffic

	ln      net.Listener
	port    uint16
	pending *pendingSet // inbound handshakes in progress (admit.go)
	refused logThrottle

	mu        sync.Mutex
	peers     map[ID]*peer
	since     map[*peer]time.Time
	bans      map[ID]time.Time
	ipb       ipBans
	staticIPs map[string]bool
	book      *addrBook
	closed    bool
	quit      chan struct{}
	wg        sync.WaitGroup
}

// New returns a host; register topics with Handle, then Start it.
func New(cfg Config) (*Host, error) {
	if cfg.Key == nil {
		return nil, errors.New("p2p: a node key is required")
	}
	if cfg.NoPeerExchange && len(cfg.Bootnodes) > 0 {
		return nil, ErrBootnodesNeedExchange
	}
	if cfg.MaxPeers <= 0 {
		cfg.MaxPeers = 50
	}
	if cfg.Keepalive <= 0 {
		cfg.Keepalive = 5 * time.Second
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 2 * time.Second
	}
	if err := admitConfig(&cfg); err != nil {
		return nil, err
	}
	if cfg.BanDuration <= 0 {
		cfg.BanDuration = 10 * time.Minute
	}
	if cfg.MaxQueueBytes <= 0 {
		cfg.MaxQueueBytes = defaultMaxQueueBytes
	}
	if cfg.IPBanAfter <= 0 {
		cfg.IPBanAfter = defaultIPBanAfter
	}
	if cfg.IPBanDuration <= 0 {
		cfg.IPBanDuration = defaultIPBanDuration
	}
	if cfg.MaxAddrsPerSource <= 0 {
		cfg.MaxAddrsPerSource = defaultAddrsPerSource
	}
	if cfg.AddrRefill <= 0 {
		cfg.AddrRefill = defaultAddrRefill
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Host{cfg: cfg, id: IDOf(cfg.Key), topics: make(map[Topic]topic), recent: make(map[Topic]*recentRing), seen: newHashSet(1 << 16),
		cache: newFrameCache(gossipCacheBytes, 1<<16), wants: wantSet{asked: make(map[[32]byte]time.Time)},
		peers: make(map[ID]*peer), since: make(map[*peer]time.Time), bans: make(map[ID]time.Time),
		ipb:       ipBans{offences: make(map[string]map[ID]time.Time), until: make(map[string]time.Time)},
		staticIPs: staticIPs(cfg.StaticPeers), book: newAddrBook(cfg.MaxAddrsPerSource, cfg.AddrRefill), quit: make(chan struct{}),
		pending: newPendingSet(cfg.MaxPendingHandshakes, cfg.MaxPendingPerIP)}, nil
}

// ID is this node's ID.
func (h *Host) ID() ID { return h.id }

// Handle registers the handler of a topic. Call it before Start.
func (h *Host) Handle(t Topic, cfg TopicConfig, fn Handler) {
	h.topics[t] = topic{cfg, fn}
	if cfg.Gossip && cfg.Recent > 0 {
		h.recent[t] = newRecentRing(cfg.Recent)
	}
}

// Start listens (if configured) and starts dialing.
func (h *Host) Start() error {
	if h.cfg.ListenAddr != "" {
		ln, err := net.Listen("tcp", h.cfg.ListenAddr)
		if err != nil {
			return fmt.Errorf("p2p: %w", err)
		}
		h.ln = ln
		h.port = uint16(ln.Addr().(*net.TCPAddr).Port)
		h.wg.Add(1)
		go h.acceptLoop()
	}
	for _, a := range h.cfg.StaticPeers {
		h.wg.Add(1)
		go h.keepDialing(a)
	}
	h.mu.Lock()
	for _, a := range h.cfg.Bootnodes {
		h.book.addBootnode(a)
	}
	h.mu.Unlock()
	h.wg.Add(1)
	go h.discoverLoop()
	return nil
}

// Done is closed when the host is closed, for reactors' goroutines.
func (h *Host) Done() <-chan struct{} { return h.quit }

// Addr is the listening address, or nil.
func (h *Host) Addr() net.Addr {
	if h.ln == nil {
		return nil
	}
	return h.ln.Addr()
}

// Close disconnects every peer and stops listening and dialing.
func (h *Host) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.quit)
	peers := make([]*peer, 0, len(h.peers))
	for _, p := range h.peers {
		peers = append(peers, p)
	}
	h.mu.Unlock()
	if h.ln != nil {
		h.ln.Close()
	}
	for _, p := range peers {
		p.close(ErrClosed)
	}
	h.wg.Wait()
}

// Peers lists the connected peers.
func (h *Host) Peers() []PeerInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]PeerInfo, 0, len(h.peers))
	for _, p := range h.peers {
		out = append(out, PeerInfo{ID: p.id, RemoteAddr: p.conn.conn.RemoteAddr().String(), ListenAddr: p.listen.Addr, Inbound: p.inbound})
	}
	return out
}

// PeerCount is the number of connected peers.
func (h *Host) PeerCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.peers)
}

// Send queues a message for one peer; it reports false if the peer is not
// connected or its queue is full (a peer whose queue would pass
// MaxQueueBytes is dropped).
func (h *Host) Send(to ID, t Topic, payload []byte) bool {
	h.mu.Lock()
	p := h.peers[to]
	h.mu.Unlock()
	if p == nil {
		return false
	}
	cfg := h.topics[t].cfg
	frame := encodeMsg(t, payload)
	if cfg.Gossip {
		p.known.add(gossipHash(t, payload))
	}
	return p.send(cfg.Priority, frame)
}

// Broadcast queues a message for every peer. On a gossip topic, peers
// known to have it are skipped; a message this node originates goes out
// whole, one it got from a peer is announced (see announce.go).
func (h *Host) Broadcast(t Topic, payload []byte) {
	cfg := h.topics[t].cfg
	var hash [32]byte
	var cf cachedFrame
	if cfg.Gossip {
		hash = gossipHash(t, payload)
		h.seen.add(hash)
		var ok bool
		if cf, ok = h.cache.get(hash); !ok { // a relay's frame is cached already
			cf = h.cache.put(hash, cachedFrame{frame: encodeMsg(t, payload)})
		}
		if ring := h.recent[t]; ring != nil {
			ring.add(hash)
		}
	} else {
		cf.frame = encodeMsg(t, payload)
	}
	h.mu.Lock()
	peers := make([]*peer, 0, len(h.peers))
	for _, p := range h.peers {
		peers = append(peers, p)
	}
	h.mu.Unlock()
	for _, p := range peers {
		switch {
		case !cfg.Gossip:
			p.send(cfg.Priority, cf.frame)
		case !p.known.add(hash):
		case cf.fromPeer:
			if p.announce(cfg.Priority, announced{t, hash}) {
				h.stats.announced.Add(1)
			} else {
				p.known.remove(hash) // it never left: a later broadcast may try again
			}
		default:
			if p.send(cfg.Priority, cf.frame) {
				h.stats.pushed.Add(1)
			} else {
				p.known.remove(hash)
			}
		}
	}
}

// gossipCacheBytes bounds the gossip frames kept to answer WANTs (two
// generations of half of it): seconds of traffic at full load.
const gossipCacheBytes = 64 << 20

func gossipHash(t Topic, payload []byte) [32]byte {
	s := sha256.New()
	s.Write([]byte{byte(t)})
	s.Write(payload)
	var h [32]byte
	s.Sum(h[:0])
	return h
}

func (h *Host) acceptLoop() {
	defer h.wg.Done()
	for {
		c, err := h.ln.Accept()
		if err != nil {
			select {
			case <-h.quit:
				return
			default:
			}
			h.cfg.Logf("accept: %v", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		ip := ipOf(c.RemoteAddr())
		release, err := h.admit(ip)
		if err != nil {
			c.Close()
			h.refused.logf(h.cfg.Logf, "inbound %s refused: %v", c.RemoteAddr(), err)
			continue
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			_, err := h.setup(c, true, PeerAddr{}, release)
			if err != nil {
				h.cfg.Logf("inbound %s: %v", c.RemoteAddr(), err)
			}
		}()
	}
}

// dial connects to a and returns the live peer of its ID.
func (h *Host) dial(a PeerAddr) (*peer, error) {
	d := net.Dialer{Timeout: h.cfg.HandshakeTimeout}
	c, err := d.Dial("tcp", a.Addr)
	if err != nil {
		return nil, err
	}
	return h.setup(c, false, a, func() {})
}

// setup authenticates a new connection and registers the peer. done is
// called when the handshake is over, whatever its outcome.
func (h *Host) setup(c net.Conn, inbound bool, want PeerAddr, done func()) (*peer, error) {
	c.SetDeadline(time.Now().Add(h.cfg.HandshakeTimeout))
	sc, id, hello, err := handshake(c, h.cfg.Key, h.cfg.Chain, h.port)
	done()
	if err != nil {
		c.Close()
		if errors.Is(err, ErrBelowMinVersion) && h.cfg.Incompatible != nil {
			h.cfg.Incompatible(fmt.Errorf("%s: %w", c.RemoteAddr(), err))
		}
		return nil, err
	}
	c.SetDeadline(time.Time{})
	switch {
	case id == h.id:
		err = ErrSelf
	case want.ID != (ID{}) && id != want.ID:
		err = fmt.Errorf("%w: %s answered at %s", ErrWrongPeer, id, want.Addr)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	listen, dialedBy := want, h.id
	listen.ID = id
	if inbound {
		dialedBy, listen = id, PeerAddr{}
		if hello.ListenPort != 0 {
			host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
			listen = PeerAddr{ID: id, Addr: net.JoinHostPort(host, strconv.Itoa(int(hello.ListenPort)))}
		}
	}
	p := newPeer(id, sc, inbound, dialedBy, listen)
	p.maxQueue, p.slow, p.traffic = int64(h.cfg.MaxQueueBytes), h.dropSlow, &h.traffic
	h.askPeers(p) // before the peer is live, so that its answer is expected
	live, err := h.add(p)
	if err != nil || live != p {
		c.Close()
		return live, err
	}
	h.wg.Add(2)
	go func() { defer h.wg.Done(); p.writeLoop(h.cfg.Keepalive) }()
	go func() { defer h.wg.Done(); h.readLoop(p) }()
	h.catchUp(p)
	if h.cfg.Connected != nil {
		h.cfg.Connected(id)
	}
	h.cfg.Logf("peer connected id=%s addr=%s inbound=%v", id, c.RemoteAddr(), inbound)
	return p, nil
}

// add registers p, resolving a second connection to the same node: of two
// connections opened at about the same time from both ends, both ends
// keep the one dialed by the lower ID; otherwise the newer one wins (the
// old one is likely dead, e.g. the peer restarted).
func (h *Host) add(p *peer) (*peer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	// A banned IP is checked on inbound connections only: this node dials
	// its static peers and bootnodes wherever they are, and no learned
	// address at a banned IP (see dialCandidates).
	if h.banned(p.id) || (p.inbound && h.ipBanned(p.remoteIP(), time.Now()) && !h.configured(p.id)) {
		return nil, ErrBanned
	}
	if p.inbound && h.peers[p.id] == nil && len(h.peers) >= h.cfg.MaxPeers {
		return nil, ErrTooManyPeers // handshakes that ended together: admit let each in
	}
	if old := h.peers[p.id]; old != nil {
		young := time.Since(h.since[old]) < 2*time.Second
		if young && old.dialedBy != p.dialedBy && string(old.dialedBy[:]) < string(p.dialedBy[:]) {
			return old, nil
		}
		delete(h.since, old)
		go old.close(errors.New("replaced by a newer connection"))
	}
	h.peers[p.id] = p
	h.since[p] = time.Now()
	switch {
	case h.cfg.NoPeerExchange || p.listen.Addr == "":
	case p.inbound: // where it says it listens, charged to the IP it came from
		h.book.learn(p.listen, ipKey(p.remoteIP()), time.Now())
	default: // a candidate dialed by address alone: now its ID is known
		if c := h.book.addrs[p.listen.Addr]; c != nil && c.addr.ID == (ID{}) {
			c.addr.ID = p.id
		}
	}
	return p, nil
}

// dropSlow logs a peer dropped for not reading what it is sent.
func (h *Host) dropSlow(p *peer, err error) {
	h.cfg.Logf("dropping slow peer id=%s addr=%s: %v", p.id, p.conn.conn.RemoteAddr(), err)
}

func (h *Host) remove(p *peer) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.since, p)
	if h.peers[p.id] != p {
		return false
	}
	delete(h.peers, p.id)
	return true
}

// invalid reports whether err means the peer sent data no honest peer of
// this protocol sends.
func invalid(err error) bool {
	return errors.Is(err, ErrBadMessage) || errors.Is(err, ErrDecrypt) || errors.Is(err, ErrFrameTooLarge) || errors.Is(err, errHandler)
}

var errHandler = errors.New("p2p: invalid payload")

func (h *Host) readLoop(p *peer) {
	err := h.read(p)
	p.close(err)
	if invalid(err) {
		h.Ban(p.id, err)
	}
	if h.remove(p) {
		h.cfg.Logf("peer disconnected id=%s: %v", p.id, err)
		if h.cfg.Disconnected != nil {
			h.cfg.Disconnected(p.id)
		}
	}
}

func (h *Host) read(p *peer) error {
	for {
		p.conn.conn.SetReadDeadline(time.Now().Add(3 * h.cfg.Keepalive))
		frame, err := p.conn.readFrame()
		if err != nil {
			return err
		}
		h.traffic.recv[trafficSlot(frame)].Add(uint64(len(frame) + frameOverhead))
		m, err := decodeMessage(frame)
		if err != nil {
			return err
		}
		switch m.kind {
		case kindPing:
			p.send(High, []byte{kindPong})
		case kindGetPeers:
			if !h.cfg.NoPeerExchange {
				p.send(Low, encodePeers(h.shareable(p.id)))
			}
		case kindPeers:
			h.onPeers(p, m.peers)
		case kindHave:
			h.onHave(p, m.haves)
		case kindWant:
			h.onWant(p, m.wants)
		case kindMsg:
			t, ok := h.topics[m.topic]
			if !ok {
				continue // a topic of a newer node; not an offence
			}
			var payload []byte
			if !t.cfg.Gossip {
				payload = append([]byte(nil), m.payload...)
			} else {
				hash := gossipHash(m.topic, m.payload)
				p.known.add(hash)
				if !h.seen.add(hash) {
					h.stats.duplicates.Add(1)
					continue
				}
				h.wants.done(hash)
				// The cached frame is what a WANT of it is answered with;
				// the handler reads the payload inside it.
				f := encodeMsg(m.topic, m.payload)
				h.cache.put(hash, cachedFrame{frame: f, fromPeer: true})
				payload = f[2:]
			}
			if err := t.fn(p.id, payload); err != nil {
				return fmt.Errorf("%w: topic %d: %v", errHandler, m.topic, err)
			}
		}
	}
}

// shareable lists the listening addresses of connected peers other than
// the asker and the private peers.
func (h *Host) shareable(except ID) []PeerAddr {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []PeerAddr
	for _, p := range h.peers {
		if p.id != except && p.listen.Addr != "" && len(out) < maxPeersShared && !h.private(p.id) {
			out = append(out, p.listen)
		}
	}
	return out
}

// keepDialing keeps a static peer connected.
func (h *Host) keepDialing(a PeerAddr) {
	defer h.wg.Done()
	backoff := minBackoff
	for {
		p, err := h.dial(a)
		switch {
		case errors.Is(err, ErrSelf):
			return
		case err != nil:
			h.cfg.Logf("dial %s: %v (retry in %v)", a, err, backoff)
			if !h.sleep(jitter(backoff)) {
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		select {
		case <-p.done:
		case <-h.quit:
			return
		}
		if !h.sleep(jitter(minBackoff)) {
			return
		}
	}
}

func jitter(d time.Duration) time.Duration { return d + rand.N(d/2+1) }

func (h *Host) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-h.quit:
		return false
	}
}

// discoverLoop dials learned peers and bootnodes while the host has fewer
// than MaxPeers, and asks peers for more now and then.
func (h *Host) discoverLoop() {
	defer h.wg.Done()
	for round := 0; ; round++ {
		h.dialCandidates()
		if round%15 == 14 {
			h.mu.Lock()
			for _, p := range h.peers {
				h.askPeers(p)
			}
			h.mu.Unlock()
		}
		if !h.sleep(2 * time.Second) {
			return
		}
	}
}

func (h *Host) dialCandidates() {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	h.book.sweep(now)
	free := min(h.cfg.MaxPeers-len(h.peers), maxDialsPerRound)
	for _, c := range h.book.addrs {
		if free <= 0 {
			return
		}
		if c.dialing || now.Before(c.next) || h.banned(c.addr.ID) {
			continue
		}
		if c.source != "" && h.ipBanned(hostOf(c.addr.Addr), now) {
			continue
		}
		if _, ok := h.peers[c.addr.ID]; ok && c.addr.ID != (ID{}) {
			continue
		}
		free--
		c.dialing = true
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			_, err := h.dial(c.addr)
			h.mu.Lock()
			defer h.mu.Unlock()
			if errors.Is(err, ErrSelf) {
				h.book.remove(c)
				return
			}
			h.book.dialed(c, err == nil, time.Now())
		}()
	}
}
