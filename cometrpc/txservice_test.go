package cometrpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
)

// The Cosmos tx service answers from the transactions tx and tx_search
// show (the fixture chain lives here): GetTx by CometBFT or Ethereum
// hash, GetTxsEvent by event query, GetBlockWithTxs a block's decoded
// transactions; each answer's SDK JSON is pinned in a golden file.
func TestTxService(t *testing.T) {
	c := fixture()
	qb := c.Backend()
	qb.Receipts, qb.TxIndex, qb.History = c, c, c
	q := query.New(qb)
	ctx := context.Background()
	b3, _ := c.BlockByNumber(3)
	tx0 := b3.Transactions()[0]
	raw0, err := query.CosmosTx(tx0, sender(1))
	if err != nil {
		t.Fatal(err)
	}
	comet0 := query.CometHash(raw0)

	got, err := q.GetTx(ctx, &query.GetTxRequest{Hash: fmt.Sprintf("%X", comet0[:])})
	if err != nil {
		t.Fatal(err)
	}
	r := got.TxResponse
	if r.TxHash != fmt.Sprintf("%X", comet0[:]) || r.Height != 3 || r.GasUsed != 21_000 || r.Code != 0 || len(r.Events) == 0 {
		t.Fatalf("%+v", r)
	}
	var txRaw query.TxRaw
	if err := protobuf.Unmarshal(raw0, &txRaw); err != nil {
		t.Fatal(err)
	}
	if string(protobuf.Marshal(got.Tx.Body)) != string(txRaw.BodyBytes) || string(protobuf.Marshal(got.Tx.AuthInfo)) != string(txRaw.AuthInfoBytes) {
		t.Error("the decoded transaction does not encode to the TxRaw of block data")
	}
	if u := got.Tx.Body.Messages[0].URL(); u != "/cosmos.evm.vm.v1.MsgEthereumTx" {
		t.Errorf("message %s", u)
	}
	byEth, err := q.GetTx(ctx, &query.GetTxRequest{Hash: tx0.Hash().Hex()})
	if err != nil || string(protobuf.MarshalJSON(byEth)) != string(protobuf.MarshalJSON(got)) {
		t.Errorf("by Ethereum hash: %v", err)
	}
	golden(t, "cosmos_tx_get_tx", protobuf.MarshalJSON(got))

	ev, err := q.GetTxsEvent(ctx, &query.GetTxsEventRequest{Query: "tx.height>=3 AND tx.height<=4", OrderBy: 2, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Total != 3 || len(ev.TxResponses) != 2 || len(ev.Txs) != 2 || ev.TxResponses[0].Height != 4 {
		t.Fatalf("total %d, %d answers, first at %d", ev.Total, len(ev.TxResponses), ev.TxResponses[0].Height)
	}
	golden(t, "cosmos_tx_get_txs_event", protobuf.MarshalJSON(ev))
	page2, err := q.GetTxsEvent(ctx, &query.GetTxsEventRequest{Query: "tx.height>=3 AND tx.height<=4", Page: 2, Limit: 2})
	if err != nil || len(page2.TxResponses) != 1 || page2.TxResponses[0].Height != 4 {
		t.Fatalf("page 2: %+v %v", page2, err)
	}

	bw, err := q.GetBlockWithTxs(ctx, &query.GetBlockWithTxsRequest{Height: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(bw.Txs) != 2 || bw.Pagination.Total != 2 || bw.Block.Header.Height != 3 {
		t.Fatalf("%d txs, total %d", len(bw.Txs), bw.Pagination.Total)
	}
	golden(t, "cosmos_tx_block_with_txs", protobuf.MarshalJSON(bw))

	for _, tc := range []struct {
		name string
		call func() error
		code query.Code
		msg  string
	}{
		{"bad hash", func() error { _, err := q.GetTx(ctx, &query.GetTxRequest{Hash: "zz"}); return err }, query.InvalidArgument, "32 bytes"},
		{"unknown hash", func() error {
			_, err := q.GetTx(ctx, &query.GetTxRequest{Hash: strings.Repeat("ab", 32)})
			return err
		}, query.NotFound, "not found"},
		{"no query", func() error { _, err := q.GetTxsEvent(ctx, &query.GetTxsEventRequest{}); return err }, query.InvalidArgument, "query cannot be empty"},
		{"unindexed key", func() error {
			_, err := q.GetTxsEvent(ctx, &query.GetTxsEventRequest{Query: "transfer.amount EXISTS"})
			return err
		}, query.InvalidArgument, "not indexed"},
		{"future block", func() error {
			_, err := q.GetBlockWithTxs(ctx, &query.GetBlockWithTxsRequest{Height: 99})
			return err
		}, query.InvalidArgument, "current height"},
		{"simulate", func() error { _, err := q.Simulate(ctx, &query.SimulateRequest{}); return err }, query.Unimplemented, "eth_sendRawTransaction"},
		{"broadcast", func() error { _, err := q.BroadcastTx(ctx, &query.BroadcastTxRequest{}); return err }, query.Unimplemented, "eth_sendRawTransaction"},
	} {
		err := tc.call()
		var qe *query.Error
		if !errors.As(err, &qe) || qe.Code != tc.code || !strings.Contains(qe.Msg, tc.msg) {
			t.Errorf("%s: %v, want code %d with %q", tc.name, err, tc.code, tc.msg)
		}
	}
}
