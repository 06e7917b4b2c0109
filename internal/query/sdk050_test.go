package query_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
)

// Account numbers come from the address alone: the same at every call
// and height, different for different accounts, and exact in a
// JavaScript number (below 2^53).
func TestAccountNumbers(t *testing.T) {
	q := query.New(querytest.New(1).Backend())
	seen := map[uint64]types.Address{}
	for i := range 1000 {
		a := querytest.Addr(i)
		n := query.AccountNumber(a)
		if n >= 1<<53 {
			t.Fatalf("%s: %d is not below 2^53", a, n)
		}
		if b, dup := seen[n]; dup {
			t.Fatalf("%s and %s share account number %d", a, b, n)
		}
		seen[n] = a
	}
	acc := query.Bech32(query.AccountPrefix, querytest.Addr(1))
	r, qerr := call(t, q, "/cosmos.auth.v1beta1.Query/Account", &query.QueryAccountRequest{Address: acc})
	if qerr != nil {
		t.Fatal(qerr)
	}
	var base query.BaseAccount
	packed := r.(*query.QueryAccountResponse).Account
	if packed.URL() != "/cosmos.auth.v1beta1.BaseAccount" {
		t.Fatalf("account packed as %s", packed.URL())
	}
	if err := protobuf.Unmarshal(protobuf.Marshal(packed.Msg), &base); err != nil {
		t.Fatal(err)
	}
	if base.AccountNumber != query.AccountNumber(querytest.Addr(1)) || base.Sequence != 3 || base.Address != acc {
		t.Fatalf("%+v", base)
	}
	info, qerr := call(t, q, "/cosmos.auth.v1beta1.Query/AccountInfo", &query.QueryAccountInfoRequest{Address: acc})
	if qerr != nil || *info.(*query.QueryAccountInfoResponse).Info != base {
		t.Fatalf("AccountInfo %+v %v, Account %+v", info, qerr, base)
	}
}

// Mint's answers follow from the reward parameters: a chain per hour for
// each of the fixture's six active validators over the SDK's 8,766-hour
// year, and that share of the supply.
func TestMintFromRewards(t *testing.T) {
	f := querytest.New(7)
	q := query.New(f.Backend())
	r, qerr := call(t, q, "/cosmos.mint.v1beta1.Query/AnnualProvisions", &query.QueryAnnualProvisionsRequest{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	annual := new(big.Int).Mul(big.NewInt(8766*6), big.NewInt(1e18))
	if got, want := r.(*query.QueryAnnualProvisionsResponse).AnnualProvisions.JSONText(), annual.String()+".000000000000000000"; got != want {
		t.Errorf("annual provisions %s, want %s", got, want)
	}
	supply, _ := f.TotalSupply(nil)
	want := new(big.Int).Div(new(big.Int).Mul(annual, big.NewInt(1e18)), supply.ToBig())
	r, qerr = call(t, q, "/cosmos.mint.v1beta1.Query/Inflation", &query.QueryInflationRequest{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	if got := r.(*query.QueryInflationResponse).Inflation.ProtoText(); got != want.String() {
		t.Errorf("inflation %s, want %s (times 10^18)", got, want)
	}
	r, qerr = call(t, q, "/cosmos.mint.v1beta1.Query/Params", &query.QueryMintParamsRequest{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	p := r.(*query.QueryMintParamsResponse).Params
	if p.InflationMax.ProtoText() != want.String() || p.BlocksPerYear != 8766*3600/2 || p.MintDenom != query.Denom {
		t.Errorf("%+v", p)
	}
}

// ABCIQuery answers a query by its gRPC path with the response bytes the
// method itself gives, and reports failures in the answer.
func TestABCIQueryService(t *testing.T) {
	q := query.New(querytest.New(3).Backend())
	req := &query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: query.Denom}
	direct, qerr := call(t, q, "/cosmos.bank.v1beta1.Query/Balance", req)
	if qerr != nil {
		t.Fatal(qerr)
	}
	r, err := q.ABCIQuery(context.Background(), &query.ABCIQueryRequest{Path: "/cosmos.bank.v1beta1.Query/Balance", Data: protobuf.Marshal(req)})
	if err != nil || r.Code != 0 || string(r.Value) != string(protobuf.Marshal(direct)) || r.Height != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	for _, tc := range []struct {
		req  query.ABCIQueryRequest
		code uint32
	}{
		{query.ABCIQueryRequest{Path: "/cosmos.bank.v1beta1.Query/Nothing"}, query.SDKUnknownRequest},
		{query.ABCIQueryRequest{Path: "/cosmos.base.tendermint.v1beta1.Service/ABCIQuery"}, query.SDKUnknownRequest},
		{query.ABCIQueryRequest{Path: "/cosmos.bank.v1beta1.Query/Balance", Height: 9}, query.SDKInvalidRequest},
		{query.ABCIQueryRequest{Path: "/cosmos.gov.v1beta1.Query/Proposal", Data: protobuf.Marshal(&query.QueryProposalRequest{ProposalID: 42})}, query.SDKKeyNotFound},
	} {
		r, err := q.ABCIQuery(context.Background(), &tc.req)
		if err != nil || r.Code != tc.code || r.Codespace != "sdk" || r.Log == "" {
			t.Errorf("%s: %+v %v, want code %d", tc.req.Path, r, err, tc.code)
		}
	}
	if _, err := q.ABCIQuery(context.Background(), &query.ABCIQueryRequest{Path: "/cosmos.bank.v1beta1.Query/Params", Prove: true}); err != query.ErrProve {
		t.Errorf("prove: %v", err)
	}
}

// gov v1 answers from the same proposals as v1beta1: the same ids,
// statuses, tallies and deposits, and the v1beta1 content wrapped in a
// MsgExecLegacyContent with the governance contract as authority.
func TestGovV1MatchesV1beta1(t *testing.T) {
	f := querytest.New(3)
	q := query.New(f.Backend())
	old, qerr := call(t, q, "/cosmos.gov.v1beta1.Query/Proposals", &query.QueryProposalsRequest{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	v1, qerr := call(t, q, "/cosmos.gov.v1.Query/Proposals", &query.QueryProposalsRequestV1{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	ps, ps1 := old.(*query.QueryProposalsResponse).Proposals, v1.(*query.QueryProposalsResponseV1).Proposals
	if len(ps) == 0 || len(ps) != len(ps1) {
		t.Fatalf("%d v1beta1 proposals, %d v1", len(ps), len(ps1))
	}
	for i, p := range ps {
		p1 := ps1[i]
		if p1.ID != p.ProposalID || int32(p1.Status) != int32(p.Status) || p1.FinalTallyResult.YesCount.ProtoText() != p.FinalTallyResult.Yes.ProtoText() {
			t.Errorf("proposal %d: v1 %+v, v1beta1 %+v", p.ProposalID, p1, p)
		}
		msg, ok := p1.Messages[0].Msg.(query.MsgExecLegacyContent)
		if !ok || msg.Content.URL() != p.Content.URL() || msg.Authority != query.Bech32(query.AccountPrefix, querytest.Addr(0x805)) {
			t.Errorf("proposal %d: messages %+v", p.ProposalID, p1.Messages)
		}
	}
	d, qerr := call(t, q, "/cosmos.gov.v1.Query/Deposit", &query.QueryDepositRequestV1{ProposalID: 1, Depositor: query.Bech32(query.AccountPrefix, querytest.Addr(2))})
	if qerr != nil || d.(*query.QueryDepositResponseV1).Deposit.Amount[0].Amount.ProtoText() != querytest.Ether(10).Dec() {
		t.Fatalf("%+v %v", d, qerr)
	}
}
