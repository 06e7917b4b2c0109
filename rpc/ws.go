package rpc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/coder/websocket"
)

// WSConfig sets WebSocket limits.
type WSConfig struct {
	MessageLimit int64    // inbound message bytes (default 5 MiB)
	QueueLimit   int      // queued outbound messages before a slow client is dropped (default 4096); the queue grows on demand up to it
	QueueBytes   int64    // bytes of answers and notifications waiting before a slow client is dropped (default DefaultQueueBytes)
	MaxSubs      int      // live subscriptions per connection (default 100)
	Origins      []string // allowed Origin patterns; empty allows any (the node is local by default)
	PingInterval time.Duration
}

// DefaultQueueBytes bounds what a WebSocket client that does not read
// can make the node hold for it: it is cut (close 1008) once more than
// this waits to be written to it.
const DefaultQueueBytes = 16 << 20

// serveWS upgrades the request and serves JSON-RPC over the connection
// until either side closes it. Each message's calls are charged to the
// client's limits (the front's Client of the upgrade request, detached to
// live as long as the connection); a message over the limits is answered
// with a -32005 error per request and the connection stays open.
//
// The connection is served from a goroutine of its own and the handler
// returns at once: net/http then lets go of everything it kept for the
// request (its buffers, the request and its headers, a deep stack), which
// would otherwise stay alive for the connection's whole life.
func (v *view) serveWS(w http.ResponseWriter, r *http.Request, cfg WSConfig) {
	if cfg.MessageLimit == 0 {
		cfg.MessageLimit = 5 << 20
	}
	if cfg.QueueLimit == 0 {
		cfg.QueueLimit = 4096
	}
	if cfg.QueueBytes == 0 {
		cfg.QueueBytes = DefaultQueueBytes
	}
	if cfg.MaxSubs == 0 {
		cfg.MaxSubs = 100
	}
	if cfg.PingInterval == 0 {
		cfg.PingInterval = 30 * time.Second
	}
	opts := &websocket.AcceptOptions{OriginPatterns: cfg.Origins}
	if len(cfg.Origins) == 0 {
		opts.InsecureSkipVerify = true
	}
	c, err := websocket.Accept(leanHijacker{w}, r, opts)
	if err != nil {
		return // Accept already answered the client
	}
	c.SetReadLimit(cfg.MessageLimit)
	// Cancelled when the connection ends, not when the handler returns;
	// the front's values (the client's limits) carried over.
	client := front.ClientFrom(r.Context()).Detach()
	base := front.WithClient(context.WithoutCancel(r.Context()), client)
	v.s.ws.open.Add(1)
	v.s.ws.total.Add(1)
	go func() {
		defer v.s.ws.open.Add(-1)
		defer client.Done()
		v.runWS(base, c, cfg)
	}()
}

// runWS serves an accepted WebSocket connection until it ends.
func (v *view) runWS(base context.Context, c *websocket.Conn, cfg WSConfig) {
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	n := newNotifier(cfg.QueueLimit)
	n.out.maxBytes = cfg.QueueBytes
	n.maxSubs = cfg.MaxSubs
	ctx = context.WithValue(ctx, notifierKey{}, n)

	// An idle connection runs no goroutine but this one: a writer is
	// started when messages are queued and ends when the queue is empty
	// (one at a time, so messages keep their order), and pings run from a
	// timer.
	n.write = func(msg []byte) bool {
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		if err := c.Write(wctx, websocket.MessageText, msg); err != nil {
			cancel()
			return false
		}
		return true
	}
	var closing sync.WaitGroup
	n.kill = func(reason string) {
		v.s.log.Warn("websocket client cut", "client", front.ClientFrom(ctx).IP(), "reason", reason)
		// Close waits for the client's answer, which the reader must be
		// free to read; the connection is torn down once it is done.
		closing.Add(1)
		go func() {
			defer closing.Done()
			c.Close(websocket.StatusPolicyViolation, reason)
			cancel()
		}()
	}
	var ping *time.Timer
	ping = time.AfterFunc(cfg.PingInterval, func() {
		pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
		defer pcancel()
		if err := c.Ping(pctx); err != nil {
			cancel()
			return
		}
		ping.Reset(cfg.PingInterval)
	})
	defer func() {
		ping.Stop()
		n.shutdown("")
		closing.Wait()
		c.CloseNow()
	}()

	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText && typ != websocket.MessageBinary {
			continue
		}
		// The message is served on a goroutine of its own while this one
		// waits: the deep stack a call may need then goes with it, and
		// the connection's long-lived goroutine stays small while idle.
		done := make(chan []byte, 1)
		go func() {
			defer func() {
				// Outside net/http nothing else would stop a panic from
				// taking the node down; the connection is dropped instead.
				if r := recover(); r != nil {
					v.s.log.Error("rpc websocket message panic", "panic", r, "stack", string(debug.Stack()))
					cancel()
					done <- nil
				}
			}()
			resp, _, _ := v.handle(ctx, msg)
			done <- resp
		}()
		if resp := <-done; ctx.Err() != nil {
			return
		} else if resp != nil {
			if !n.send(resp) {
				return
			}
		}
	}
}

type notifierKey struct{}

// Notifier is a connection's channel for subscription notifications. It
// exists only on WebSocket connections.
type Notifier struct {
	out outQueue
	// write sends one message (false: the connection is gone); kill closes
	// the connection with a reason. Both are set by the connection.
	write   func([]byte) bool
	kill    func(reason string)
	mu      sync.Mutex
	subs    map[string]*Subscription
	closed  chan struct{}
	once    sync.Once
	reason  string
	maxSubs int // 0: no cap
}

func newNotifier(queueLimit int) *Notifier {
	return &Notifier{out: outQueue{limit: queueLimit}, subs: map[string]*Subscription{}, closed: make(chan struct{})}
}

// NotifierFrom returns the connection's notifier, or false over HTTP,
// where subscriptions are not available.
func NotifierFrom(ctx context.Context) (*Notifier, bool) {
	n, ok := ctx.Value(notifierKey{}).(*Notifier)
	return n, ok
}

// ErrNotificationsUnsupported answers eth_subscribe over HTTP.
var ErrNotificationsUnsupported = &Error{Code: CodeMethodNotFound, Message: "notifications not supported: subscriptions need a WebSocket connection"}

// Subscription is one eth_subscribe stream.
type Subscription struct {
	ID   string
	n    *Notifier
	done chan struct{}
	once sync.Once

	mu    sync.Mutex
	ended bool
	onEnd []func()
}

// Done is closed when the subscription ends (unsubscribed or connection gone).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// OnEnd runs f once the subscription ends (at once if it has), so a
// producer that serves many subscriptions from one goroutine can forget
// this one without watching Done.
func (s *Subscription) OnEnd(f func()) {
	s.mu.Lock()
	if !s.ended {
		s.onEnd = append(s.onEnd, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

func (s *Subscription) end() {
	s.once.Do(func() {
		close(s.done)
		s.mu.Lock()
		s.ended = true
		fs := s.onEnd
		s.onEnd = nil
		s.mu.Unlock()
		for _, f := range fs {
			f()
		}
	})
}

// Subscribe creates a subscription with a fresh random id, or refuses
// with a -32005 error when the connection holds its most.
func (n *Notifier) Subscribe() (*Subscription, error) {
	var b [16]byte
	rand.Read(b[:])
	sub := &Subscription{ID: "0x" + hex.EncodeToString(b[:]), n: n, done: make(chan struct{})}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.maxSubs > 0 && len(n.subs) >= n.maxSubs {
		return nil, &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("too many subscriptions on this connection (%d max)", n.maxSubs)}
	}
	n.subs[sub.ID] = sub
	return sub, nil
}

// Unsubscribe ends the subscription with the given id; it reports whether
// one existed.
func (n *Notifier) Unsubscribe(id string) bool {
	n.mu.Lock()
	sub, ok := n.subs[id]
	delete(n.subs, id)
	n.mu.Unlock()
	if ok {
		sub.end()
	}
	return ok
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		Subscription string `json:"subscription"`
		Result       any    `json:"result"`
	} `json:"params"`
}

// ErrSubscriptionGone is returned by Notify after the subscription ended.
var ErrSubscriptionGone = errors.New("rpc: subscription ended")

// Notify sends one eth_subscription notification. If the client does not
// keep up and the queue is full, the connection is closed with a reason
// rather than letting memory grow.
func (s *Subscription) Notify(result any) error {
	select {
	case <-s.done:
		return ErrSubscriptionGone
	default:
	}
	var msg notification
	msg.JSONRPC, msg.Method = "2.0", "eth_subscription"
	msg.Params.Subscription, msg.Params.Result = s.ID, result
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if !s.n.send(b) {
		return ErrSubscriptionGone
	}
	return nil
}

func (n *Notifier) send(b []byte) bool {
	select {
	case <-n.closed:
		return false
	default:
	}
	start, ok := n.out.push(b)
	if !ok {
		n.shutdown(fmt.Sprintf("client too slow: more than %d messages or %d MiB waiting", n.out.limit, n.out.maxBytes>>20))
		return false
	}
	if start {
		go n.drain()
	}
	return true
}

// drain writes queued messages until the queue is empty; push starts it
// when the queue had no writer.
func (n *Notifier) drain() {
	for msg := n.out.popOrIdle(); msg != nil; msg = n.out.popOrIdle() {
		ok := n.write(msg)
		n.out.sent(msg)
		if !ok {
			n.shutdown("")
			return
		}
	}
}

func (n *Notifier) shutdown(reason string) {
	n.once.Do(func() {
		n.reason = reason
		close(n.closed)
		n.out.drop()
		if reason != "" && n.kill != nil {
			n.kill(reason)
		}
		n.mu.Lock()
		for id, sub := range n.subs {
			sub.end()
			delete(n.subs, id)
		}
		n.mu.Unlock()
	})
}

// RegisterUnsubscribe installs eth_unsubscribe (and any alias names) that
// end subscriptions created through the connection's notifier.
func (s *Server) RegisterUnsubscribe(names ...string) {
	for _, name := range names {
		s.Register(name, 1, 1, func(ctx context.Context, p Params) (any, error) {
			n, ok := NotifierFrom(ctx)
			if !ok {
				return nil, ErrNotificationsUnsupported
			}
			var id string
			if err := p.Decode(0, &id); err != nil {
				return nil, err
			}
			return n.Unsubscribe(id), nil
		})
	}
}
