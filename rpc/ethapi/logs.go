package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
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

// filter is the query's address and topic selection, matched by the
// rule every interface shares.
func (q *FilterQuery) filter() backend.LogFilter {
	return backend.LogFilter{Addresses: q.Addresses, Topics: q.Topics}
}

// matcher prepares the query for scanning blocks (bloom bit positions
// hashed once per query rather than once per block).
func (q *FilterQuery) matcher() *backend.LogMatcher { return backend.NewLogMatcher(q.filter()) }

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
		return api.blockLogs(blk, q.matcher(), nil)
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
	keys := q.matcher()
	bloomOf := api.b.BloomScanner()
	for n := from; n <= to; n++ {
		// Most blocks of a selective query fail the bloom test: test the
		// stored bloom before reading the block.
		bloom, ok, err := bloomOf(n)
		if err != nil {
			return nil, err
		}
		if ok && !keys.MayMatch(&bloom) {
			continue
		}
		blk, err := api.b.BlockByNumber(n)
		if err != nil {
			return nil, err
		}
		if logs, err = api.blockLogs(blk, keys, logs); err != nil {
			return nil, err
		}
		if len(logs) > api.opts.LogLimit {
			return nil, &rpc.Error{Code: rpc.CodeLimitExceeded, Message: fmt.Sprintf("query returned more than %d results", api.opts.LogLimit)}
		}
	}
	return logs, nil
}

func (api *ethAPI) blockLogs(blk *types.Block, m *backend.LogMatcher, out []*types.Log) ([]*types.Log, error) {
	if out == nil {
		out = []*types.Log{}
	}
	return backend.BlockLogs(api.b, blk, m, out)
}

func (api *ethAPI) getLogs(_ context.Context, p rpc.Params) (any, error) {
	var q FilterQuery
	if err := p.Decode(0, &q); err != nil {
		return nil, err
	}
	return api.FilterLogs(&q)
}
