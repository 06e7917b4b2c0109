package ethapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

const (
	filterTimeout    = 5 * time.Minute
	filterBufferSize = 10_000 // hashes a block or pending filter keeps between polls
)

var errFilterNotFound = errors.New("filter not found")

type filterKind int

const (
	blockFilter filterKind = iota
	pendingFilter
	logsFilter
)

type filter struct {
	kind     filterKind
	query    FilterQuery
	hashes   []types.Hash // block or pending filters: what arrived since the last poll
	next     uint64       // logs filters: first block not yet reported
	lastPoll time.Time
}

type filterAPI struct {
	eth *ethAPI

	mu      sync.Mutex
	filters map[string]*filter
	started bool
	heads   feed[*types.Block]       // newHeads and logs subscriptions
	pending feed[*types.Transaction] // newPendingTransactions subscriptions
	now     func() time.Time
}

// RegisterFilters installs the polling filters (eth_newFilter and friends)
// and the WebSocket subscriptions (eth_subscribe, eth_unsubscribe).
func RegisterFilters(s *rpc.Server, b Backend, opts EthOptions) {
	api := &filterAPI{eth: &ethAPI{b: b, opts: opts.withDefaults()}, filters: map[string]*filter{}, now: time.Now}
	// One feed per source serves every subscription, so its buffer (how
	// far it may lag before the source skips it) is paid once, not per
	// subscriber: a block's worth of transactions, a few dozen heads.
	api.heads = feed[*types.Block]{source: b.SubscribeHeads, buffer: 64}
	api.pending = feed[*types.Transaction]{source: b.SubscribePending, buffer: 4096}
	register(s, "eth_newFilter", 1, 1, api.newFilter)
	register(s, "eth_newBlockFilter", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return api.install(&filter{kind: blockFilter}), nil
	})
	register(s, "eth_newPendingTransactionFilter", 0, 1, func(context.Context, rpc.Params) (any, error) {
		return api.install(&filter{kind: pendingFilter}), nil
	})
	register(s, "eth_getFilterChanges", 1, 1, api.getFilterChanges)
	register(s, "eth_getFilterLogs", 1, 1, api.getFilterLogs)
	register(s, "eth_uninstallFilter", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var id string
		if err := p.Decode(0, &id); err != nil {
			return nil, err
		}
		api.mu.Lock()
		defer api.mu.Unlock()
		_, ok := api.filters[id]
		delete(api.filters, id)
		return ok, nil
	})
	register(s, "eth_subscribe", 1, 3, api.subscribe)
	s.RegisterUnsubscribe("eth_unsubscribe")
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return "0x" + hex.EncodeToString(b[:])
}

// install adds a filter; the first one starts the feeds that fill block
// and pending filters and the janitor that expires unpolled ones.
func (api *filterAPI) install(f *filter) string {
	api.mu.Lock()
	defer api.mu.Unlock()
	if !api.started {
		api.started = true
		// Subscribe before the filter is handed out, not in the goroutine:
		// a transaction or block right after eth_new*Filter must not slip
		// past a feed that has not subscribed yet.
		heads, cancelHeads := api.eth.b.SubscribeHeads(256)
		txs, cancelTxs := api.eth.b.SubscribePending(4096)
		go api.feed(heads, cancelHeads, txs, cancelTxs)
	}
	f.lastPoll = api.now()
	id := newID()
	api.filters[id] = f
	return id
}

func (api *filterAPI) feed(heads <-chan *types.Block, cancelHeads func(), txs <-chan *types.Transaction, cancelTxs func()) {
	defer cancelHeads()
	defer cancelTxs()
	janitor := time.NewTicker(30 * time.Second)
	defer janitor.Stop()
	for {
		select {
		case b, ok := <-heads:
			if !ok {
				return
			}
			api.push(blockFilter, b.Hash())
		case tx, ok := <-txs:
			if !ok {
				return
			}
			api.push(pendingFilter, tx.Hash())
		case <-janitor.C:
			api.expire()
		}
	}
}

func (api *filterAPI) push(kind filterKind, h types.Hash) {
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, f := range api.filters {
		if f.kind == kind && len(f.hashes) < filterBufferSize {
			f.hashes = append(f.hashes, h)
		}
	}
}

func (api *filterAPI) expire() {
	api.mu.Lock()
	defer api.mu.Unlock()
	now := api.now()
	for id, f := range api.filters {
		if now.Sub(f.lastPoll) > filterTimeout {
			delete(api.filters, id)
		}
	}
}

func (api *filterAPI) newFilter(_ context.Context, p rpc.Params) (any, error) {
	var q FilterQuery
	if err := p.Decode(0, &q); err != nil {
		return nil, err
	}
	if q.BlockHash != nil {
		return nil, rpc.InvalidParams(0, errors.New("blockHash is not allowed in eth_newFilter"))
	}
	next := api.eth.b.Head().Number() + 1
	if q.FromBlock != nil && q.FromBlock.Tag == "" && q.FromBlock.Hash == nil && q.FromBlock.Number < next {
		next = q.FromBlock.Number
	}
	return api.install(&filter{kind: logsFilter, query: q, next: next}), nil
}

func (api *filterAPI) get(p rpc.Params) (*filter, error) {
	var id string
	if err := p.Decode(0, &id); err != nil {
		return nil, err
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	f, ok := api.filters[id]
	if !ok {
		return nil, errFilterNotFound
	}
	f.lastPoll = api.now()
	return f, nil
}

func (api *filterAPI) getFilterChanges(_ context.Context, p rpc.Params) (any, error) {
	f, err := api.get(p)
	if err != nil {
		return nil, err
	}
	if f.kind != logsFilter {
		api.mu.Lock()
		out := f.hashes
		f.hashes = nil
		api.mu.Unlock()
		if out == nil {
			out = []types.Hash{}
		}
		return out, nil
	}
	head := api.eth.b.Head().Number()
	api.mu.Lock()
	from := f.next
	api.mu.Unlock()
	to := head
	if f.query.ToBlock != nil && f.query.ToBlock.Tag == "" && f.query.ToBlock.Hash == nil && f.query.ToBlock.Number < to {
		to = f.query.ToBlock.Number
	}
	if from > to {
		return []*types.Log{}, nil
	}
	q := f.query
	fb, tb := BlockRef{Number: from}, BlockRef{Number: to}
	q.FromBlock, q.ToBlock = &fb, &tb
	logs, err := api.eth.FilterLogs(&q)
	if err != nil {
		return nil, err
	}
	api.mu.Lock()
	f.next = to + 1
	api.mu.Unlock()
	return logs, nil
}

func (api *filterAPI) getFilterLogs(_ context.Context, p rpc.Params) (any, error) {
	f, err := api.get(p)
	if err != nil {
		return nil, err
	}
	if f.kind != logsFilter {
		return nil, errFilterNotFound
	}
	q := f.query
	return api.eth.FilterLogs(&q)
}

// subscribe implements eth_subscribe over WebSocket: [name], [name, flag],
// [name, filter] (go-ethereum's logs form) or [name, flag, filter]. The
// flag asks for full transactions rather than hashes; for newHeads a flag
// turns the header into the block object with its transactions.
func (api *filterAPI) subscribe(ctx context.Context, p rpc.Params) (any, error) {
	n, ok := rpc.NotifierFrom(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	var kind string
	if err := p.Decode(0, &kind); err != nil {
		return nil, err
	}
	full, hasFlag, filterAt, err := subscribeFlag(p)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "newHeads":
		if p.Has(filterAt) {
			return nil, rpc.InvalidParams(filterAt, errors.New("newHeads takes no filter"))
		}
		sub, err := n.Subscribe()
		if err != nil {
			return nil, err
		}
		api.heads.add(sub, func(b *types.Block) error {
			if !hasFlag {
				return sub.Notify(json.RawMessage(types.AppendHeaderJSON(nil, b.HeaderRef(), b.Hash(), false)))
			}
			return sub.Notify(api.eth.renderBlock(b, full, false))
		})
		return sub.ID, nil
	case "logs":
		var q FilterQuery
		if _, err := p.Optional(filterAt, &q); err != nil {
			return nil, err
		}
		sub, err := n.Subscribe()
		if err != nil {
			return nil, err
		}
		keys := q.matcher()
		api.heads.add(sub, func(b *types.Block) error {
			logs, err := api.eth.blockLogs(b, keys, nil)
			if err != nil {
				return nil // a block whose receipts cannot be read has no logs to send
			}
			for _, l := range logs {
				if err := sub.Notify(l); err != nil {
					return err
				}
			}
			return nil
		})
		return sub.ID, nil
	case "newPendingTransactions":
		if p.Has(filterAt) {
			return nil, rpc.InvalidParams(filterAt, errors.New("newPendingTransactions takes no filter"))
		}
		sub, err := n.Subscribe()
		if err != nil {
			return nil, err
		}
		api.pending.add(sub, func(tx *types.Transaction) error {
			if !full {
				return sub.Notify(tx.Hash())
			}
			_, from, _ := api.eth.b.PoolTransaction(tx.Hash())
			return sub.Notify(types.TxJSON(tx, from, nil))
		})
		return sub.ID, nil
	case "syncing":
		// A node that produces or follows blocks itself never changes sync
		// state; the subscription stays open and reports changes when the
		// p2p sync layer has any.
		sub, err := n.Subscribe()
		if err != nil {
			return nil, err
		}
		return sub.ID, nil
	}
	return nil, rpc.InvalidParams(0, errors.New("unsupported subscription type: "+kind))
}

// subscribeFlag reads the optional flag of eth_subscribe: parameter 1 when
// it is a boolean (then a filter may follow at 2), else the filter is
// parameter 1 itself.
func subscribeFlag(p rpc.Params) (full, hasFlag bool, filterAt int, err error) {
	if !p.Has(1) {
		return false, false, 2, nil
	}
	if t := bytes.TrimSpace(p[1]); len(t) > 0 && t[0] == '{' {
		if p.Has(2) {
			return false, false, 0, rpc.InvalidParams(2, errors.New("a filter is already given as argument 1"))
		}
		return false, false, 1, nil
	}
	if err := p.Decode(1, &full); err != nil {
		return false, false, 0, err
	}
	return full, true, 2, nil
}
