package query

import (
	"context"
	"sort"
)

// HistoricalInfo is a block's header and the bonded validators after it,
// as staking's HistoricalInfo keeps them for IBC. The SDK keeps the last
// historical_entries of them; chaind derives them from the blocks and the
// staking state it keeps, so it answers every height whose state it has
// (the staking params still say 0 entries: none is stored apart).

type HistoricalInfo struct {
	Header TMHeader    `pb:"1,header"`
	Valset []Validator `pb:"2,valset"`
}

func (HistoricalInfo) ProtoName() string { return "cosmos.staking.v1beta1.HistoricalInfo" }

type QueryHistoricalInfoRequest struct {
	Height int64 `pb:"1,height"`
}

func (QueryHistoricalInfoRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryHistoricalInfoRequest"
}

type QueryHistoricalInfoResponse struct {
	Hist *HistoricalInfo `pb:"1,hist"`
}

func (QueryHistoricalInfoResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryHistoricalInfoResponse"
}

// HistoricalInfo returns block height's header and bonded set, largest
// stake first (ties by operator), as the SDK orders it. A height above
// the head is InvalidArgument; one whose state is pruned NotFound.
func (q *Querier) HistoricalInfo(ctx context.Context, r *QueryHistoricalInfoRequest) (*QueryHistoricalInfoResponse, error) {
	if q.b.Blocks == nil {
		return nil, Errorf(Unavailable, "this node serves no blocks")
	}
	if r.Height < 0 {
		return nil, Errorf(InvalidArgument, "height cannot be negative")
	}
	h := uint64(r.Height)
	// Above the head as below the oldest state: the SDK's keeper finds
	// no entry and answers NotFound (the golden
	// HistoricalInfo_above_head, simd v0.50).
	if h > q.b.Blocks.Head().Number() || h < q.OldestState() {
		return nil, Errorf(NotFound, "historical info for height %d not found", h)
	}
	n, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	n.at = &h
	vs, err := n.StakingValidators()
	if err != nil {
		return nil, err
	}
	b, err := q.b.Blocks.BlockByNumber(h)
	if err != nil {
		return nil, err
	}
	_, tm, _, err := q.block(b)
	if err != nil {
		return nil, err
	}
	hist := &HistoricalInfo{Header: tm.Header, Valset: []Validator{}}
	var bonded []vValidator
	for _, v := range vs {
		if v.Status == statusBonded {
			bonded = append(bonded, v)
		}
	}
	sort.SliceStable(bonded, func(i, j int) bool { return bonded[i].Tokens.Gt(bonded[j].Tokens) })
	for _, v := range bonded {
		hist.Valset = append(hist.Valset, validatorOf(v))
	}
	return &QueryHistoricalInfoResponse{Hist: hist}, nil
}
