package query_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
)

// Blocks' times in the SDK's shapes carry the milliseconds the chain
// records (the header, the node service's status), and a block without
// a millisecond time shows its whole seconds.
func TestBlockTimeMilliseconds(t *testing.T) {
	f := querytest.New(3)
	f.TimeMs = map[uint64]uint64{2: uint64(querytest.Base.UnixMilli()) + 4_250}
	q := query.New(f.Backend())
	want := querytest.Base.Add(4250 * time.Millisecond)
	r, qerr := call(t, q, "/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight", &query.GetBlockByHeightRequest{Height: 2})
	if qerr != nil {
		t.Fatal(qerr)
	}
	b := r.(*query.GetBlockByHeightResponse)
	if !b.Block.Header.Time.Equal(want) || !b.SDKBlock.Header.Time.Equal(want) {
		t.Errorf("header time %v / %v, want %v", b.Block.Header.Time, b.SDKBlock.Header.Time, want)
	}
	if j := string(protobuf.MarshalJSON(b)); !strings.Contains(j, `"time":"2025-01-02T03:04:09.250Z"`) {
		t.Errorf("JSON lacks the millisecond time: %.300s", j)
	}
	st, qerr := call(t, q, "/cosmos.base.node.v1beta1.Service/Status", &query.StatusRequest{})
	if qerr != nil || !st.(*query.StatusResponse).Timestamp.Equal(want) {
		t.Errorf("status %+v %v", st, qerr)
	}
	r, qerr = call(t, q, "/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight", &query.GetBlockByHeightRequest{Height: 1})
	if qerr != nil || !r.(*query.GetBlockByHeightResponse).Block.Header.Time.Equal(querytest.Base.Add(2*time.Second)) {
		t.Errorf("block 1 without a millisecond time: %v", qerr)
	}
}

// genesisOnly is a chain that has made no block since genesis.
type genesisOnly struct{ *querytest.Fake }

func (g genesisOnly) Head() *types.Block {
	b, _ := g.Fake.BlockByNumber(0)
	return b
}

// An ABCI query on a chain holding only its genesis block is refused as
// the SDK refuses one before its first block (code 26), not answered at
// height 0, which cosmjs's QueryClient reads as no answer.
func TestABCIQueryAtGenesis(t *testing.T) {
	f := querytest.New(1)
	b := f.Backend()
	b.Blocks = genesisOnly{f}
	q := query.New(b)
	req := &query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: query.Denom}
	r, err := q.ABCIQuery(context.Background(), &query.ABCIQueryRequest{Path: "/cosmos.bank.v1beta1.Query/Balance", Data: protobuf.Marshal(req)})
	if err != nil || r.Code != query.SDKInvalidHeight || r.Codespace != "sdk" || !strings.Contains(r.Log, "please wait for first block") {
		t.Errorf("%+v %v", r, err)
	}
	// gRPC and REST still answer from the genesis state.
	if _, qerr := call(t, q, "/cosmos.bank.v1beta1.Query/Balance", req); qerr != nil {
		t.Errorf("Balance at genesis: %v", qerr)
	}
}
