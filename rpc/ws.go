package rpc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// WSConfig sets WebSocket limits.
type WSConfig struct {
	MessageLimit int64    // inbound message bytes (default 5 MiB)
	QueueLimit   int      // queued outbound messages before a slow client is dropped (default 4096); the queue grows on demand up to it
	MaxSubs      int      // live subscriptions per connection (default 100)
	Origins      []string // allowed Origin patterns; empty allows any (the node is local by default)
	PingInterval time.Duration
}

// serveWS upgrades the request and serves JSON-RPC over the connection
// until either side closes it. Each message's calls are charged to the
// client's limits (the front's Client of the upgrade request lives as long
// as the connection); a message over the limits is answered with a -32005
// error per request and the connection stays open.
func (v *view) serveWS(w http.ResponseWriter, r *http.Request, cfg WSConfig) {
	if cfg.MessageLimit == 0 {
		cfg.MessageLimit = 5 << 20
	}
	if cfg.QueueLimit == 0 {
		cfg.QueueLimit = 4096
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
	c, err := websocket.Accept(w, r, opts)
	if err != nil {
		return // Accept already answered the client
	}
	c.SetReadLimit(cfg.MessageLimit)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	n := newNotifier(cfg.QueueLimit)
	n.maxSubs = cfg.MaxSubs
	ctx = context.WithValue(ctx, notifierKey{}, n)

	// One writer goroutine owns the connection's write side.
	writeDone := make(chan struct{})
	go func() {
		defer close(writeDone)
		ticker := time.NewTicker(cfg.PingInterval)
		defer ticker.Stop()
		for {
			select {
			case <-n.ready:
				for msg := n.out.pop(); msg != nil; msg = n.out.pop() {
					wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
					err := c.Write(wctx, websocket.MessageText, msg)
					wcancel()
					if err != nil {
						cancel()
						return
					}
				}
			case <-ticker.C:
				pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
				err := c.Ping(pctx)
				pcancel()
				if err != nil {
					cancel()
					return
				}
			case <-n.closed:
				if n.reason != "" {
					c.Close(websocket.StatusPolicyViolation, n.reason)
				}
				cancel()
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		n.shutdown("")
		<-writeDone
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
		if resp, _, _ := v.handle(ctx, msg); resp != nil {
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
	out     outQueue
	ready   chan struct{} // signalled (capacity 1) when out gains a message
	mu      sync.Mutex
	subs    map[string]*Subscription
	closed  chan struct{}
	once    sync.Once
	reason  string
	maxSubs int // 0: no cap
}

func newNotifier(queueLimit int) *Notifier {
	return &Notifier{out: outQueue{limit: queueLimit}, ready: make(chan struct{}, 1), subs: map[string]*Subscription{}, closed: make(chan struct{})}
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
}

// Done is closed when the subscription ends (unsubscribed or connection gone).
func (s *Subscription) Done() <-chan struct{} { return s.done }

func (s *Subscription) end() { s.once.Do(func() { close(s.done) }) }

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
	if !n.out.push(b) {
		n.shutdown("client too slow: outbound queue full")
		return false
	}
	select {
	case n.ready <- struct{}{}:
	default: // the writer has a wake-up pending and drains everything
	}
	return true
}

func (n *Notifier) shutdown(reason string) {
	n.once.Do(func() {
		n.reason = reason
		close(n.closed)
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
