package query_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The auth and bank queries the SDK v0.50 added: each answer from the
// fixture's prefixes, accounts and parameters, each refusal with the
// SDK's code; and abci_query gives the same bytes as the call.
func TestSDK050AuthBankQueries(t *testing.T) {
	f := querytest.New(3)
	f.Balances[querytest.Addr(0x805)] = uint256.NewInt(7) // deposits held
	q := query.New(f.Backend())
	a := querytest.Addr(1)
	acc := query.Bech32(query.AccountPrefix, a)
	modAcc := func(n int, name, perms string) string {
		m := querytest.Addr(n)
		return fmt.Sprintf(`{"@type":"/cosmos.auth.v1beta1.ModuleAccount","base_account":{"address":%q,"pub_key":null,"account_number":"%d","sequence":"0"},"name":%q,"permissions":[%s]}`,
			query.Bech32(query.AccountPrefix, m), query.AccountNumber(m), name, perms)
	}
	gov := modAcc(0x805, "gov", `"burner"`)
	meta := string(protobuf.MarshalJSON(mustCall(t, q, "/cosmos.bank.v1beta1.Query/DenomMetadata", &query.QueryDenomMetadataRequest{Denom: query.Denom})))
	for _, tc := range []struct {
		name, path string
		req        protobuf.Message
		code       query.Code
		want       string // the answer's JSON when code is OK
	}{
		{"bytes to string", "/cosmos.auth.v1beta1.Query/AddressBytesToString", &query.AddressBytesToStringRequest{AddressBytes: a[:]}, query.OK, `{"address_string":"` + acc + `"}`},
		{"bytes empty", "/cosmos.auth.v1beta1.Query/AddressBytesToString", &query.AddressBytesToStringRequest{}, query.InvalidArgument, ""},
		{"bytes 19", "/cosmos.auth.v1beta1.Query/AddressBytesToString", &query.AddressBytesToStringRequest{AddressBytes: a[:19]}, query.InvalidArgument, ""},
		{"string to bytes", "/cosmos.auth.v1beta1.Query/AddressStringToBytes", &query.AddressStringToBytesRequest{AddressString: acc}, query.OK, string(protobuf.MarshalJSON(&query.AddressStringToBytesResponse{AddressBytes: a[:]}))},
		{"string 0x", "/cosmos.auth.v1beta1.Query/AddressStringToBytes", &query.AddressStringToBytesRequest{AddressString: a.Hex()}, query.OK, string(protobuf.MarshalJSON(&query.AddressStringToBytesResponse{AddressBytes: a[:]}))},
		{"string empty", "/cosmos.auth.v1beta1.Query/AddressStringToBytes", &query.AddressStringToBytesRequest{AddressString: " "}, query.InvalidArgument, ""},
		{"string other prefix", "/cosmos.auth.v1beta1.Query/AddressStringToBytes", &query.AddressStringToBytesRequest{AddressString: query.Bech32(query.ValidatorPrefix, a)}, query.InvalidArgument, ""},
		{"string bad checksum", "/cosmos.auth.v1beta1.Query/AddressStringToBytes", &query.AddressStringToBytesRequest{AddressString: acc[:len(acc)-1] + "q"}, query.InvalidArgument, ""},
		{"by id deprecated", "/cosmos.auth.v1beta1.Query/AccountAddressByID", &query.QueryAccountAddressByIDRequest{ID: 1}, query.InvalidArgument, ""},
		{"by id", "/cosmos.auth.v1beta1.Query/AccountAddressByID", &query.QueryAccountAddressByIDRequest{AccountID: query.AccountNumber(a)}, query.NotFound, ""},
		{"module accounts", "/cosmos.auth.v1beta1.Query/ModuleAccounts", &query.QueryModuleAccountsRequest{}, query.OK,
			`{"accounts":[` + modAcc(0x800, "bonded_tokens_pool", `"burner","staking"`) + "," + modAcc(0x801, "distribution", "") + "," + gov + `]}`},
		{"module gov", "/cosmos.auth.v1beta1.Query/ModuleAccountByName", &query.QueryModuleAccountByNameRequest{Name: "gov"}, query.OK, `{"account":` + gov + `}`},
		{"module by Account", "/cosmos.auth.v1beta1.Query/Account", &query.QueryAccountRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(0x805))}, query.OK, `{"account":` + gov + `}`},
		{"empty module by Account", "/cosmos.auth.v1beta1.Query/Account", &query.QueryAccountRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(0x801))}, query.OK,
			`{"account":` + modAcc(0x801, "distribution", "") + `}`},
		{"module none", "/cosmos.auth.v1beta1.Query/ModuleAccountByName", &query.QueryModuleAccountByNameRequest{Name: "mint"}, query.NotFound, ""},
		{"module empty", "/cosmos.auth.v1beta1.Query/ModuleAccountByName", &query.QueryModuleAccountByNameRequest{}, query.InvalidArgument, ""},
		{"metadata by query", "/cosmos.bank.v1beta1.Query/DenomMetadataByQueryString", &query.QueryDenomMetadataByQueryStringRequest{Denom: query.Denom}, query.OK, meta},
		{"metadata by display", "/cosmos.bank.v1beta1.Query/DenomMetadataByQueryString", &query.QueryDenomMetadataByQueryStringRequest{Denom: query.DisplayDenom}, query.OK, meta},
		{"metadata unknown", "/cosmos.bank.v1beta1.Query/DenomMetadataByQueryString", &query.QueryDenomMetadataByQueryStringRequest{Denom: "stake"}, query.NotFound, ""},
		{"metadata empty", "/cosmos.bank.v1beta1.Query/DenomMetadataByQueryString", &query.QueryDenomMetadataByQueryStringRequest{}, query.InvalidArgument, ""},
		{"send enabled all", "/cosmos.bank.v1beta1.Query/SendEnabled", &query.QuerySendEnabledRequest{}, query.OK, `{"send_enabled":[],"pagination":{"next_key":null,"total":"0"}}`},
		{"send enabled asked", "/cosmos.bank.v1beta1.Query/SendEnabled", &query.QuerySendEnabledRequest{Denoms: []string{"stake", query.Denom}}, query.OK, `{"send_enabled":[{"denom":"achain","enabled":true}],"pagination":null}`},
		{"send enabled empty denom", "/cosmos.bank.v1beta1.Query/SendEnabled", &query.QuerySendEnabledRequest{Denoms: []string{""}}, query.InvalidArgument, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, qerr := call(t, q, tc.path, tc.req)
			if tc.code != query.OK {
				if qerr == nil || qerr.Code != tc.code {
					t.Fatalf("answered %v, %v; want code %d", r, qerr, tc.code)
				}
				return
			}
			if qerr != nil {
				t.Fatal(qerr)
			}
			if got := string(protobuf.MarshalJSON(r)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			abci, err := q.ABCIQuery(context.Background(), &query.ABCIQueryRequest{Path: tc.path, Data: protobuf.Marshal(tc.req)})
			if err != nil || abci.Code != 0 || string(abci.Value) != string(protobuf.Marshal(r)) {
				t.Errorf("abci_query: %+v %v", abci, err)
			}
		})
	}
	// Accounts lists a module's account as a ModuleAccount, as the SDK does.
	all := string(protobuf.MarshalJSON(mustCall(t, q, "/cosmos.auth.v1beta1.Query/Accounts", &query.QueryAccountsRequest{})))
	if !strings.Contains(all, gov) || !strings.Contains(all, `"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"`+acc+`"`) {
		t.Errorf("Accounts: %s", all)
	}
	// Bytes and string convert back and forth.
	for _, n := range []int{0, 1, 0x805, 0xffff} {
		b := querytest.Addr(n)
		s, qerr := call(t, q, "/cosmos.auth.v1beta1.Query/AddressBytesToString", &query.AddressBytesToStringRequest{AddressBytes: b[:]})
		if qerr != nil {
			t.Fatal(qerr)
		}
		back, qerr := call(t, q, "/cosmos.auth.v1beta1.Query/AddressStringToBytes", &query.AddressStringToBytesRequest{AddressString: s.(*query.AddressBytesToStringResponse).AddressString})
		if qerr != nil || types.BytesToAddress(back.(*query.AddressStringToBytesResponse).AddressBytes) != b {
			t.Errorf("%s: back %v %v", b, back, qerr)
		}
	}
}

func mustCall(t *testing.T, q *query.Querier, path string, req protobuf.Message) protobuf.Message {
	t.Helper()
	r, qerr := call(t, q, path, req)
	if qerr != nil {
		t.Fatalf("%s: %v", path, qerr)
	}
	return r
}
