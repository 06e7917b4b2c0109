package query_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

func call(t *testing.T, q *query.Querier, path string, req protobuf.Message) (protobuf.Message, *query.Error) {
	t.Helper()
	m, ok := q.Lookup(path)
	if !ok {
		t.Fatalf("no method %s", path)
	}
	return q.Call(context.Background(), m, req)
}

func TestPagination(t *testing.T) {
	q := query.New(querytest.New(12).Backend())
	const path = "/cosmos.staking.v1beta1.Query/Validators"
	ops := func(r protobuf.Message) []string {
		var out []string
		for _, v := range r.(*query.QueryValidatorsResponse).Validators {
			out = append(out, v.OperatorAddress)
		}
		return out
	}
	all, qerr := call(t, q, path, &query.QueryValidatorsRequest{})
	if qerr != nil {
		t.Fatal(qerr)
	}
	full := ops(all)
	if len(full) != 12 || all.(*query.QueryValidatorsResponse).Pagination.Total != 12 || all.(*query.QueryValidatorsResponse).Pagination.NextKey != nil {
		t.Fatalf("default page: %d validators, %+v", len(full), all.(*query.QueryValidatorsResponse).Pagination)
	}
	// Walk by key, five at a time, forward and backward.
	for _, reverse := range []bool{false, true} {
		var got []string
		var key []byte
		for pages := 0; ; pages++ {
			r, qerr := call(t, q, path, &query.QueryValidatorsRequest{Pagination: &query.PageRequest{Key: key, Limit: 5, Reverse: reverse}})
			if qerr != nil {
				t.Fatal(qerr)
			}
			resp := r.(*query.QueryValidatorsResponse)
			if resp.Pagination.Total != 0 {
				t.Errorf("a total with key paging and no count_total: %d", resp.Pagination.Total)
			}
			got = append(got, ops(r)...)
			key = resp.Pagination.NextKey
			if key == nil {
				if pages != 2 {
					t.Errorf("%d pages", pages+1)
				}
				break
			}
		}
		want := append([]string{}, full...)
		if reverse {
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("reverse=%v: walked %v", reverse, got)
		}
	}
	// Offset with count_total.
	r, _ := call(t, q, path, &query.QueryValidatorsRequest{Pagination: &query.PageRequest{Offset: 10, Limit: 5, CountTotal: true}})
	if resp := r.(*query.QueryValidatorsResponse); len(resp.Validators) != 2 || resp.Pagination.Total != 12 || resp.Pagination.NextKey != nil {
		t.Errorf("offset 10: %d, %+v", len(resp.Validators), resp.Pagination)
	}
	r, _ = call(t, q, path, &query.QueryValidatorsRequest{Pagination: &query.PageRequest{Offset: 50, Limit: 5}})
	if resp := r.(*query.QueryValidatorsResponse); len(resp.Validators) != 0 || resp.Validators == nil {
		t.Errorf("offset past the end: %+v", resp)
	}
	if _, qerr := call(t, q, path, &query.QueryValidatorsRequest{Pagination: &query.PageRequest{Key: []byte{1}, Offset: 1}}); qerr == nil || qerr.Code != query.InvalidArgument {
		t.Errorf("key and offset: %v", qerr)
	}
	// A status filter.
	r, _ = call(t, q, path, &query.QueryValidatorsRequest{Status: "BOND_STATUS_UNBONDED"})
	if n := len(r.(*query.QueryValidatorsResponse).Validators); n != 2 {
		t.Errorf("unbonded: %d", n)
	}
	if _, qerr := call(t, q, path, &query.QueryValidatorsRequest{Status: "BONDED"}); qerr == nil || qerr.Code != query.InvalidArgument {
		t.Errorf("bad status: %v", qerr)
	}
}

func TestAddresses(t *testing.T) {
	q := query.New(querytest.New(1).Backend())
	const path = "/cosmos.bank.v1beta1.Query/AllBalances"
	acc := query.Bech32(query.AccountPrefix, querytest.Addr(1))
	hexAddr := querytest.Addr(1).Hex()
	for _, a := range []string{acc, hexAddr, strings.ToUpper(acc)} {
		r, qerr := call(t, q, path, &query.QueryAllBalancesRequest{Address: a})
		if qerr != nil {
			t.Fatalf("%s: %v", a, qerr)
		}
		if bs := r.(*query.QueryAllBalancesResponse).Balances; len(bs) != 1 || bs[0].Amount.ProtoText() != "10000000000000000000000" {
			t.Errorf("%s: %+v", a, bs)
		}
	}
	bad := acc[:len(acc)-1] + "q" // a changed checksum character
	if acc[len(acc)-1] == 'q' {
		bad = acc[:len(acc)-1] + "p"
	}
	for _, a := range []string{"", "0x1234", bad, query.Bech32(query.ValidatorPrefix, querytest.Addr(1))} {
		if _, qerr := call(t, q, path, &query.QueryAllBalancesRequest{Address: a}); qerr == nil || qerr.Code != query.InvalidArgument {
			t.Errorf("%q: %v", a, qerr)
		}
	}
}

func TestErrorsAndEmpty(t *testing.T) {
	f := querytest.New(0)
	q := query.New(f.Backend())
	val := query.Bech32(query.ValidatorPrefix, querytest.Addr(0x100))
	if _, qerr := call(t, q, "/cosmos.staking.v1beta1.Query/Validator", &query.QueryValidatorRequest{ValidatorAddr: val}); qerr == nil || qerr.Code != query.NotFound {
		t.Errorf("unknown validator: %v", qerr)
	}
	if _, qerr := call(t, q, "/cosmos.gov.v1beta1.Query/Proposal", &query.QueryProposalRequest{ProposalID: 9}); qerr == nil || qerr.Code != query.NotFound {
		t.Errorf("unknown proposal: %v", qerr)
	}
	if _, qerr := call(t, q, "/cosmos.gov.v1beta1.Query/Proposal", &query.QueryProposalRequest{}); qerr == nil || qerr.Code != query.InvalidArgument {
		t.Errorf("proposal 0: %v", qerr)
	}
	r, qerr := call(t, q, "/cosmos.distribution.v1beta1.Query/DelegationTotalRewards",
		&query.QueryDelegationTotalRewardsRequest{DelegatorAddress: query.Bech32(query.AccountPrefix, querytest.Addr(5))})
	if qerr != nil || !bytes.Equal(protobuf.MarshalJSON(r), []byte(`{"rewards":[],"total":[]}`)) {
		t.Errorf("no rewards: %s %v", protobuf.MarshalJSON(r), qerr)
	}
	// A backend without staking answers Unavailable.
	b := f.Backend()
	b.Staking = nil
	if _, qerr := call(t, query.New(b), "/cosmos.staking.v1beta1.Query/Pool", &query.QueryPoolRequest{}); qerr == nil || qerr.Code != query.Unavailable {
		t.Errorf("no staking: %v", qerr)
	}
}

func TestVoteOption(t *testing.T) {
	q := query.New(querytest.New(1).Backend())
	r, qerr := call(t, q, "/cosmos.gov.v1beta1.Query/Votes", &query.QueryVotesRequest{ProposalID: 1})
	if qerr != nil {
		t.Fatal(qerr)
	}
	votes := r.(*query.QueryVotesResponse).Votes
	if len(votes) != 2 || votes[0].Option != 1 || votes[1].Option != 0 || len(votes[1].Options) != 2 {
		t.Fatalf("%+v", votes)
	}
}

func TestRegistryCoversServices(t *testing.T) {
	q := query.New(querytest.New(1).Backend())
	reg := q.Registry()
	for _, s := range q.Services() {
		for _, m := range s.Methods {
			file, ok := reg.FileContaining(s.Name + "." + m.Name)
			if !ok {
				t.Errorf("%s.%s: no file", s.Name, m.Name)
				continue
			}
			if _, ok := reg.FileWithDeps(file, map[string]bool{}); !ok {
				t.Errorf("%s: no descriptor", file)
			}
		}
	}
	if _, ok := reg.FileContaining("cosmos.gov.v1beta1.TextProposal"); !ok {
		t.Error("the Any payloads must be resolvable")
	}
}

func TestDec(t *testing.T) {
	var d query.Dec
	for in, want := range map[string]string{"0.1": "0.100000000000000000", "1000": "1000.000000000000000000", "-0.5": "-0.500000000000000000"} {
		if err := d.ParseJSONText(in); err != nil || d.JSONText() != want {
			t.Errorf("%s: %s %v", in, d.JSONText(), err)
		}
	}
	if err := d.ParseJSONText("0.1234567890123456789"); err == nil {
		t.Error("19 fractional digits accepted")
	}
	var qe *query.Error
	if !errors.As(query.AsError(errors.New("x")), &qe) || qe.Code != query.Internal {
		t.Error("AsError")
	}
}

// Answers are kept while the head stays and rendered anew once it moves;
// errors and volatile methods are never kept.
func TestCache(t *testing.T) {
	f := querytest.New(1)
	q := query.New(f.Backend())
	m, _ := q.Lookup("/cosmos.bank.v1beta1.Query/TotalSupply")
	renders := 0
	render := func() ([]byte, *query.Error) { renders++; return []byte{byte(renders)}, nil }
	a, _ := q.Cached(m, "k", render)
	b, _ := q.Cached(m, "k", render)
	if renders != 1 || a[0] != b[0] {
		t.Fatalf("rendered %d times", renders)
	}
	f.AddBlock()
	if c, _ := q.Cached(m, "k", render); renders != 2 || c[0] != 2 {
		t.Fatalf("after a new head: rendered %d times", renders)
	}
	fail := func() ([]byte, *query.Error) { renders++; return nil, query.Errorf(query.NotFound, "x") }
	q.Cached(m, "e", fail)
	q.Cached(m, "e", fail)
	if renders != 4 {
		t.Fatalf("an error was cached")
	}
	sync, _ := q.Lookup("/cosmos.base.tendermint.v1beta1.Service/GetSyncing")
	q.Cached(sync, "s", render)
	q.Cached(sync, "s", render)
	if renders != 6 {
		t.Fatalf("a volatile answer was cached")
	}
}

// The allocation-free decimal writers agree with the plain ones.
func TestDecAppend(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "100000000000000000", "1000000000000000000", "-123456789012345678901234567890", "999999999999999999"} {
		var d query.Dec
		if err := d.ParseProtoText(s); err != nil {
			t.Fatal(err)
		}
		if got := string(d.AppendJSONText([]byte("x"))); got != "x"+d.JSONText() {
			t.Errorf("%s: %s, want x%s", s, got, d.JSONText())
		}
		if got := string(d.AppendProtoText(nil)); got != s {
			t.Errorf("%s: proto %s", s, got)
		}
	}
}

// MerkleRoot is CometBFT's merkle.HashFromByteSlices: sha256 of nothing
// for no items, RFC 6962's leaf and node prefixes, split at the largest
// power of two below the count.
func TestMerkleRoot(t *testing.T) {
	sum := func(parts ...[]byte) []byte {
		h := sha256.Sum256(bytes.Join(parts, nil))
		return h[:]
	}
	leaf := func(s string) []byte { return sum([]byte{0}, []byte(s)) }
	node := func(l, r []byte) []byte { return sum([]byte{1}, l, r) }
	a, b, c := []byte("a"), []byte("b"), []byte("c")
	cases := []struct {
		items [][]byte
		want  []byte
	}{
		{nil, sum()},
		{[][]byte{a}, leaf("a")},
		{[][]byte{a, b}, node(leaf("a"), leaf("b"))},
		{[][]byte{a, b, c}, node(node(leaf("a"), leaf("b")), leaf("c"))},
	}
	for i, tc := range cases {
		if got := query.MerkleRoot(tc.items); !bytes.Equal(got, tc.want) {
			t.Errorf("case %d: %x, want %x", i, got, tc.want)
		}
	}
	// sha256 of nothing, the empty evidence and data hash of every
	// CometBFT block without them.
	if got := fmt.Sprintf("%X", query.MerkleRoot(nil)); got != "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855" {
		t.Errorf("empty root %s", got)
	}
}
