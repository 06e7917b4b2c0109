package grpcsrv

import (
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// Redelegations over gRPC, for each combination of addresses the Cosmos
// SDK distinguishes: the three name one redelegation (no pagination), a
// source validator alone lists everyone's redelegations out of it, and
// anything with a delegator lists that delegator's, unfiltered.
func TestRedelegations(t *testing.T) {
	addr := serve(t, 7)
	c := h2c()
	acc := func(i int) string { return query.Bech32(query.AccountPrefix, querytest.Addr(i)) }
	val := func(i int) string { return query.Bech32(query.ValidatorPrefix, querytest.Addr(0x100+i)) }
	const path = "/cosmos.staking.v1beta1.Query/Redelegations"
	// trio renders a response as delegator>src>dst:entry ids.
	trio := func(r query.QueryRedelegationsResponse) string {
		var parts []string
		for _, x := range r.RedelegationResponses {
			s := x.Redelegation.DelegatorAddress + ">" + x.Redelegation.ValidatorSrcAddress + ">" + x.Redelegation.ValidatorDstAddress + ":"
			for _, e := range x.Entries {
				s += e.RedelegationEntry.InitialBalance.ProtoText()[:1]
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	cases := []struct {
		name  string
		req   query.QueryRedelegationsRequest
		want  string
		paged bool
	}{
		{"delegator", query.QueryRedelegationsRequest{DelegatorAddr: acc(1)},
			acc(1) + ">" + val(0) + ">" + val(1) + ":21 " + acc(1) + ">" + val(2) + ">" + val(0) + ":3", true},
		{"one", query.QueryRedelegationsRequest{DelegatorAddr: acc(1), SrcValidatorAddr: val(0), DstValidatorAddr: val(1)},
			acc(1) + ">" + val(0) + ">" + val(1) + ":21", false},
		{"source alone", query.QueryRedelegationsRequest{SrcValidatorAddr: val(0)},
			acc(1) + ">" + val(0) + ">" + val(1) + ":21 " + acc(0x1000) + ">" + val(0) + ">" + val(2) + ":4", true},
		{"source of none", query.QueryRedelegationsRequest{SrcValidatorAddr: val(5)}, "", true},
		{"delegator and source: not filtered", query.QueryRedelegationsRequest{DelegatorAddr: acc(1), SrcValidatorAddr: val(2)},
			acc(1) + ">" + val(0) + ">" + val(1) + ":21 " + acc(1) + ">" + val(2) + ">" + val(0) + ":3", true},
	}
	for _, tc := range cases {
		var resp query.QueryRedelegationsResponse
		res := call(t, c, addr, path, &tc.req, &resp)
		if res.status != 0 {
			t.Errorf("%s: status %d %q", tc.name, res.status, res.message)
			continue
		}
		if got := trio(resp); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if (resp.Pagination != nil) != tc.paged {
			t.Errorf("%s: pagination %+v", tc.name, resp.Pagination)
		}
	}
	// The entry's fields as the wire carries them.
	var one query.QueryRedelegationsResponse
	call(t, c, addr, path, &query.QueryRedelegationsRequest{DelegatorAddr: acc(1), SrcValidatorAddr: val(2), DstValidatorAddr: val(0)}, &one)
	if len(one.RedelegationResponses) != 1 || len(one.RedelegationResponses[0].Entries) != 1 {
		t.Fatalf("%+v", one)
	}
	e := one.RedelegationResponses[0].Entries[0]
	if r := e.RedelegationEntry; r.CreationHeight != 2 || r.UnbondingID != 3 || r.InitialBalance.ProtoText() != "3000000000000000000" ||
		r.SharesDst.ProtoText() != "3000000000000000000"+strings.Repeat("0", 18) ||
		r.CompletionTime.Unix() != querytest.Base.Unix()+21*24*3600+1 || e.Balance.ProtoText() != "2700000000000000000" {
		t.Errorf("entry %+v", e)
	}

	for _, tc := range []struct {
		name string
		req  query.QueryRedelegationsRequest
		code query.Code
		msg  string
	}{
		{"missing", query.QueryRedelegationsRequest{DelegatorAddr: acc(1), SrcValidatorAddr: val(0), DstValidatorAddr: val(2)},
			query.NotFound, "redelegation not found for delegator address " + acc(1) + " from validator address " + val(0)},
		{"nothing", query.QueryRedelegationsRequest{}, query.InvalidArgument, "delegator address cannot be empty"},
		{"destination alone", query.QueryRedelegationsRequest{DstValidatorAddr: val(1)}, query.InvalidArgument, "delegator address cannot be empty"},
		{"source and destination", query.QueryRedelegationsRequest{SrcValidatorAddr: val(0), DstValidatorAddr: val(1)},
			query.InvalidArgument, "delegator address cannot be empty"},
		{"bad delegator", query.QueryRedelegationsRequest{DelegatorAddr: val(0)}, query.InvalidArgument, "invalid delegator address"},
		{"bad destination", query.QueryRedelegationsRequest{DelegatorAddr: acc(1), DstValidatorAddr: "0x12"}, query.InvalidArgument,
			"invalid destination validator address"},
	} {
		var resp query.QueryRedelegationsResponse
		res := call(t, c, addr, path, &tc.req, &resp)
		if res.status != int(tc.code) || !strings.Contains(res.message, tc.msg) {
			t.Errorf("%s: status %d %q, want %d %q", tc.name, res.status, res.message, tc.code, tc.msg)
		}
	}
}
