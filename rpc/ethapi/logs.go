package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// FilterQuery is the filter object of eth_getLogs, eth_newFilter and the
// logs subscription.
type FilterQuery struct {
	BlockHash *types.Hash
	FromBlock *BlockRef
	ToBlock   *BlockRef
	Addresses []types.Address
	Topics    [][]types.Hash // position -> OR-set; empty set = wildcard
}

// UnmarshalJSON accepts a single address or a list, and topics as null,
// a hash, or a list of hashes per position.
func (q *FilterQuery) UnmarshalJSON(input []byte) error {
	var raw struct {
		BlockHash *types.Hash       `json:"blockHash"`
		FromBlock *BlockRef         `json:"fromBlock"`
		ToBlock   *BlockRef         `json:"toBlock"`
		Address   json.RawMessage   `json:"address"`
		Topics    []json.RawMessage `json:"topics"`
	}
	if err := json.Unmarshal(input, &raw); err != nil {
		return err
	}
	if raw.BlockHash != nil && (raw.FromBlock != nil || raw.ToBlock != nil) {
		return errors.New("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
	}
	q.BlockHash, q.FromBlock, q.ToBlock = raw.BlockHash, raw.FromBlock, raw.ToBlock
	if len(raw.Address) > 0 && string(raw.Address) != "null" {
		if raw.Address[0] == '[' {
			if err := json.Unmarshal(raw.Address, &q.Addresses); err != nil {
				return fmt.Errorf("invalid address list: %v", err)
			}
		} else {
			var a types.Address
			if err := json.Unmarshal(raw.Address, &a); err != nil {
				return fmt.Errorf("invalid address: %v", err)
			}
			q.Addresses = []types.Address{a}
		}
	}
	if len(raw.Topics) > 4 {
		return errors.New("too many topics: at most 4 positions")
	}
	for i, t := range raw.Topics {
		var set []types.Hash
		switch {
		case len(t) == 0 || string(t) == "null":
		case t[0] == '[':
			var opts []*types.Hash
			if err := json.Unmarshal(t, &opts); err != nil {
				return fmt.Errorf("invalid topic %d: %v", i, err)
			}
			for _, o := range opts {
				if o == nil { // a null inside an OR-set matches anything
					set = nil
					break
				}
				set = append(set, *o)
			}
		default:
			var h types.Hash
			if err := json.Unmarshal(t, &h); err != nil {
				return fmt.Errorf("invalid topic %d: %v", i, err)
			}
			set = []types.Hash{h}
		}
		q.Topics = append(q.Topics, set)
	}
	return nil
}

// Match reports whether a log passes the address and topic filters.
func (q *FilterQuery) Match(l *types.Log) bool {
	if len(q.Addresses) > 0 {
		found := false
		for _, a := range q.Addresses {
			if a == l.Address {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if len(q.Topics) > len(l.Topics) {
		return false
	}
	for i, set := range q.Topics {
		if len(set) == 0 {
			continue
		}
		found := false
		for _, t := range set {
			if t == l.Topics[i] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// bloomKeys are a query's addresses and topics as bloom bit positions,
// hashed once per query rather than once per block.
type bloomKeys struct {
	addrs  []types.BloomKey
	topics [][]types.BloomKey
}

func (q *FilterQuery) bloomKeys() *bloomKeys {
	k := &bloomKeys{}
	for _, a := range q.Addresses {
		k.addrs = append(k.addrs, types.NewBloomKey(a[:]))
	}
	for _, set := range q.Topics {
		var ks []types.BloomKey
		for _, t := range set {
			ks = append(ks, types.NewBloomKey(t[:]))
		}
		k.topics = append(k.topics, ks)
	}
	return k
}

// mayMatch is the bloom pre-check: false means the block surely has no
// matching log.
func (k *bloomKeys) mayMatch(bloom *types.Bloom) bool {
	if !anyKey(bloom, k.addrs) {
		return false
	}
	for _, set := range k.topics {
		if !anyKey(bloom, set) {
			return false
		}
	}
	return true
}

// anyKey reports whether one of keys may be in bloom; an empty set is a
// wildcard.
func anyKey(bloom *types.Bloom, keys []types.BloomKey) bool {
	if len(keys) == 0 {
		return true
	}
	for i := range keys {
		if bloom.TestKey(&keys[i]) {
			return true
		}
	}
	return false
}

// Range errors of a log query (argument 0 of eth_getLogs and of
// eth_getFilterLogs, whose filter carries the range): invalid params.
var (
	errInvalidRange = rpc.InvalidParams(0, errors.New("invalid block range params"))
	errBeyondHead   = rpc.InvalidParams(0, errors.New("block range extends beyond current head block"))
)

// blockNumber resolves a range end, with def for an absent one.
func (api *ethAPI) rangeEnd(ref *BlockRef, def uint64) (uint64, error) {
	if ref == nil {
		return def, nil
	}
	if ref.Hash != nil {
		return 0, errors.New("block hashes are not allowed as range ends")
	}
	switch ref.Tag {
	case "latest", "pending", "safe", "finalized":
		return api.b.Head().Number(), nil
	case "earliest":
		return 0, nil
	}
	return ref.Number, nil
}

// FilterLogs returns the logs matching q, within the node's range and
// result caps.
func (api *ethAPI) FilterLogs(q *FilterQuery) ([]*types.Log, error) {
	if q.BlockHash != nil {
		blk, err := orNil(api.b.BlockByHash(*q.BlockHash))
		if err != nil {
			return nil, err
		}
		if blk == nil {
			return nil, errors.New("unknown block")
		}
		return api.blockLogs(blk, q, q.bloomKeys(), nil)
	}
	head := api.b.Head().Number()
	from, err := api.rangeEnd(q.FromBlock, head)
	if err != nil {
		return nil, err
	}
	to, err := api.rangeEnd(q.ToBlock, head)
	if err != nil {
		return nil, err
	}
	if from > to {
		return nil, errInvalidRange
	}
	// A range that names blocks the node does not have yet is refused
	// rather than cut at the head: the caller would take the logs for
	// complete.
	if to > head {
		return nil, errBeyondHead
	}
	if to-from+1 > api.opts.LogRange {
		return nil, &rpc.Error{Code: rpc.CodeLimitExceeded, Message: fmt.Sprintf("query exceeds max block range %d", api.opts.LogRange)}
	}
	logs := []*types.Log{}
	keys := q.bloomKeys()
	bloomOf := api.b.BloomScanner()
	for n := from; n <= to; n++ {
		// Most blocks of a selective query fail the bloom test: test the
		// stored bloom before reading the block.
		bloom, ok, err := bloomOf(n)
		if err != nil {
			return nil, err
		}
		if ok && !keys.mayMatch(&bloom) {
			continue
		}
		blk, err := api.b.BlockByNumber(n)
		if err != nil {
			return nil, err
		}
		if logs, err = api.blockLogs(blk, q, keys, logs); err != nil {
			return nil, err
		}
		if len(logs) > api.opts.LogLimit {
			return nil, &rpc.Error{Code: rpc.CodeLimitExceeded, Message: fmt.Sprintf("query returned more than %d results", api.opts.LogLimit)}
		}
	}
	return logs, nil
}

func (api *ethAPI) blockLogs(blk *types.Block, q *FilterQuery, keys *bloomKeys, out []*types.Log) ([]*types.Log, error) {
	if out == nil {
		out = []*types.Log{}
	}
	if len(blk.Transactions()) == 0 || !keys.mayMatch(&blk.HeaderRef().Bloom) {
		return out, nil
	}
	rs, err := api.b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		for _, l := range r.Logs {
			if q.Match(l) {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

func (api *ethAPI) getLogs(_ context.Context, p rpc.Params) (any, error) {
	var q FilterQuery
	if err := p.Decode(0, &q); err != nil {
		return nil, err
	}
	return api.FilterLogs(&q)
}
