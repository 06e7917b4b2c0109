package grpcsrv

import (
	"context"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The x-cosmos-block-height metadata picks the state a call reads, the
// answer's metadata names the height read, and heights the node cannot
// answer are InvalidArgument naming the range it keeps.
func TestCallAtHeight(t *testing.T) {
	f := querytest.New(3)
	f.AddBlock()
	f.AddBlock() // head 4
	f.Past = map[uint64]map[types.Address]*uint256.Int{
		3: {querytest.Addr(1): uint256.NewInt(7)},
		4: {querytest.Addr(1): uint256.NewInt(9)},
	}
	f.Keep = 2
	fr := front.New(front.Config{})
	srv, err := fr.Listen(listener("127.0.0.1:0", New(query.New(f.Backend())), front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	c := h2c()
	body := appendFrame(nil, protobuf.Marshal(&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: "achain"}))
	cases := []struct {
		height string
		status int
		echo   string
		want   string // balance, or words of the message
	}{
		{"", 0, "4", "9"},
		{"3", 0, "3", "7"},
		{"0", 0, "4", "9"},
		{"2", int(query.InvalidArgument), "", "height 2 is pruned: this node keeps the state of heights 3 to 4"},
		{"5", int(query.InvalidArgument), "", "height 5 is above the latest block 4"},
		{"x", int(query.InvalidArgument), "", "invalid x-cosmos-block-height"},
	}
	for _, tc := range cases {
		hdr := map[string]string{}
		if tc.height != "" {
			hdr[query.HeightHeader] = tc.height
		}
		res := rawCall(t, c, srv.Addr(), "/cosmos.bank.v1beta1.Query/Balance", body, hdr)
		if res.status != tc.status {
			t.Fatalf("height %q: status %d %q, want %d", tc.height, res.status, res.message, tc.status)
		}
		if got := res.header.Get(query.HeightHeader); got != tc.echo {
			t.Errorf("height %q: metadata height %q, want %q", tc.height, got, tc.echo)
		}
		if tc.status != 0 {
			if !strings.Contains(res.message, tc.want) {
				t.Errorf("height %q: message %q lacks %q", tc.height, res.message, tc.want)
			}
			continue
		}
		var bal query.QueryBalanceResponse
		if err := protobuf.Unmarshal(res.msgs[0], &bal); err != nil {
			t.Fatal(err)
		}
		if got := bal.Balance.Amount.ProtoText(); got != tc.want {
			t.Errorf("height %q: balance %s, want %s", tc.height, got, tc.want)
		}
	}
}
