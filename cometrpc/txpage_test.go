package cometrpc

import (
	"context"
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/query"
)

// GetBlockWithTxs pages a block's transactions both ways: reverse lists
// them last first, the offset counting from the last, and the total is
// the block's count either way.
func TestBlockWithTxsReverse(t *testing.T) {
	c := fixture()
	qb := c.Backend()
	qb.Receipts, qb.TxIndex, qb.History = c, c, c
	q := query.New(qb)
	ctx := context.Background()
	b3, _ := c.BlockByNumber(3)
	want := func(i int) string {
		raw, _ := b3.Transactions()[i].MarshalBinary()
		return string(raw)
	}
	got := func(r *query.GetBlockWithTxsResponse) []string {
		var out []string
		for _, tx := range r.Txs {
			m, _ := tx.Body.Messages[0].Msg.(query.MsgEthereumTx)
			out = append(out, string(m.Raw))
		}
		return out
	}
	for _, tc := range []struct {
		page *query.PageRequest
		want []string
	}{
		{nil, []string{want(0), want(1)}},
		{&query.PageRequest{Reverse: true}, []string{want(1), want(0)}},
		{&query.PageRequest{Reverse: true, Limit: 1}, []string{want(1)}},
		{&query.PageRequest{Reverse: true, Offset: 1}, []string{want(0)}},
		{&query.PageRequest{Offset: 1}, []string{want(1)}},
	} {
		r, err := q.GetBlockWithTxs(ctx, &query.GetBlockWithTxsRequest{Height: 3, Pagination: tc.page})
		if err != nil {
			t.Fatal(err)
		}
		if g := got(r); !slices.Equal(g, tc.want) || r.Pagination.Total != 2 {
			t.Errorf("%+v: %d txs (total %d), want %d in that order", tc.page, len(g), r.Pagination.Total, len(tc.want))
		}
	}
}
