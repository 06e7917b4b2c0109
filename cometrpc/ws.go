package cometrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query/eventquery"
	"github.com/coder/websocket"
)

// JSON-RPC over WebSocket at /websocket, as CometBFT serves it: every
// method, plus subscribe, unsubscribe and unsubscribe_all for
// tm.event='NewBlock' and tm.event='Tx' queries (with any further
// conditions on the events' attributes). Each event is sent as a JSON-RPC
// response carrying the subscribe request's id and a ResultEvent
// {query, data {type, value}, events}.
//
// What a connection can make the node hold is bounded: its answers and
// events wait in a queue of at most wsQueueBytes, and a client that lets
// it fill (it does not read) is cut, as CometBFT cuts a slow client;
// wsMaxSubs subscriptions per connection and wsMaxClients subscribing
// connections in all.

const (
	wsQueueBytes   = 8 << 20
	wsMaxSubs      = 5   // CometBFT's max_subscriptions_per_client
	wsMaxClients   = 100 // CometBFT's max_subscription_clients
	wsMessageLimit = 1 << 20
	wsPingInterval = 30 * time.Second
)

// wsConn is one WebSocket client.
type wsConn struct {
	s      *Server
	c      *websocket.Conn
	cancel context.CancelFunc
	// closeConn closes the connection with a reason (the close frame's).
	closeConn func(reason string)

	mu     sync.Mutex
	queue  [][]byte
	queued int
	dead   bool
	wake   chan struct{}
	subs   map[string]*wsSub // by query text
}

type wsSub struct {
	id json.RawMessage // the subscribe request's
	q  *eventquery.Query
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// The RPC is public read-only data (CORS "*"), so any page may open it.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept answered the client
	}
	c.SetReadLimit(wsMessageLimit)
	client := front.ClientFrom(r.Context()).Detach()
	base := front.WithClient(context.WithoutCancel(r.Context()), client)
	host := r.Host
	go func() {
		defer client.Done()
		s.runWS(base, c, host)
	}()
}

func (s *Server) runWS(base context.Context, c *websocket.Conn, host string) {
	ctx, cancel := context.WithCancel(base)
	wc := &wsConn{s: s, c: c, cancel: cancel, wake: make(chan struct{}, 1), subs: map[string]*wsSub{},
		closeConn: func(reason string) { c.Close(websocket.StatusPolicyViolation, reason) }}
	defer func() {
		cancel()
		s.events.leave(wc)
		c.CloseNow()
	}()
	go wc.writeLoop(ctx)
	client := front.ClientFrom(ctx)
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if _, ok := client.Charge(1); !ok {
			wc.send(response{JSONRPC: "2.0", ID: json.RawMessage("-1"),
				Error: &rpcError{Code: codeInternal, Message: "Internal error", Data: "rate limit exceeded"}})
			continue
		}
		wc.send(wc.handle(ctx, host, msg))
	}
}

// handle answers one request of the connection.
func (wc *wsConn) handle(ctx context.Context, host string, msg []byte) response {
	var req request
	if err := json.Unmarshal(msg, &req); err != nil {
		return parseError(err)
	}
	if len(req.ID) == 0 || string(req.ID) == "null" {
		req.ID = json.RawMessage("-1")
	}
	p, err := objectParams(req.Method, req.Params)
	if err != nil {
		return errorResponse(req.ID, err)
	}
	ok := func() response { return response{JSONRPC: "2.0", ID: req.ID, Result: struct{}{}} }
	switch req.Method {
	case "subscribe":
		q, err := wc.queryOf(p)
		if err != nil {
			return errorResponse(req.ID, err)
		}
		if err := wc.s.events.subscribe(wc, req.ID, q); err != nil {
			return errorResponse(req.ID, err)
		}
		return ok()
	case "unsubscribe":
		q, err := wc.queryOf(p)
		if err != nil {
			return errorResponse(req.ID, err)
		}
		if !wc.s.events.unsubscribe(wc, q.Text) {
			return errorResponse(req.ID, errors.New("subscription not found"))
		}
		return ok()
	case "unsubscribe_all":
		if !wc.s.events.unsubscribe(wc, "") {
			return errorResponse(req.ID, errors.New("subscription not found"))
		}
		return ok()
	}
	return wc.s.call(ctx, callInfo{host: host, ws: true}, req.ID, req.Method, p)
}

// queryOf reads a subscription query: tm.event must name NewBlock or Tx.
func (wc *wsConn) queryOf(p params) (*eventquery.Query, error) {
	qs, err := p.stringParam("query")
	if err != nil {
		return nil, err
	}
	q, err := eventquery.Parse(qs)
	if err != nil {
		return nil, fmt.Errorf("failed to parse query: %v", err)
	}
	if ev, ok := q.Eq("tm.event"); !ok || (ev != "NewBlock" && ev != "Tx") {
		return nil, errors.New("chaind publishes tm.event='NewBlock' and tm.event='Tx'; the query must name one")
	}
	return q, nil
}

// send queues v for the client; a client whose queue is full is cut.
func (wc *wsConn) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	wc.sendRaw(b)
}

func (wc *wsConn) sendRaw(b []byte) {
	wc.mu.Lock()
	if wc.dead {
		wc.mu.Unlock()
		return
	}
	if wc.queued+len(b) > wsQueueBytes {
		wc.dead, wc.queue, wc.queued = true, nil, 0
		wc.mu.Unlock()
		wc.cancel()
		go wc.closeConn("slow client: the event queue is full")
		return
	}
	wc.queue = append(wc.queue, b)
	wc.queued += len(b)
	wc.mu.Unlock()
	select {
	case wc.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes the queue in order, and pings an idle client.
func (wc *wsConn) writeLoop(ctx context.Context) {
	ping := time.NewTicker(wsPingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := wc.c.Ping(pctx)
			cancel()
			if err != nil {
				wc.cancel()
				return
			}
			continue
		case <-wc.wake:
		}
		for {
			wc.mu.Lock()
			if len(wc.queue) == 0 {
				wc.mu.Unlock()
				break
			}
			b := wc.queue[0]
			wc.queue[0] = nil
			wc.queue = wc.queue[1:]
			wc.queued -= len(b)
			wc.mu.Unlock()
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := wc.c.Write(wctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				wc.cancel()
				return
			}
		}
	}
}
