package cometrpc

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
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

// TxDecode reads a block's TxRaw bytes into the Tx the tx service shows
// for it, and TxEncode gives the same bytes back; the amino methods are
// refused.
func TestTxCodec(t *testing.T) {
	c := fixture()
	qb := c.Backend()
	qb.Receipts, qb.TxIndex, qb.History = c, c, c
	q := query.New(qb)
	ctx := context.Background()
	b3, _ := c.BlockByNumber(3)
	raw := query.BlockTxs(b3)[1]
	dec, err := q.TxDecode(ctx, &query.TxDecodeRequest{TxBytes: raw})
	if err != nil {
		t.Fatal(err)
	}
	bw, err := q.GetBlockWithTxs(ctx, &query.GetBlockWithTxsRequest{Height: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := protobuf.Marshal(dec.Tx), protobuf.Marshal(&bw.Txs[1]); string(got) != string(want) {
		t.Fatalf("decoded %x, the tx service shows %x", got, want)
	}
	enc, err := q.TxEncode(ctx, &query.TxEncodeRequest{Tx: dec.Tx})
	if err != nil || string(enc.TxBytes) != string(raw) {
		t.Fatalf("encoded again: %x %v, want %x", enc.TxBytes, err, raw)
	}
	for _, tc := range []struct {
		name string
		call func() error
		code query.Code
	}{
		{"empty", func() error { _, err := q.TxDecode(ctx, &query.TxDecodeRequest{}); return err }, query.InvalidArgument},
		{"garbage", func() error {
			_, err := q.TxDecode(ctx, &query.TxDecodeRequest{TxBytes: []byte{0x0a, 0x05}})
			return err
		}, query.InvalidArgument},
		{"no tx", func() error { _, err := q.TxEncode(ctx, &query.TxEncodeRequest{}); return err }, query.InvalidArgument},
		{"amino", func() error { _, err := q.TxDecodeAmino(ctx, &query.TxDecodeAminoRequest{}); return err }, query.Unimplemented},
		{"amino encode", func() error { _, err := q.TxEncodeAmino(ctx, &query.TxEncodeAminoRequest{}); return err }, query.Unimplemented},
	} {
		var qe *query.Error
		if err := tc.call(); !errors.As(err, &qe) || qe.Code != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
}
