package lcd

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A query's x-cosmos-block-height header picks the state read, the answer
// names the height read, and heights the node cannot answer are refused
// with 400 and the range it keeps.
func TestQueryAtHeight(t *testing.T) {
	f := querytest.New(3) // blocks 0..2
	f.AddBlock()
	f.AddBlock() // head 4
	f.Past = map[uint64]map[types.Address]*uint256.Int{
		3: {querytest.Addr(1): uint256.NewInt(7)},
		4: {querytest.Addr(1): uint256.NewInt(9)},
	}
	params := f.Params
	params.Desired = 17
	f.ParamsAt = map[uint64]backend.StakingParams{3: params}
	f.Keep = 2 // states of blocks 3 and 4
	h := New(query.New(f.Backend()))
	bal := "/cosmos/bank/v1beta1/balances/" + acc1 + "/by_denom?denom=achain"
	cases := []struct {
		name, path, height string
		status             int
		echo               string
		want               string // in the body
	}{
		{"head", bal, "", 200, "4", `"amount":"9"`},
		{"zero is the head", bal, "0", 200, "4", `"amount":"9"`},
		{"past", bal, "3", 200, "3", `"amount":"7"`},
		{"staking at a past height", "/cosmos/staking/v1beta1/params", "3", 200, "3", `"max_validators":17`},
		{"staking at the head", "/cosmos/staking/v1beta1/params", "", 200, "4", `"max_validators":100`},
		{"pruned", bal, "1", 400, "", "height 1 is pruned: this node keeps the state of heights 3 to 4"},
		{"future", bal, "99999999", 400, "", "height 99999999 is above the latest block 4; this node answers heights 3 to 4"},
		{"negative", bal, "-1", 400, "", "want a non-negative decimal block height"},
		{"not a number", bal, "latest", 400, "", `invalid x-cosmos-block-height \"latest\"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", c.path, nil)
			if c.height != "" {
				req.Header.Set("X-Cosmos-Block-Height", c.height)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("HTTP %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			if got := rec.Header().Get(query.HeightHeader); got != c.echo {
				t.Errorf("echoed height %q, want %q", got, c.echo)
			}
			if got := rec.Header().Get(query.GatewayHeightHeader); got != c.echo {
				t.Errorf("gateway height header %q, want %q", got, c.echo)
			}
			if !strings.Contains(rec.Body.String(), c.want) {
				t.Errorf("body %s lacks %s", rec.Body, c.want)
			}
			if c.status != 200 {
				var e struct{ Code int }
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code != int(query.InvalidArgument) {
					t.Errorf("error body %s: want code 3", rec.Body)
				}
			}
		})
	}
	// The answer at a past height is cached apart from the head's.
	req := httptest.NewRequest("GET", bal, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), `"amount":"9"`) {
		t.Errorf("head answer after a past one: %s", rec.Body)
	}
}
