package cometrpc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/eventquery"
	"github.com/chaind/chaind/internal/types"
)

// block_results, tx, tx_search, block_search and the pool's
// unconfirmed_txs: the transactions and their search are the query
// layer's (query.TxResult, query.TxSearch), rendered here in CometBFT's
// shapes.

func (s *Server) blockResults(_ context.Context, _ callInfo, p params) (any, error) {
	n, err := s.heightParam(p, "height")
	if err != nil {
		return nil, err
	}
	b, err := s.b.Blocks.BlockByNumber(n)
	if err != nil {
		return nil, err
	}
	rs, err := s.q.BlockTxResults(b)
	if err != nil {
		return nil, err
	}
	txs := make([]any, len(rs))
	for i := range rs {
		txs[i] = execResult(&rs[i])
	}
	// As CometBFT renders them: lists with nothing in them are null (the
	// validator set changes in no block's results: chaind reports its
	// set changes through the staking module), the app hash base64.
	return map[string]any{"height": i64(n), "txs_results": txs, "finalize_block_events": blockEvents(b),
		"validator_updates": nil, "consensus_param_updates": nil, "app_hash": b.Root().Bytes()}, nil
}

// blockEvents are the events of a block outside its transactions: the
// base fee Cosmos EVM's fee market reports at the start of each block;
// nil without one.
func blockEvents(b *types.Block) []query.Event {
	if bf := b.BaseFee(); bf != nil {
		return []query.Event{query.NewEvent("evm_fee_market", "base_fee", bf.Dec(), "mode", "BeginBlock")}
	}
	return nil
}

func (s *Server) txMethod(_ context.Context, _ callInfo, p params) (any, error) {
	h, err := s.hashParam(p, false)
	if err != nil {
		return nil, err
	}
	if prove, err := p.boolParam("prove"); err != nil {
		return nil, err
	} else if prove {
		return nil, errProve
	}
	t, err := s.q.TxByHash(h)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("tx (%X) not found", h[:])
	}
	return resultTx(t), nil
}

// errProve refuses inclusion proofs: chaind does not build CometBFT's
// Merkle proofs of a transaction in data_hash; Ethereum proofs serve that
// role (eth_getProof, the transactions and receipts roots).
var errProve = errors.New("prove: chaind serves no CometBFT transaction proofs; use eth_getProof and the block's transactions and receipts roots")

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
		return page{}, errors.New("expected order_by to be either `asc` or `desc` or empty")
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
		return 0, 0, fmt.Errorf("page should be within [1, %d] range, given %d", pages, pg.page)
	}
	lo := (pg.page - 1) * pg.per
	return lo, min(lo+pg.per, total), nil
}

// The keys block_search can filter on (tx_search's are query.TxSearchKeys).
var blockSearchKeys = []string{"tm.event", "block.height"}

func (s *Server) queryParam(p params, allowed []string, method string) (*eventquery.Query, error) {
	qs, err := p.stringParam("query")
	if err != nil {
		return nil, err
	}
	q, err := eventquery.Parse(qs)
	if err != nil {
		return nil, err
	}
	return q, query.CheckKeys(q, allowed, method)
}

func (s *Server) txSearch(_ context.Context, _ callInfo, p params) (any, error) {
	q, err := s.queryParam(p, query.TxSearchKeys, "tx_search")
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
	list, total, err := s.q.TxSearch(q, pg.window, pg.desc)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(list))
	for i, t := range list {
		out[i] = resultTx(t)
	}
	return searchResult("txs", out, total), nil
}

func searchResult(key string, list []any, total int) map[string]any {
	if list == nil {
		list = []any{}
	}
	return map[string]any{key: list, "total_count": i64(total)}
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
	if ev, ok := q.Eq("tm.event"); ok && ev != "NewBlock" {
		return searchResult("blocks", nil, 0), nil
	}
	lo, hi := q.HeightRange("block.height", 1, h.Number())
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
