package eth

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/graphql"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// on adapts a resolver over a parent of type T.
func on[T any](f func(ctx context.Context, p T, args map[string]any) (any, error)) graphql.Resolver {
	return func(ctx context.Context, parent any, args map[string]any) (any, error) {
		return f(ctx, parent.(T), args)
	}
}

// get adapts a resolver that reads a value of the parent and cannot fail.
func get[T any](f func(p T) any) graphql.Resolver {
	return func(_ context.Context, parent any, _ map[string]any) (any, error) { return f(parent.(T)), nil }
}

// optU64 is a nullable Long from an optional header field.
func optU64(p *uint64) any {
	if p == nil {
		return nil
	}
	return *p
}

// optHash is a nullable Bytes32.
func optHash(p *types.Hash) any {
	if p == nil {
		return nil
	}
	return *p
}

func (s *Service) resolvers() map[string]map[string]graphql.Resolver {
	return map[string]map[string]graphql.Resolver{
		"Query":       s.queryResolvers(),
		"Mutation":    s.mutationResolvers(),
		"Block":       s.blockResolvers(),
		"Transaction": s.txResolvers(),
		"Account": {
			"address": get(func(a *accountObj) any { return a.addr }),
			"balance": on(func(ctx context.Context, a *accountObj, _ map[string]any) (any, error) {
				st, err := a.state(ctx)
				if err != nil {
					return nil, err
				}
				return stateRead(st, st.Balance(a.addr))
			}),
			"transactionCount": on(func(ctx context.Context, a *accountObj, _ map[string]any) (any, error) {
				st, err := a.state(ctx)
				if err != nil {
					return nil, err
				}
				return stateRead(st, st.Nonce(a.addr))
			}),
			"code": on(func(ctx context.Context, a *accountObj, _ map[string]any) (any, error) {
				st, err := a.state(ctx)
				if err != nil {
					return nil, err
				}
				return stateRead(st, append([]byte{}, st.Code(a.addr)...))
			}),
			"storage": on(func(ctx context.Context, a *accountObj, args map[string]any) (any, error) {
				st, err := a.state(ctx)
				if err != nil {
					return nil, err
				}
				return stateRead(st, st.Storage(a.addr, args["slot"].(types.Hash)))
			}),
		},
		"Log": {
			"index": get(func(l *logObj) any { return uint64(l.log.Index) }),
			"account": on(func(_ context.Context, l *logObj, args map[string]any) (any, error) {
				return l.s.account(l.log.Address, args["block"], l.tx.block.hdr)
			}),
			"topics":      get(func(l *logObj) any { return l.log.Topics }),
			"data":        get(func(l *logObj) any { return l.log.Data }),
			"transaction": get(func(l *logObj) any { return l.tx }),
		},
		"AccessTuple": {
			"address":     get(func(t types.AccessTuple) any { return t.Address }),
			"storageKeys": get(func(t types.AccessTuple) any { return t.StorageKeys }),
		},
		"Withdrawal": {
			"index":     get(func(w types.Withdrawal) any { return w.Index }),
			"validator": get(func(w types.Withdrawal) any { return w.Validator }),
			"address":   get(func(w types.Withdrawal) any { return w.Address }),
			"amount":    get(func(w types.Withdrawal) any { return w.Amount }),
		},
		"CallResult": {
			"data":    get(func(r *backend.CallOutcome) any { return r.Data }),
			"gasUsed": get(func(r *backend.CallOutcome) any { return r.GasUsed }),
			"status":  get(func(r *backend.CallOutcome) any { return r.Status }),
		},
		"SyncState": {
			"startingBlock": get(func(p backend.SyncProgress) any { return p.StartingBlock }),
			"currentBlock":  get(func(p backend.SyncProgress) any { return p.CurrentBlock }),
			"highestBlock":  get(func(p backend.SyncProgress) any { return p.HighestBlock }),
		},
		"Pending": {
			"transactionCount": get(func(p *pendingObj) any { return uint64(len(p.transactions())) }),
			"transactions":     get(func(p *pendingObj) any { return p.transactions() }),
			"account": on(func(_ context.Context, p *pendingObj, args map[string]any) (any, error) {
				return &accountObj{s: p.s, addr: args["address"].(types.Address), hdr: p.s.b.Head().HeaderRef()}, nil
			}),
			"call": on(func(ctx context.Context, p *pendingObj, args map[string]any) (any, error) {
				return p.s.call(ctx, p.s.b.Head(), args["data"])
			}),
			"estimateGas": on(func(ctx context.Context, p *pendingObj, args map[string]any) (any, error) {
				return p.s.estimateGas(ctx, p.s.b.Head(), args["data"])
			}),
		},
	}
}

func (s *Service) queryResolvers() map[string]graphql.Resolver {
	return map[string]graphql.Resolver{
		"block": func(ctx context.Context, _ any, args map[string]any) (any, error) {
			num, hasNum := args["number"].(uint64)
			hash, hasHash := args["hash"].(types.Hash)
			switch {
			case hasNum && hasHash:
				return nil, errors.New("invalid params: give either number or hash, not both")
			case hasHash:
				blk, err := s.b.BlockByHash(hash)
				if errors.Is(err, backend.ErrNotFound) {
					return nil, fmt.Errorf("block hash %s was not found", hash)
				}
				if err != nil {
					return nil, err
				}
				return s.block(ctx, blk), nil
			case hasNum:
				blk, err := s.blockByNumber(num)
				if err != nil {
					return nil, err
				}
				return s.block(ctx, blk), nil
			}
			return s.block(ctx, s.b.Head()), nil
		},
		"blocks": func(ctx context.Context, _ any, args map[string]any) (any, error) {
			head := s.b.Head().Number()
			from, _ := args["from"].(uint64)
			to, ok := args["to"].(uint64)
			if ok && to >= from && to-from >= s.opts.MaxBlocks {
				return nil, fmt.Errorf("block range %d to %d holds more than %d blocks", from, to, s.opts.MaxBlocks)
			}
			if !ok || to > head {
				to = head
			}
			if _, ok := args["from"]; !ok {
				from = to
			}
			if from > to {
				if from > head {
					return []*blockObj{}, nil
				}
				return nil, fmt.Errorf("invalid block range: from %d is after to %d", from, to)
			}
			if to-from >= s.opts.MaxBlocks {
				return nil, fmt.Errorf("block range %d to %d holds more than %d blocks", from, to, s.opts.MaxBlocks)
			}
			out := make([]*blockObj, 0, to-from+1)
			for n := from; n <= to; n++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				blk, err := s.blockByNumber(n)
				if err != nil {
					return nil, err
				}
				out = append(out, s.block(ctx, blk))
			}
			return out, nil
		},
		"pending": func(context.Context, any, map[string]any) (any, error) { return &pendingObj{s}, nil },
		"transaction": func(ctx context.Context, _ any, args map[string]any) (any, error) {
			return s.transaction(ctx, args["hash"].(types.Hash))
		},
		"logs": func(ctx context.Context, _ any, args map[string]any) (any, error) {
			return s.logs(ctx, args["filter"].(map[string]any))
		},
		"gasPrice": func(context.Context, any, map[string]any) (any, error) {
			price := backend.SuggestTip(s.b)
			if bf := s.b.Head().BaseFee(); bf != nil {
				price.Add(price, bf)
			}
			return price, nil
		},
		"maxPriorityFeePerGas": func(context.Context, any, map[string]any) (any, error) {
			return backend.SuggestTip(s.b), nil
		},
		"syncing": func(context.Context, any, map[string]any) (any, error) {
			p, syncing := s.b.Syncing()
			if !syncing {
				return nil, nil
			}
			return p, nil
		},
		"chainID": func(context.Context, any, map[string]any) (any, error) {
			return uint256.NewInt(s.b.ChainID()), nil
		},
	}
}

func (s *Service) mutationResolvers() map[string]graphql.Resolver {
	return map[string]graphql.Resolver{
		"sendRawTransaction": func(ctx context.Context, _ any, args map[string]any) (any, error) {
			tx := new(types.Transaction)
			if err := tx.UnmarshalBinary(args["data"].([]byte)); err != nil {
				return nil, fmt.Errorf("invalid params: transaction: %v", err)
			}
			if err := s.b.SendTransaction(ctx, tx); err != nil {
				return nil, err
			}
			return tx.Hash(), nil
		},
	}
}

// transaction finds a transaction in the chain or the pool.
func (s *Service) transaction(ctx context.Context, h types.Hash) (any, error) {
	if bh, i, ok := s.b.TxLookup(h); ok {
		blk, err := s.b.BlockByHash(bh)
		if err != nil {
			return nil, err
		}
		if i >= len(blk.Transactions()) {
			return nil, fmt.Errorf("transaction index %d past block %s", i, bh)
		}
		return s.block(ctx, blk).tx(i), nil
	}
	if tx, from, ok := s.b.PoolTransaction(h); ok {
		o := &txObj{s: s, tx: tx}
		o.fromOnce.Do(func() { o.from = from })
		return o, nil
	}
	return nil, nil
}

// filterOf reads the addresses and topics of a filter input.
func filterOf(in map[string]any) backend.LogFilter {
	var f backend.LogFilter
	if as, ok := in["addresses"].([]any); ok {
		for _, a := range as {
			f.Addresses = append(f.Addresses, a.(types.Address))
		}
	}
	if ts, ok := in["topics"].([]any); ok {
		for _, pos := range ts {
			var set []types.Hash
			for _, t := range pos.([]any) {
				set = append(set, t.(types.Hash))
			}
			f.Topics = append(f.Topics, set)
		}
	}
	return f
}

func (s *Service) logObjs(ctx context.Context, logs []*types.Log) ([]*logObj, error) {
	out := make([]*logObj, 0, len(logs))
	for _, l := range logs {
		b, err := s.blockByHash(ctx, l.BlockHash)
		if err != nil {
			return nil, err
		}
		out = append(out, &logObj{s: s, log: l, tx: b.tx(int(l.TxIndex))})
	}
	return out, nil
}

func (s *Service) logs(ctx context.Context, in map[string]any) (any, error) {
	head := s.b.Head().Number()
	from, to := head, head
	if v, ok := in["fromBlock"].(uint64); ok {
		from = v
	}
	if v, ok := in["toBlock"].(uint64); ok {
		to = v
	}
	if from > to {
		return nil, fmt.Errorf("invalid block range: fromBlock %d is after toBlock %d", from, to)
	}
	if to > head {
		to = head
	}
	if from > head {
		return []*logObj{}, nil
	}
	if to-from+1 > s.opts.LogRange {
		return nil, fmt.Errorf("query exceeds max block range %d", s.opts.LogRange)
	}
	m := backend.NewLogMatcher(filterOf(in))
	bloomOf := s.b.BloomScanner()
	var logs []*types.Log
	for n := from; n <= to; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if bloom, ok, err := bloomOf(n); err != nil {
			return nil, err
		} else if ok && !m.MayMatch(&bloom) {
			continue
		}
		blk, err := s.b.BlockByNumber(n)
		if err != nil {
			return nil, err
		}
		if logs, err = backend.BlockLogs(s.b, blk, m, logs); err != nil {
			return nil, err
		}
		if len(logs) > s.opts.LogLimit {
			return nil, fmt.Errorf("query returned more than %d logs", s.opts.LogLimit)
		}
	}
	return s.logObjs(ctx, logs)
}

// callArgs converts a CallData input.
func callArgs(in any) backend.CallArgs {
	m, _ := in.(map[string]any)
	var a backend.CallArgs
	if v, ok := m["from"].(types.Address); ok {
		a.From = &v
	}
	if v, ok := m["to"].(types.Address); ok {
		a.To = &v
	}
	if v, ok := m["gas"].(uint64); ok {
		a.Gas = &v
	}
	a.GasPrice, _ = m["gasPrice"].(*uint256.Int)
	a.MaxFeePerGas, _ = m["maxFeePerGas"].(*uint256.Int)
	a.MaxPriorityFeePerGas, _ = m["maxPriorityFeePerGas"].(*uint256.Int)
	a.Value, _ = m["value"].(*uint256.Int)
	if v, ok := m["data"].([]byte); ok {
		a.Data = &v
	}
	return a
}

func (s *Service) call(ctx context.Context, blk *types.Block, data any) (any, error) {
	return s.b.CallOutcome(ctx, &backend.CallRequest{Block: blk, Args: callArgs(data)})
}

func (s *Service) estimateGas(ctx context.Context, blk *types.Block, data any) (any, error) {
	return s.b.EstimateGas(ctx, &backend.CallRequest{Block: blk, Args: callArgs(data)})
}

// stateRead returns v unless reading it failed (a forked chain's upstream
// not answering), in which case v is void.
func stateRead[T any](st backend.State, v T) (any, error) {
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	return v, nil
}
