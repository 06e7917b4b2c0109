package query

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query/eventquery"
	"github.com/chaind/chaind/internal/types"
)

// Transaction search over the chain's own indexes — the transaction index
// (by Ethereum hash), the history index (transactions in chain order and
// by address) and the CometBFT hashes seen (hashIndex) — for CometBFT's
// tx_search and the tx service's GetTxsEvent.

// TxSearchKeys are the event keys a transaction search can pick its
// candidates by or filter on.
var TxSearchKeys = []string{"tm.event", "tx.height", "tx.hash", "message.sender", "ethereum_tx.ethereumTxHash",
	"message.action", "message.module", "ethereum_tx.recipient", "ethereum_tx.txHash"}

// maxScan bounds the transactions one search renders to filter them: a
// query no index narrows to this many is refused.
const maxScan = 10_000

// CheckKeys refuses a query naming a key outside allowed; method names
// the search in the error.
func CheckKeys(q *eventquery.Query, allowed []string, method string) error {
	for _, k := range q.Keys() {
		if !slices.Contains(allowed, k) {
			return Errorf(InvalidArgument, "%s: %q is not indexed by chaind; queries may use %s", method, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// candidates is an ordered list of transactions to page through: n of
// them, the i-th read by at; filter says whether they must be matched
// against the query (else every one matches).
type candidates struct {
	n      uint64
	at     func(i uint64) (backend.TxRef, error)
	filter bool
}

// Window picks the positions [lo, hi) of one page of a list of total
// matches, or refuses the page asked for.
type Window func(total int) (lo, hi int, err error)

// TxSearch runs q over the transactions (its keys already checked with
// CheckKeys against TxSearchKeys) and returns the page window picks, in
// chain order or (desc) the reverse, and how many match in all.
func (q *Querier) TxSearch(eq *eventquery.Query, window Window, desc bool) ([]*TxResult, int, error) {
	if q.b.Blocks == nil || q.b.History == nil {
		return nil, 0, backend.ErrUnavailable
	}
	if ev, ok := eq.Eq("tm.event"); ok && ev != "Tx" {
		_, _, err := window(0)
		return nil, 0, err
	}
	c, err := q.txCandidates(eq)
	if err != nil {
		return nil, 0, err
	}
	cache := map[uint64][]TxResult{}
	render := func(ref backend.TxRef) (*TxResult, error) {
		rs, ok := cache[ref.Block]
		if !ok {
			b, err := q.b.Blocks.BlockByNumber(ref.Block)
			if err != nil {
				return nil, err
			}
			if rs, err = q.BlockTxResults(b); err != nil {
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
	if c.filter {
		if c.n > maxScan {
			return nil, 0, Errorf(InvalidArgument, "tx_search: the query selects %d transactions to filter, more than %d; narrow it with tx.height", c.n, maxScan)
		}
		var matched []*TxResult
		for i := range c.n {
			ref, err := c.at(i)
			if err != nil {
				return nil, 0, err
			}
			t, err := render(ref)
			if err != nil {
				return nil, 0, err
			}
			if eq.Matches(t.EventMap()) {
				matched = append(matched, t)
			}
		}
		if desc {
			slices.Reverse(matched)
		}
		lo, hi, err := window(len(matched))
		if err != nil {
			return nil, 0, err
		}
		return matched[lo:hi], len(matched), nil
	}
	total := int(c.n)
	lo, hi, err := window(total)
	if err != nil {
		return nil, 0, err
	}
	var list []*TxResult
	for i := lo; i < hi; i++ {
		k := uint64(i)
		if desc {
			k = c.n - 1 - k
		}
		ref, err := c.at(k)
		if err != nil {
			return nil, 0, err
		}
		t, err := render(ref)
		if err != nil {
			return nil, 0, err
		}
		list = append(list, t)
	}
	return list, total, nil
}

// txCandidates picks the transactions a query can match from the most
// selective index it names: a hash, the sender's history, or the heights.
func (q *Querier) txCandidates(eq *eventquery.Query) (candidates, error) {
	one := func(h types.Hash) (candidates, error) {
		t, err := q.TxByHash(h)
		if err != nil || t == nil {
			return candidates{filter: true}, err
		}
		ref := backend.TxRef{Block: t.Height, Index: t.Index}
		return candidates{n: 1, at: func(uint64) (backend.TxRef, error) { return ref, nil }, filter: true}, nil
	}
	if v, ok := eq.Eq("tx.hash"); ok {
		h, err := hex.DecodeString(v)
		if err != nil || len(h) != 32 {
			return candidates{}, Errorf(InvalidArgument, "tx.hash: want 32 bytes of hex, got %q", v)
		}
		return one(types.Hash(h))
	}
	if v, ok := eq.Eq("ethereum_tx.ethereumTxHash"); ok {
		h, err := types.HexToHash(v)
		if err != nil {
			return candidates{}, Errorf(InvalidArgument, "ethereum_tx.ethereumTxHash: %v", err)
		}
		return one(h)
	}
	if v, ok := eq.Eq("message.sender"); ok {
		a, err := parseSender(v)
		if err != nil {
			return candidates{}, err
		}
		n, err := q.b.History.AddressTxCount(a)
		if err != nil {
			return candidates{}, err
		}
		return candidates{n: n, at: func(i uint64) (backend.TxRef, error) { return q.b.History.AddressTxAt(a, i) }, filter: true}, nil
	}
	for _, k := range eq.Keys() {
		if k != "tm.event" && k != "tx.height" {
			return candidates{}, Errorf(InvalidArgument, "tx_search: %q alone selects no index; add tx.hash, message.sender or tx.height", k)
		}
	}
	head := q.b.Blocks.Head().Number()
	lo, hi := eq.HeightRange("tx.height", 1, head)
	if lo > hi {
		return candidates{}, nil
	}
	from, err := q.b.History.HistoryFrom()
	if err != nil {
		return candidates{}, err
	}
	lo = max(lo, from)
	if lo > hi {
		return candidates{}, nil
	}
	var first uint64
	if lo > 0 {
		if first, err = q.b.History.TxCountThrough(lo - 1); err != nil {
			return candidates{}, historyErr(err)
		}
	}
	last, err := q.b.History.TxCountThrough(hi)
	if err != nil {
		return candidates{}, historyErr(err)
	}
	return candidates{n: last - first, at: func(i uint64) (backend.TxRef, error) { return q.b.History.TxAt(first + i) }}, nil
}

func historyErr(err error) error {
	if errors.Is(err, backend.ErrNotIndexed) {
		return Errorf(InvalidArgument, "tx_search: %v; search from a later tx.height", err)
	}
	return err
}

// parseSender reads an account as bech32 ("chain1...") or 0x-hex, the
// two forms message.sender takes in Cosmos EVM's events.
func parseSender(v string) (types.Address, error) {
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		a, err := types.HexToAddress(v)
		if err != nil {
			return types.Address{}, Errorf(InvalidArgument, "message.sender: %v", err)
		}
		return a, nil
	}
	a, err := parseAddress(AccountPrefix, "message.sender", v)
	if err != nil {
		return types.Address{}, Errorf(InvalidArgument, "message.sender: want a %s1... or 0x address, got %q", AccountPrefix, v)
	}
	return a, nil
}
