package query_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// ValidatorSlashes lists a validator's slash log within the heights
// asked for: each slash's place in the log as its period and the
// fraction taken, paged by the SDK's key (height, period).
func TestValidatorSlashes(t *testing.T) {
	f := querytest.New(3)
	op := querytest.Addr(0x100)
	f.Slashes = map[types.Address][]backend.SlashEvent{op: {
		{Height: 10, Reason: "missed_blocks", PPM: 10_000, Amount: uint256.NewInt(5)},
		{Height: 20, Reason: "double_sign", PPM: 50_000, Amount: uint256.NewInt(9)},
		{Height: 30, Reason: "missed_blocks", PPM: 10_000, Amount: uint256.NewInt(4)},
	}}
	q := query.New(f.Backend())
	const path = "/cosmos.distribution.v1beta1.Query/ValidatorSlashes"
	val := query.Bech32(query.ValidatorPrefix, op)
	r, qerr := call(t, q, path, &query.QueryValidatorSlashesRequest{ValidatorAddress: val, StartingHeight: 15, EndingHeight: 100})
	if qerr != nil {
		t.Fatal(qerr)
	}
	got := r.(*query.QueryValidatorSlashesResponse)
	if len(got.Slashes) != 2 || got.Slashes[0].ValidatorPeriod != 2 || got.Slashes[1].ValidatorPeriod != 3 || got.Pagination.Total != 2 {
		t.Fatalf("%+v", got)
	}
	if j := string(protobuf.MarshalJSON(got)); !strings.Contains(j, `{"validator_period":"2","fraction":"0.050000000000000000"}`) {
		t.Errorf("JSON %s", j)
	}
	// A page of one names the next slash by its height and period.
	r, qerr = call(t, q, path, &query.QueryValidatorSlashesRequest{ValidatorAddress: val, EndingHeight: 100, Pagination: &query.PageRequest{Limit: 1}})
	if qerr != nil {
		t.Fatal(qerr)
	}
	want := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 20), 2)
	if p := r.(*query.QueryValidatorSlashesResponse).Pagination; string(p.NextKey) != string(want) {
		t.Fatalf("next key %x, want %x", p.NextKey, want)
	}
	r, qerr = call(t, q, path, &query.QueryValidatorSlashesRequest{ValidatorAddress: val, EndingHeight: 100, Pagination: &query.PageRequest{Key: want}})
	if qerr != nil || len(r.(*query.QueryValidatorSlashesResponse).Slashes) != 2 {
		t.Fatalf("from the key: %+v %v", r, qerr)
	}
	// Another validator has an empty log.
	r, qerr = call(t, q, path, &query.QueryValidatorSlashesRequest{ValidatorAddress: query.Bech32(query.ValidatorPrefix, querytest.Addr(0x101)), EndingHeight: 100})
	if qerr != nil || len(r.(*query.QueryValidatorSlashesResponse).Slashes) != 0 {
		t.Fatalf("%+v %v", r, qerr)
	}
	for _, tc := range []struct {
		req  query.QueryValidatorSlashesRequest
		want string
	}{
		{query.QueryValidatorSlashesRequest{}, "empty validator address"},
		{query.QueryValidatorSlashesRequest{ValidatorAddress: val, StartingHeight: 5, EndingHeight: 4}, "starting height greater than ending height"},
		{query.QueryValidatorSlashesRequest{ValidatorAddress: "chainvaloper1xyz", EndingHeight: 4}, "invalid validator address"},
	} {
		if _, qerr := call(t, q, path, &tc.req); qerr == nil || qerr.Code != query.InvalidArgument || !strings.Contains(qerr.Msg, tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, qerr, tc.want)
		}
	}
}

// ModuleVersions lists the modules whose queries chaind serves, by name,
// each with its consensus version; UpgradedConsensusState has none to
// give (no plan carries an upgraded client state).
func TestModuleVersions(t *testing.T) {
	q := query.New(querytest.New(1).Backend())
	r, qerr := call(t, q, "/cosmos.upgrade.v1beta1.Query/ModuleVersions", &query.QueryModuleVersionsRequest{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	var names []string
	for _, m := range r.(*query.QueryModuleVersionsResponse).ModuleVersions {
		if m.Version == 0 {
			t.Errorf("%s: version 0", m.Name)
		}
		names = append(names, m.Name)
	}
	if got := strings.Join(names, ","); got != "auth,bank,distribution,gov,mint,slashing,staking,upgrade" {
		t.Errorf("modules %s", got)
	}
	r, qerr = call(t, q, "/cosmos.upgrade.v1beta1.Query/ModuleVersions", &query.QueryModuleVersionsRequest{ModuleName: "bank"})
	if ms := r.(*query.QueryModuleVersionsResponse).ModuleVersions; qerr != nil || len(ms) != 1 || ms[0].Name != "bank" {
		t.Errorf("bank: %+v %v", r, qerr)
	}
	if _, qerr := call(t, q, "/cosmos.upgrade.v1beta1.Query/ModuleVersions", &query.QueryModuleVersionsRequest{ModuleName: "ibc"}); qerr == nil || qerr.Code != query.NotFound {
		t.Errorf("ibc: %v", qerr)
	}
	u, qerr := call(t, q, "/cosmos.upgrade.v1beta1.Query/UpgradedConsensusState", &query.QueryUpgradedConsensusStateRequest{LastHeight: 2})
	if qerr != nil || len(u.(*query.QueryUpgradedConsensusStateResponse).UpgradedConsensusState) != 0 {
		t.Errorf("%+v %v", u, qerr)
	}
}
