package cometrpc

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/bech32"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
)

// block_results, tx, tx_search, block_search and the pool's
// unconfirmed_txs, over the chain's own indexes: the transaction index
// (by Ethereum hash), the history index (transactions in chain order and
// by address) and the CometBFT hashes this RPC has seen (hashIndex).

func (s *Server) blockResults(_ context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	b, err := s.b.Blocks.BlockByNumber(n)
	if err != nil {
		return nil, err
	}
	rs, err := s.blockTxResults(b)
	if err != nil {
		return nil, err
	}
	txs := make([]any, len(rs))
	for i := range rs {
		txs[i] = rs[i].execResult()
	}
	return map[string]any{"height": i64(n), "txs_results": txs, "finalize_block_events": blockEvents(b),
		"validator_updates": []any{}, "consensus_param_updates": nil, "app_hash": hexBytes(b.Root().Bytes())}, nil
}

// blockEvents are the events of a block outside its transactions: the
// base fee Cosmos EVM's fee market reports at the start of each block.
func blockEvents(b *types.Block) []event {
	if bf := b.BaseFee(); bf != nil {
		return []event{newEvent("evm_fee_market", "base_fee", bf.Dec(), "mode", "BeginBlock")}
	}
	return []event{}
}

func (s *Server) txMethod(_ context.Context, _ callInfo, p params) (any, error) {
	h, err := s.hashParam(p)
	if err != nil {
		return nil, err
	}
	if prove, err := p.boolParam("prove"); err != nil {
		return nil, err
	} else if prove {
		return nil, errProve
	}
	t, err := s.txByHash(h)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("tx (%X) not found", h[:])
	}
	return t.resultTx(), nil
}

// errProve refuses inclusion proofs: chaind does not build CometBFT's
// Merkle proofs of a transaction in data_hash; Ethereum proofs serve that
// role (eth_getProof, the transactions and receipts roots).
var errProve = paramsErr("prove: chaind serves no CometBFT transaction proofs; use eth_getProof and the block's transactions and receipts roots")

// Paging as CometBFT pages search results.
type page struct {
	page, per int
	desc      bool
}

func pageParams(p params) (page, error) {
	n, _, err := p.int64Param("page")
	if err != nil {
		return page{}, err
	}
	per, _, err := p.int64Param("per_page")
	if err != nil {
		return page{}, err
	}
	if per <= 0 {
		per = defaultPerPage
	}
	order, err := p.stringParam("order_by")
	if err != nil {
		return page{}, err
	}
	var desc bool
	switch order {
	case "", "asc":
	case "desc":
		desc = true
	default:
		return page{}, paramsErr("order_by: expected asc or desc, got %q", order)
	}
	if n == 0 {
		n = 1
	}
	return page{page: int(min(max(n, -1), 1<<30)), per: int(min(per, maxPerPage)), desc: desc}, nil
}

// window returns the positions [lo, hi) of the page in a list of total.
func (pg page) window(total int) (int, int, error) {
	pages := max((total+pg.per-1)/pg.per, 1)
	if pg.page < 1 || pg.page > pages {
		return 0, 0, paramsErr("page should be within [1, %d] range, given %d", pages, pg.page)
	}
	lo := (pg.page - 1) * pg.per
	return lo, min(lo+pg.per, total), nil
}

// The keys each search can pick its candidates by or filter on.
var (
	txSearchKeys = []string{"tm.event", "tx.height", "tx.hash", "message.sender", "ethereum_tx.ethereumTxHash",
		"message.action", "message.module", "ethereum_tx.recipient", "ethereum_tx.txHash"}
	blockSearchKeys = []string{"tm.event", "block.height"}
)

// maxScan bounds the transactions one tx_search renders to filter them:
// a query no index narrows to this many is refused.
const maxScan = 10_000

func checkKeys(q *eventQuery, allowed []string, method string) error {
	for _, c := range q.conds {
		if !slices.Contains(allowed, c.key) {
			return paramsErr("%s: %q is not indexed by chaind; queries may use %s", method, c.key, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func (s *Server) queryParam(p params, allowed []string, method string) (*eventQuery, error) {
	qs, err := p.stringParam("query")
	if err != nil {
		return nil, err
	}
	q, err := parseQuery(qs)
	if err != nil {
		return nil, paramsErr("%v", err)
	}
	return q, checkKeys(q, allowed, method)
}

// candidates is an ordered list of transactions to page through: n of
// them, the i-th read by at; filter says whether they must be matched
// against the query (else every one matches).
type candidates struct {
	n      uint64
	at     func(i uint64) (backend.TxRef, error)
	filter bool
}

func (s *Server) txSearch(_ context.Context, _ callInfo, p params) (any, error) {
	q, err := s.queryParam(p, txSearchKeys, "tx_search")
	if err != nil {
		return nil, err
	}
	if prove, err := p.boolParam("prove"); err != nil {
		return nil, err
	} else if prove {
		return nil, errProve
	}
	pg, err := pageParams(p)
	if err != nil {
		return nil, err
	}
	if s.b.Blocks == nil || s.b.History == nil {
		return nil, backend.ErrUnavailable
	}
	if ev, ok := q.eq("tm.event"); ok && ev != "Tx" {
		return searchResult("txs", nil, 0), nil
	}
	c, err := s.txCandidates(q)
	if err != nil {
		return nil, err
	}
	cache := map[uint64][]txResult{}
	render := func(ref backend.TxRef) (*txResult, error) {
		rs, ok := cache[ref.Block]
		if !ok {
			b, err := s.b.Blocks.BlockByNumber(ref.Block)
			if err != nil {
				return nil, err
			}
			if rs, err = s.blockTxResults(b); err != nil {
				return nil, err
			}
			if len(cache) > 64 {
				clear(cache)
			}
			cache[ref.Block] = rs
		}
		if ref.Index >= len(rs) {
			return nil, fmt.Errorf("%w: block %d has no transaction %d", backend.ErrNotFound, ref.Block, ref.Index)
		}
		return &rs[ref.Index], nil
	}
	var list []*txResult
	var total int
	if c.filter {
		if c.n > maxScan {
			return nil, paramsErr("tx_search: the query selects %d transactions to filter, more than %d; narrow it with tx.height", c.n, maxScan)
		}
		var matched []*txResult
		for i := range c.n {
			ref, err := c.at(i)
			if err != nil {
				return nil, err
			}
			t, err := render(ref)
			if err != nil {
				return nil, err
			}
			if q.matches(t.eventMap()) {
				matched = append(matched, t)
			}
		}
		if pg.desc {
			slices.Reverse(matched)
		}
		total = len(matched)
		lo, hi, err := pg.window(total)
		if err != nil {
			return nil, err
		}
		list = matched[lo:hi]
	} else {
		total = int(c.n)
		lo, hi, err := pg.window(total)
		if err != nil {
			return nil, err
		}
		for i := lo; i < hi; i++ {
			k := uint64(i)
			if pg.desc {
				k = c.n - 1 - k
			}
			ref, err := c.at(k)
			if err != nil {
				return nil, err
			}
			t, err := render(ref)
			if err != nil {
				return nil, err
			}
			list = append(list, t)
		}
	}
	out := make([]any, len(list))
	for i, t := range list {
		out[i] = t.resultTx()
	}
	return searchResult("txs", out, total), nil
}

func searchResult(key string, list []any, total int) map[string]any {
	if list == nil {
		list = []any{}
	}
	return map[string]any{key: list, "total_count": i64(total)}
}

// txCandidates picks the transactions a query can match from the most
// selective index it names: a hash, the sender's history, or the heights.
func (s *Server) txCandidates(q *eventQuery) (candidates, error) {
	one := func(h types.Hash) (candidates, error) {
		t, err := s.txByHash(h)
		if err != nil || t == nil {
			return candidates{filter: true}, err
		}
		ref := backend.TxRef{Block: t.height, Index: t.index}
		return candidates{n: 1, at: func(uint64) (backend.TxRef, error) { return ref, nil }, filter: true}, nil
	}
	if v, ok := q.eq("tx.hash"); ok {
		h, err := hex.DecodeString(v)
		if err != nil || len(h) != 32 {
			return candidates{}, paramsErr("tx.hash: want 32 bytes of hex, got %q", v)
		}
		return one(types.Hash(h))
	}
	if v, ok := q.eq("ethereum_tx.ethereumTxHash"); ok {
		h, err := types.HexToHash(v)
		if err != nil {
			return candidates{}, paramsErr("ethereum_tx.ethereumTxHash: %v", err)
		}
		return one(h)
	}
	if v, ok := q.eq("message.sender"); ok {
		a, err := parseAccount(v)
		if err != nil {
			return candidates{}, err
		}
		n, err := s.b.History.AddressTxCount(a)
		if err != nil {
			return candidates{}, err
		}
		return candidates{n: n, at: func(i uint64) (backend.TxRef, error) { return s.b.History.AddressTxAt(a, i) }, filter: true}, nil
	}
	for _, c := range q.conds {
		if c.key != "tm.event" && c.key != "tx.height" {
			return candidates{}, paramsErr("tx_search: %q alone selects no index; add tx.hash, message.sender or tx.height", c.key)
		}
	}
	head := s.b.Blocks.Head().Number()
	lo, hi := q.heightRange("tx.height", 1, head)
	if lo > hi {
		return candidates{}, nil
	}
	from, err := s.b.History.HistoryFrom()
	if err != nil {
		return candidates{}, err
	}
	lo = max(lo, from)
	if lo > hi {
		return candidates{}, nil
	}
	var first uint64
	if lo > 0 {
		if first, err = s.b.History.TxCountThrough(lo - 1); err != nil {
			return candidates{}, historyErr(err)
		}
	}
	last, err := s.b.History.TxCountThrough(hi)
	if err != nil {
		return candidates{}, historyErr(err)
	}
	return candidates{n: last - first, at: func(i uint64) (backend.TxRef, error) { return s.b.History.TxAt(first + i) }}, nil
}

func historyErr(err error) error {
	if errors.Is(err, backend.ErrNotIndexed) {
		return paramsErr("tx_search: %v; search from a later tx.height", err)
	}
	return err
}

// parseAccount reads an account as bech32 ("chain1...") or 0x-hex, the
// two forms message.sender takes in Cosmos EVM's events.
func parseAccount(v string) (types.Address, error) {
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		a, err := types.HexToAddress(v)
		if err != nil {
			return types.Address{}, paramsErr("message.sender: %v", err)
		}
		return a, nil
	}
	b, err := bech32.DecodePrefix(query.AccountPrefix, v)
	if err != nil || len(b) != len(types.Address{}) {
		return types.Address{}, paramsErr("message.sender: want a %s1... or 0x address, got %q", query.AccountPrefix, v)
	}
	return types.Address(b), nil
}

func (s *Server) blockSearch(ctx context.Context, _ callInfo, p params) (any, error) {
	q, err := s.queryParam(p, blockSearchKeys, "block_search")
	if err != nil {
		return nil, err
	}
	pg, err := pageParams(p)
	if err != nil {
		return nil, err
	}
	h, err := s.head()
	if err != nil {
		return nil, err
	}
	if ev, ok := q.eq("tm.event"); ok && ev != "NewBlock" {
		return searchResult("blocks", nil, 0), nil
	}
	lo, hi := q.heightRange("block.height", 1, h.Number())
	total := 0
	if lo <= hi {
		total = int(hi - lo + 1)
	}
	a, b, err := pg.window(total)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, b-a)
	for i := a; i < b; i++ {
		n := lo + uint64(i)
		if pg.desc {
			n = hi - uint64(i)
		}
		r, err := s.blockResult(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return searchResult("blocks", out, total), nil
}

// maxUnconfirmed is how many pool transactions one unconfirmed_txs call
// returns at most, CometBFT's limit.
const maxUnconfirmed = 100

// poolTxs renders the pool's pending and queued transactions in sender
// then nonce order, with their count and bytes.
func (s *Server) poolTxs(limit int) ([][]byte, int, int, error) {
	if s.b.Pool == nil {
		return nil, 0, 0, backend.ErrUnavailable
	}
	pending, queued := s.b.Pool.PoolContent()
	var out [][]byte
	count, size := 0, 0
	for _, m := range []map[types.Address][]*types.Transaction{pending, queued} {
		senders := make([]types.Address, 0, len(m))
		for a := range m {
			senders = append(senders, a)
		}
		slices.SortFunc(senders, func(a, b types.Address) int { return strings.Compare(string(a[:]), string(b[:])) })
		for _, a := range senders {
			for _, tx := range m[a] {
				raw, err := query.CosmosTx(tx, a)
				if err != nil {
					return nil, 0, 0, err
				}
				count++
				size += len(raw)
				if len(out) < limit {
					out = append(out, raw)
				}
			}
		}
	}
	return out, count, size, nil
}

func (s *Server) unconfirmedTxs(_ context.Context, _ callInfo, p params) (any, error) {
	limit, _, err := p.int64Param("limit")
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 30
	}
	txs, n, size, err := s.poolTxs(int(min(limit, maxUnconfirmed)))
	if err != nil {
		return nil, err
	}
	if txs == nil {
		txs = [][]byte{}
	}
	return map[string]any{"n_txs": i64(len(txs)), "total": i64(n), "total_bytes": i64(size), "txs": txs}, nil
}

func (s *Server) numUnconfirmedTxs(context.Context, callInfo, params) (any, error) {
	_, n, size, err := s.poolTxs(0)
	if err != nil {
		return nil, err
	}
	return map[string]any{"n_txs": i64(n), "total": i64(n), "total_bytes": i64(size), "txs": nil}, nil
}
