package query_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/bech32"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// holdersFake is querytest's chain with ten more addresses, every other
// one funded and the rest holding only a nonce, and three the index lists
// whose accounts went. Its accounts, in address order: Addr(1), Addr(2),
// Addr(0x10..0x19); its holders of the coin: Addr(1), Addr(2) and the
// even ones of Addr(0x10..0x19).
func holdersFake() (*querytest.Fake, []types.Address, []types.Address) {
	f := querytest.New(1)
	accts := []types.Address{querytest.Addr(1), querytest.Addr(2)}
	owners := slices.Clone(accts)
	for i := range 10 {
		a := querytest.Addr(0x10 + i)
		accts = append(accts, a)
		if i%2 == 0 {
			f.Balances[a] = querytest.Ether(uint64(i + 1))
			owners = append(owners, a)
		} else {
			f.Nonces[a] = 1
		}
	}
	f.Indexed = []types.Address{querytest.Addr(0x30), querytest.Addr(0x31), querytest.Addr(0x32)}
	return f, accts, owners
}

// listAccounts and listOwners call the queries and return the addresses
// listed and the page's answer.
func listAccounts(t *testing.T, ctx context.Context, q *query.Querier, p *query.PageRequest) ([]types.Address, *query.PageResponse, *query.Error) {
	t.Helper()
	m, _ := q.Lookup("/cosmos.auth.v1beta1.Query/Accounts")
	r, qerr := q.Call(ctx, m, &query.QueryAccountsRequest{Pagination: p})
	if qerr != nil {
		return nil, nil, qerr
	}
	resp := r.(*query.QueryAccountsResponse)
	var out []types.Address
	for _, a := range resp.Accounts {
		if a.URL() != "/cosmos.auth.v1beta1.BaseAccount" {
			t.Fatalf("account packed as %s", a.URL())
		}
		out = append(out, addrOf(t, a.Msg.(query.BaseAccount).Address))
	}
	return out, resp.Pagination, nil
}

func listOwners(t *testing.T, ctx context.Context, q *query.Querier, denom string, p *query.PageRequest) ([]types.Address, *query.PageResponse, *query.Error) {
	t.Helper()
	m, _ := q.Lookup("/cosmos.bank.v1beta1.Query/DenomOwners")
	r, qerr := q.Call(ctx, m, &query.QueryDenomOwnersRequest{Denom: denom, Pagination: p})
	if qerr != nil {
		return nil, nil, qerr
	}
	resp := r.(*query.QueryDenomOwnersResponse)
	var out []types.Address
	for _, o := range resp.DenomOwners {
		if o.Balance.Denom != denom || o.Balance.Amount.ProtoText() == "0" {
			t.Fatalf("owner %s holds %s %s", o.Address, o.Balance.Amount.ProtoText(), o.Balance.Denom)
		}
		out = append(out, addrOf(t, o.Address))
	}
	return out, resp.Pagination, nil
}

func addrOf(t *testing.T, bech string) types.Address {
	t.Helper()
	b, err := bech32.DecodePrefix(query.AccountPrefix, bech)
	if err != nil || len(b) != 20 {
		t.Fatalf("%s: %v", bech, err)
	}
	return types.Address(b)
}

// The pages of Accounts and DenomOwners follow the SDK's
// CollectionPaginate over a store of exactly the accounts (holders) of
// the state read: key and offset paging, next_key the next entry's
// address bytes, count_total only without a key (and always with the
// default limit), reverse walking down from the key, an offset past the
// end answered with an empty page and no total.
func TestIndexPages(t *testing.T) {
	f, accts, owners := holdersFake()
	q := query.New(f.Backend())
	rev := func(l []types.Address) []types.Address { r := slices.Clone(l); slices.Reverse(r); return r }
	key := func(a types.Address) []byte { return a[:] }
	common := accts[0][:19] // the fixture's addresses share their first 19 bytes
	type want struct {
		list  []types.Address
		next  []byte
		total uint64
	}
	for _, list := range []struct {
		name string
		all  []types.Address
		get  func(p *query.PageRequest) ([]types.Address, *query.PageResponse, *query.Error)
	}{
		{"accounts", accts, func(p *query.PageRequest) ([]types.Address, *query.PageResponse, *query.Error) {
			return listAccounts(t, context.Background(), q, p)
		}},
		{"owners", owners, func(p *query.PageRequest) ([]types.Address, *query.PageResponse, *query.Error) {
			return listOwners(t, context.Background(), q, query.Denom, p)
		}},
	} {
		all, n := list.all, uint64(len(list.all))
		for _, tc := range []struct {
			name string
			p    *query.PageRequest
			want want
		}{
			{"default", nil, want{all, nil, n}},
			{"limit", &query.PageRequest{Limit: 3}, want{all[:3], key(all[3]), 0}},
			{"limit counted", &query.PageRequest{Limit: 3, CountTotal: true}, want{all[:3], key(all[3]), n}},
			{"key", &query.PageRequest{Key: key(all[3]), Limit: 3}, want{all[3:6], key(all[6]), 0}},
			{"key not counted", &query.PageRequest{Key: key(all[3]), Limit: 3, CountTotal: true}, want{all[3:6], key(all[6]), 0}},
			{"key to the end", &query.PageRequest{Key: key(all[n-2]), Limit: 2}, want{all[n-2:], nil, 0}},
			{"key between entries", &query.PageRequest{Key: append(key(all[2]), 0), Limit: 2}, want{all[3:5], key(all[5]), 0}},
			{"key a prefix", &query.PageRequest{Key: common, Limit: 2}, want{all[:2], key(all[2]), 0}},
			{"offset", &query.PageRequest{Offset: 4, Limit: 2, CountTotal: true}, want{all[4:6], key(all[6]), n}},
			{"offset to the end", &query.PageRequest{Offset: n - 1, Limit: 5}, want{all[n-1:], nil, 0}},
			{"offset at the end", &query.PageRequest{Offset: n, CountTotal: true, Limit: 5}, want{nil, nil, n}},
			{"offset past the end", &query.PageRequest{Offset: n + 1, CountTotal: true, Limit: 5}, want{nil, nil, 0}},
			{"reverse", &query.PageRequest{Reverse: true, Limit: 3}, want{rev(all)[:3], key(all[n-4]), 0}},
			{"reverse default", &query.PageRequest{Reverse: true}, want{rev(all), nil, n}},
			{"reverse key", &query.PageRequest{Reverse: true, Key: key(all[5]), Limit: 2}, want{[]types.Address{all[5], all[4]}, key(all[3]), 0}},
			{"reverse key between", &query.PageRequest{Reverse: true, Key: append(key(all[5]), 0), Limit: 1}, want{[]types.Address{all[5]}, key(all[4]), 0}},
			{"reverse key a prefix", &query.PageRequest{Reverse: true, Key: common, Limit: 1}, want{rev(all)[:1], key(all[n-2]), 0}},
			{"reverse offset", &query.PageRequest{Reverse: true, Offset: 1, Limit: 2, CountTotal: true}, want{rev(all)[1:3], key(all[n-4]), n}},
		} {
			t.Run(list.name+"/"+tc.name, func(t *testing.T) {
				got, pr, qerr := list.get(tc.p)
				if qerr != nil {
					t.Fatal(qerr)
				}
				if !slices.Equal(got, tc.want.list) || !bytes.Equal(pr.NextKey, tc.want.next) || pr.Total != tc.want.total {
					t.Errorf("got %x next %x total %d;\nwant %x next %x total %d", got, pr.NextKey, pr.Total,
						tc.want.list, tc.want.next, tc.want.total)
				}
			})
		}
		// Walking by next_key, both ways, visits every entry once.
		for _, reverse := range []bool{false, true} {
			var seen []types.Address
			var k []byte
			for page := 0; ; page++ {
				got, pr, qerr := list.get(&query.PageRequest{Key: k, Limit: 5, Reverse: reverse})
				if qerr != nil || page > len(all) {
					t.Fatalf("%s page %d: %v", list.name, page, qerr)
				}
				seen = append(seen, got...)
				if k = pr.NextKey; k == nil {
					break
				}
			}
			if want := all; !slices.Equal(seen, map[bool][]types.Address{false: want, true: rev(want)}[reverse]) {
				t.Errorf("%s walked (reverse %v): %x", list.name, reverse, seen)
			}
		}
		if _, _, qerr := list.get(&query.PageRequest{Key: key(all[1]), Offset: 1}); qerr == nil || qerr.Code != query.InvalidArgument {
			t.Errorf("%s: key and offset: %v", list.name, qerr)
		}
	}
}

// The lists read the state of the height asked: an earlier block's
// holders are its own.
func TestIndexAtHeight(t *testing.T) {
	f, _, _ := holdersFake()
	// At block 1 only Addr(0x11) held coins; the nonces are today's.
	f.Past = map[uint64]map[types.Address]*uint256.Int{1: {querytest.Addr(0x11): querytest.Ether(7)}}
	q := query.New(f.Backend())
	ctx, h, qerr := q.AtHeight(context.Background(), "1")
	if qerr != nil || h != 1 {
		t.Fatalf("height %d: %v", h, qerr)
	}
	got, pr, qerr := listOwners(t, ctx, q, query.Denom, nil)
	if qerr != nil || !slices.Equal(got, []types.Address{querytest.Addr(0x11)}) || pr.Total != 1 {
		t.Fatalf("owners at block 1: %x %+v %v", got, pr, qerr)
	}
	got, _, qerr = listAccounts(t, ctx, q, nil)
	want := []types.Address{querytest.Addr(1), querytest.Addr(0x11), querytest.Addr(0x13), querytest.Addr(0x15), querytest.Addr(0x17), querytest.Addr(0x19)}
	if qerr != nil || !slices.Equal(got, want) {
		t.Fatalf("accounts at block 1: %x %v", got, qerr)
	}
}

// A denomination the chain lacks has no holders; one the SDK refuses is
// refused; a node without the index says so rather than answering an
// incomplete list.
func TestIndexDenomsAndAbsence(t *testing.T) {
	f, _, _ := holdersFake()
	q := query.New(f.Backend())
	got, pr, qerr := listOwners(t, context.Background(), q, "uatom", &query.PageRequest{CountTotal: true})
	if qerr != nil || len(got) != 0 || pr.NextKey != nil || pr.Total != 0 {
		t.Fatalf("uatom: %x %+v %v", got, pr, qerr)
	}
	for _, d := range []string{"", "a", "1abc", "abc def"} {
		if _, _, qerr := listOwners(t, context.Background(), q, d, nil); qerr == nil || qerr.Code != query.InvalidArgument || qerr.Msg != "invalid denom: "+d {
			t.Errorf("denom %q: %v", d, qerr)
		}
	}
	f.NoIndex = fmt.Errorf("%w: this data directory keeps no account index", backend.ErrUnavailable)
	if _, _, qerr := listAccounts(t, context.Background(), q, nil); qerr == nil || qerr.Code != query.Unavailable {
		t.Errorf("accounts without the index: %v", qerr)
	}
	if _, _, qerr := listOwners(t, context.Background(), q, query.Denom, nil); qerr == nil || qerr.Code != query.Unavailable {
		t.Errorf("owners without the index: %v", qerr)
	}
	// DenomOwnersByQuery is DenomOwners.
	f.NoIndex = nil
	r, qerr := call(t, q, "/cosmos.bank.v1beta1.Query/DenomOwnersByQuery", &query.QueryDenomOwnersByQueryRequest{Denom: query.Denom})
	d, qerr2 := call(t, q, "/cosmos.bank.v1beta1.Query/DenomOwners", &query.QueryDenomOwnersRequest{Denom: query.Denom})
	if qerr != nil || qerr2 != nil || !bytes.Equal(protobuf.Marshal(r), protobuf.Marshal(d)) {
		t.Errorf("by query %v, by path %v", qerr, qerr2)
	}
}

// A page stops at maxIndexPage entries, with its next_key, whatever limit
// is asked; paging goes on from there, up and down, across many reads of
// the index.
func TestIndexPageBound(t *testing.T) {
	f := querytest.New(1)
	for i := range 1100 {
		f.Nonces[querytest.Addr(0x100+i)] = 1
	}
	q := query.New(f.Backend())
	var all []types.Address
	for k := []byte(nil); ; {
		got, pr, qerr := listAccounts(t, context.Background(), q, &query.PageRequest{Key: k, Limit: 5000, CountTotal: true})
		if qerr != nil {
			t.Fatal(qerr)
		}
		if wantTotal := map[bool]uint64{true: 1102}[k == nil]; len(got) > 1000 || pr.Total != wantTotal {
			t.Fatalf("a page of %d, total %d", len(got), pr.Total)
		}
		all = append(all, got...)
		if k = pr.NextKey; k == nil {
			break
		}
	}
	if len(all) != 1102 || !slices.IsSortedFunc(all, func(a, b types.Address) int { return bytes.Compare(a[:], b[:]) }) {
		t.Fatalf("%d accounts listed", len(all))
	}
	got, pr, qerr := listAccounts(t, context.Background(), q, &query.PageRequest{Reverse: true, Offset: 300, Limit: 300, CountTotal: true})
	want := slices.Clone(all)
	slices.Reverse(want)
	if qerr != nil || !slices.Equal(got, want[300:600]) || pr.Total != 1102 || !bytes.Equal(pr.NextKey, want[600][:]) {
		t.Fatalf("reverse page: %d listed, total %d, %v", len(got), pr.Total, qerr)
	}
}

// A request walks at most maxIndexWalk (10,000) entries it does not
// return: a larger offset is refused, an explicit count_total past that
// is refused, and the total a request without a limit implies is left
// out, while its page and next_key stay. Every state read costs, and any
// client may ask.
func TestIndexWalkBound(t *testing.T) {
	f := querytest.New(1)
	for i := range 10_200 {
		f.Nonces[querytest.Addr(0x100+i)] = 1
	}
	q := query.New(f.Backend())
	ctx := context.Background()
	if _, _, qerr := listAccounts(t, ctx, q, &query.PageRequest{Offset: 10_001, Limit: 1}); qerr == nil || qerr.Code != query.InvalidArgument {
		t.Fatalf("offset 10,001: %v, want InvalidArgument", qerr)
	}
	if got, _, qerr := listAccounts(t, ctx, q, &query.PageRequest{Offset: 10_000, Limit: 1}); qerr != nil || len(got) != 1 {
		t.Fatalf("offset 10,000: %d listed, %v", len(got), qerr)
	}
	if _, _, qerr := listAccounts(t, ctx, q, &query.PageRequest{Limit: 100, CountTotal: true}); qerr == nil || qerr.Code != query.ResourceExhaust {
		t.Fatalf("count_total over 10,202 accounts: %v, want ResourceExhausted", qerr)
	}
	got, pr, qerr := listAccounts(t, ctx, q, nil)
	if qerr != nil || len(got) != query.DefaultLimit || pr.Total != 0 || pr.NextKey == nil {
		t.Fatalf("no pagination: %d listed, total %d, next_key %x, %v", len(got), pr.Total, pr.NextKey, qerr)
	}
	// Within the bound the total is counted, as the SDK does.
	if _, pr, qerr := listAccounts(t, ctx, q, &query.PageRequest{Limit: 1000, CountTotal: true}); qerr != nil || pr.Total != 10_202 {
		t.Fatalf("count_total within the bound: total %d, %v", pr.Total, qerr)
	}
}

// abci_query serves the lists by their gRPC paths, with the bytes the
// methods answer.
func TestIndexOverABCIQuery(t *testing.T) {
	f, _, _ := holdersFake()
	q := query.New(f.Backend())
	for _, c := range []struct {
		path string
		req  protobuf.Message
	}{
		{"/cosmos.auth.v1beta1.Query/Accounts", &query.QueryAccountsRequest{Pagination: &query.PageRequest{Limit: 3, Reverse: true}}},
		{"/cosmos.bank.v1beta1.Query/DenomOwners", &query.QueryDenomOwnersRequest{Denom: query.Denom, Pagination: &query.PageRequest{CountTotal: true}}},
		{"/cosmos.bank.v1beta1.Query/DenomOwnersByQuery", &query.QueryDenomOwnersByQueryRequest{Denom: query.Denom}},
	} {
		direct, qerr := call(t, q, c.path, c.req)
		if qerr != nil {
			t.Fatal(qerr)
		}
		r, err := q.ABCIQuery(context.Background(), &query.ABCIQueryRequest{Path: c.path, Data: protobuf.Marshal(c.req)})
		if err != nil || r.Code != 0 || !bytes.Equal(r.Value, protobuf.Marshal(direct)) {
			t.Errorf("%s: %+v %v", c.path, r, err)
		}
	}
}
