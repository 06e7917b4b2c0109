package query

import (
	"context"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// HeightHeader names the block a query reads, as the Cosmos SDK names it:
// a REST request header and a gRPC metadata key of the request, and the
// same header (gRPC: response metadata) on every answer, carrying the
// height actually read. Absent or 0 means the head.
const HeightHeader = "x-cosmos-block-height"

// GatewayHeightHeader is how the SDK's REST gateway echoes the gRPC
// response metadata; REST answers carry it beside HeightHeader so clients
// written for either form find the height.
const GatewayHeightHeader = "Grpc-Metadata-X-Cosmos-Block-Height"

type heightKey struct{}

// AtHeight resolves the height a query asks for, raw being the value of
// its HeightHeader ("" when absent): the REST and gRPC interfaces both
// resolve through here, so both accept, refuse and echo heights alike.
// It returns ctx carrying the height, which every state read of the
// query then uses, and the height to echo. A height above the head, or
// one whose state this node no longer keeps, is InvalidArgument naming
// the range kept.
func (q *Querier) AtHeight(ctx context.Context, raw string) (context.Context, uint64, *Error) {
	if q.b.Blocks == nil {
		if raw = strings.TrimSpace(raw); raw != "" && raw != "0" {
			return ctx, 0, Errorf(Unavailable, "this node serves no block heights")
		}
		return ctx, 0, nil
	}
	head := q.b.Blocks.Head().Number()
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return context.WithValue(ctx, heightKey{}, head), head, nil
	}
	h, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || h < 0 {
		return ctx, 0, Errorf(InvalidArgument, "invalid %s %q: want a non-negative decimal block height (0: the latest)", HeightHeader, raw)
	}
	if h == 0 {
		return context.WithValue(ctx, heightKey{}, head), head, nil
	}
	oldest := q.OldestState()
	switch {
	case uint64(h) > head:
		return ctx, 0, Errorf(InvalidArgument, "cannot query with height in the future: height %d is above the latest block %d; this node answers heights %d to %d", h, head, oldest, head)
	case uint64(h) < oldest:
		return ctx, 0, Errorf(InvalidArgument, "height %d is pruned: this node keeps the state of heights %d to %d", h, oldest, head)
	}
	return context.WithValue(ctx, heightKey{}, uint64(h)), uint64(h), nil
}

// OldestState is the lowest block whose state the node keeps: 0 on an
// archive node, else the bottom of its retention window below the head.
func (q *Querier) OldestState() uint64 {
	if q.b.Retention == nil || q.b.Blocks == nil {
		return 0
	}
	keep := q.b.Retention.StateRetention()
	head := q.b.Blocks.Head().Number()
	if keep == 0 || head+1 <= keep {
		return 0
	}
	return head + 1 - keep
}

// heightOf is the block a query reads: the one AtHeight put in ctx, else
// the head at the time of the call.
func (q *Querier) heightOf(ctx context.Context) uint64 {
	if h, ok := ctx.Value(heightKey{}).(uint64); ok {
		return h
	}
	return q.b.Blocks.Head().Number()
}

// at returns the header of the block a query reads and its state.
func (q *Querier) at(ctx context.Context) (*types.Header, backend.State, error) {
	if q.b.Blocks == nil || q.b.State == nil {
		return nil, nil, backend.ErrUnavailable
	}
	var h *types.Header
	if n, ok := ctx.Value(heightKey{}).(uint64); ok {
		b, err := q.b.Blocks.BlockByNumber(n)
		if err != nil {
			return nil, nil, err
		}
		h = b.Header()
	} else {
		h = q.b.Blocks.Head().Header()
	}
	st, err := q.b.State.StateAt(h)
	if err != nil {
		return nil, nil, err
	}
	return h, st, nil
}
