package cometrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/chaind/chaind/internal/query"
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

func (h *hub) subscribe(wc *wsConn, id json.RawMessage, q *eventQuery) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.conns[wc] && len(h.conns) >= wsMaxClients {
		return fmt.Errorf("max_subscription_clients %d reached", wsMaxClients)
	}
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if _, ok := wc.subs[q.text]; ok {
		return errSubscribed
	}
	if len(wc.subs) >= wsMaxSubs {
		return fmt.Errorf("max_subscriptions_per_client %d reached", wsMaxSubs)
	}
	wc.subs[q.text] = &wsSub{id: id, q: q}
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
				if sub.q.matches(ev.events) {
					wc.send(response{JSONRPC: "2.0", ID: sub.id, Result: map[string]any{
						"query": sub.q.text, "data": ev.data, "events": ev.events}})
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

// backfillBlocks is how many blocks before the head Run indexes the
// CometBFT hashes of when it starts (hashIndex).
const backfillBlocks = 1000

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
	s.backfill()
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

// backfill indexes the CometBFT hashes of the last backfillBlocks blocks,
// once: when Run starts, or at the first lookup that misses if that comes
// first.
func (s *Server) backfill() {
	s.backfilled.Do(func() {
		if s.b.Blocks == nil {
			return
		}
		head := s.b.Blocks.Head().Number()
		for n := head; n > 0 && head-n < backfillBlocks; n-- {
			if b, err := s.b.Blocks.BlockByNumber(n); err == nil {
				s.indexHashes(b)
			}
		}
	})
}

// indexHashes records the CometBFT hashes of b's transactions.
func (s *Server) indexHashes(b *types.Block) {
	for _, tx := range b.Transactions() {
		from, err := types.Sender(tx)
		if err != nil {
			continue
		}
		if raw, err := query.CosmosTx(tx, from); err == nil {
			s.hashes.add(query.CometHash(raw), tx.Hash())
		}
	}
}

// newBlock indexes b and publishes its events to the subscribers.
func (s *Server) newBlock(b *types.Block) {
	if !s.events.subscribed() {
		s.indexHashes(b)
		return
	}
	rs, err := s.blockTxResults(b) // indexes the hashes too
	if err != nil {
		s.indexHashes(b)
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
func (s *Server) blockEvents(b *types.Block, rs []txResult) ([]busEvent, error) {
	blk, err := s.blockResult(context.Background(), b.Number())
	if err != nil {
		return nil, err
	}
	results := make([]any, len(rs))
	for i := range rs {
		results[i] = rs[i].execResult()
	}
	fin := blockEvents(b)
	value := blk.(map[string]any)
	value["result_finalize_block"] = map[string]any{"events": fin, "tx_results": results,
		"validator_updates": []any{}, "consensus_param_updates": nil, "app_hash": b.Root().Bytes()}
	data, err := json.Marshal(map[string]any{"type": "tendermint/event/NewBlock", "value": value})
	if err != nil {
		return nil, err
	}
	out := []busEvent{{data: data, events: flatten(fin, map[string][]string{"tm.event": {"NewBlock"}})}}
	for i := range rs {
		t := &rs[i]
		data, err := json.Marshal(map[string]any{"type": "tendermint/event/Tx", "value": map[string]any{
			"TxResult": map[string]any{"height": i64(t.height), "index": t.index, "tx": t.raw, "result": t.execResult()}}})
		if err != nil {
			return nil, err
		}
		out = append(out, busEvent{data: data, events: t.eventMap()})
	}
	return out, nil
}
