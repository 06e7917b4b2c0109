package cometrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/eventquery"
	"github.com/chaind/chaind/internal/types"
)

// hub holds the WebSocket subscriptions and publishes each new block to
// them (Run).
type hub struct {
	mu    sync.Mutex
	conns map[*wsConn]bool
}

func newHub() *hub { return &hub{conns: map[*wsConn]bool{}} }

var errSubscribed = errors.New("already subscribed")

func (h *hub) subscribe(wc *wsConn, id json.RawMessage, q *eventquery.Query) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.conns[wc] && len(h.conns) >= wsMaxClients {
		return fmt.Errorf("max_subscription_clients %d reached", wsMaxClients)
	}
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if _, ok := wc.subs[q.Text]; ok {
		return errSubscribed
	}
	if len(wc.subs) >= wsMaxSubs {
		return fmt.Errorf("max_subscriptions_per_client %d reached", wsMaxSubs)
	}
	wc.subs[q.Text] = &wsSub{id: id, q: q}
	h.conns[wc] = true
	return nil
}

// unsubscribe ends the subscription to text ("": every one); false when
// there was none.
func (h *hub) unsubscribe(wc *wsConn, text string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	wc.mu.Lock()
	defer wc.mu.Unlock()
	found := false
	if text == "" {
		found = len(wc.subs) > 0
		clear(wc.subs)
	} else if _, ok := wc.subs[text]; ok {
		delete(wc.subs, text)
		found = true
	}
	if len(wc.subs) == 0 {
		delete(h.conns, wc)
	}
	return found
}

func (h *hub) leave(wc *wsConn) {
	h.mu.Lock()
	delete(h.conns, wc)
	h.mu.Unlock()
}

// busEvent is one event as subscribers receive it: its data (type and
// value, rendered once) and the attributes queries match.
type busEvent struct {
	data   json.RawMessage
	events map[string][]string
}

// publish sends each event to every subscription whose query it matches.
func (h *hub) publish(evs []busEvent) {
	h.mu.Lock()
	conns := make([]*wsConn, 0, len(h.conns))
	for wc := range h.conns {
		conns = append(conns, wc)
	}
	h.mu.Unlock()
	for _, wc := range conns {
		wc.mu.Lock()
		subs := make([]*wsSub, 0, len(wc.subs))
		for _, s := range wc.subs {
			subs = append(subs, s)
		}
		wc.mu.Unlock()
		for _, ev := range evs {
			for _, sub := range subs {
				if sub.q.Matches(ev.events) {
					wc.send(response{JSONRPC: "2.0", ID: sub.id, Result: map[string]any{
						"query": sub.q.Text, "data": ev.data, "events": ev.events}})
				}
			}
		}
	}
}

func (h *hub) subscribed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns) > 0
}

// Run follows the chain's new blocks until stop is closed: it records
// their transactions' CometBFT hashes and publishes their NewBlock and Tx
// events to the WebSocket subscribers. Without a head feed it returns at
// once (no subscriptions are served then).
func (s *Server) Run(stop <-chan struct{}) {
	if s.b.Heads == nil || s.b.Blocks == nil {
		return
	}
	heads, unsub := s.b.Heads.SubscribeHeads(64)
	defer unsub()
	s.q.Backfill()
	for {
		select {
		case <-stop:
			return
		case b, ok := <-heads:
			if !ok {
				return
			}
			s.newBlock(b)
		}
	}
}

// newBlock indexes b and publishes its events to the subscribers.
func (s *Server) newBlock(b *types.Block) {
	if !s.events.subscribed() {
		s.q.IndexHashes(b)
		return
	}
	rs, err := s.q.BlockTxResults(b) // indexes the hashes too
	if err != nil {
		s.q.IndexHashes(b)
		return
	}
	evs, err := s.blockEvents(b, rs)
	if err != nil {
		return
	}
	s.events.publish(evs)
}

// blockEvents renders the NewBlock event of b and the Tx event of each
// of its transactions, in CometBFT's EventData shapes.
func (s *Server) blockEvents(b *types.Block, rs []query.TxResult) ([]busEvent, error) {
	blk, err := s.blockResult(context.Background(), b.Number())
	if err != nil {
		return nil, err
	}
	results := make([]any, len(rs))
	for i := range rs {
		results[i] = execResult(&rs[i])
	}
	fin := blockEvents(b)
	value := blk.(map[string]any)
	// The event's ResponseFinalizeBlock leaves out what is empty, as
	// CometBFT's encoding of it does (omitempty), but for the validator
	// updates.
	rfb := map[string]any{"tx_results": results, "validator_updates": []any{}, "app_hash": b.Root().Bytes()}
	if len(fin) > 0 {
		rfb["events"] = fin
	}
	value["result_finalize_block"] = rfb
	data, err := json.Marshal(map[string]any{"type": "tendermint/event/NewBlock", "value": value})
	if err != nil {
		return nil, err
	}
	out := []busEvent{{data: data, events: query.Flatten(fin, map[string][]string{"tm.event": {"NewBlock"}})}}
	for i := range rs {
		t := &rs[i]
		txr := map[string]any{"height": i64(t.Height), "tx": t.Raw, "result": eventResult(t)}
		if t.Index != 0 {
			txr["index"] = t.Index // left out when 0 (omitempty)
		}
		data, err := json.Marshal(map[string]any{"type": "tendermint/event/Tx", "value": map[string]any{"TxResult": txr}})
		if err != nil {
			return nil, err
		}
		out = append(out, busEvent{data: data, events: t.EventMap()})
	}
	return out, nil
}
