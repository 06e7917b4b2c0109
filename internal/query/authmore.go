package query

import (
	"context"
	"slices"
	"strings"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// The auth queries beside accounts: bech32 conversion with chaind's
// account prefix, account lookup by number, and the module accounts.

// ModuleAccountRole is a system contract standing where the SDK has a
// module account: the SDK's module name, the contract's address and
// the SDK's permissions for that module ("burner", "staking", ...).
type ModuleAccountRole struct {
	Name        string
	Address     types.Address
	Permissions []string
}

// ModuleAccount is the SDK's module account: a BaseAccount with the
// module's name and permissions.
type ModuleAccount struct {
	BaseAccount *BaseAccount `pb:"1,base_account"`
	Name        string       `pb:"2,name"`
	Permissions []string     `pb:"3,permissions"`
}

func (ModuleAccount) ProtoName() string { return "cosmos.auth.v1beta1.ModuleAccount" }

type QueryModuleAccountsRequest struct{}

func (QueryModuleAccountsRequest) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryModuleAccountsRequest"
}

type QueryModuleAccountsResponse struct {
	Accounts []*protobuf.Any `pb:"1,accounts"`
}

func (QueryModuleAccountsResponse) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryModuleAccountsResponse"
}

type QueryModuleAccountByNameRequest struct {
	Name string `pb:"1,name"`
}

func (QueryModuleAccountByNameRequest) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryModuleAccountByNameRequest"
}

type QueryModuleAccountByNameResponse struct {
	Account *protobuf.Any `pb:"1,account"`
}

func (QueryModuleAccountByNameResponse) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryModuleAccountByNameResponse"
}

type AddressBytesToStringRequest struct {
	AddressBytes []byte `pb:"1,address_bytes"`
}

func (AddressBytesToStringRequest) ProtoName() string {
	return "cosmos.auth.v1beta1.AddressBytesToStringRequest"
}

type AddressBytesToStringResponse struct {
	AddressString string `pb:"1,address_string"`
}

func (AddressBytesToStringResponse) ProtoName() string {
	return "cosmos.auth.v1beta1.AddressBytesToStringResponse"
}

type AddressStringToBytesRequest struct {
	AddressString string `pb:"1,address_string"`
}

func (AddressStringToBytesRequest) ProtoName() string {
	return "cosmos.auth.v1beta1.AddressStringToBytesRequest"
}

type AddressStringToBytesResponse struct {
	AddressBytes []byte `pb:"1,address_bytes"`
}

func (AddressStringToBytesResponse) ProtoName() string {
	return "cosmos.auth.v1beta1.AddressStringToBytesResponse"
}

// QueryAccountAddressByIDRequest: id is the SDK's deprecated int64 field,
// which it refuses; account_id is the number asked.
type QueryAccountAddressByIDRequest struct {
	ID        int64  `pb:"1,id"`
	AccountID uint64 `pb:"2,account_id"`
}

func (QueryAccountAddressByIDRequest) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryAccountAddressByIDRequest"
}

type QueryAccountAddressByIDResponse struct {
	AccountAddress string `pb:"1,account_address"`
}

func (QueryAccountAddressByIDResponse) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryAccountAddressByIDResponse"
}

var authMoreMessages = []protobuf.Message{ModuleAccount{}, QueryModuleAccountsRequest{}, QueryModuleAccountsResponse{},
	QueryModuleAccountByNameRequest{}, QueryModuleAccountByNameResponse{}, AddressBytesToStringRequest{}, AddressBytesToStringResponse{},
	AddressStringToBytesRequest{}, AddressStringToBytesResponse{}, QueryAccountAddressByIDRequest{}, QueryAccountAddressByIDResponse{}}

// authMoreMethods join the auth service. AddressBytesToString comes
// before AddressStringToBytes: both have the REST route
// /cosmos/auth/v1beta1/bech32/{...}, and the SDK's gateway, like the
// REST server's first match, gives the path to AddressBytesToString.
func authMoreMethods() []*Method {
	return []*Method{
		method("ModuleAccounts", "/cosmos/auth/v1beta1/module_accounts", (*Querier).ModuleAccounts),
		method("ModuleAccountByName", "/cosmos/auth/v1beta1/module_accounts/{name}", (*Querier).ModuleAccountByName),
		method("AddressBytesToString", "/cosmos/auth/v1beta1/bech32/{address_bytes}", (*Querier).AddressBytesToString),
		method("AddressStringToBytes", "/cosmos/auth/v1beta1/bech32/{address_string}", (*Querier).AddressStringToBytes),
		method("AccountAddressByID", "/cosmos/auth/v1beta1/address_by_id/{id}", (*Querier).AccountAddressByID),
	}
}

// moduleAccount reads role's contract account in the state read: its
// nonce is the sequence; a contract the state does not hold yet is shown
// with sequence 0, as the SDK shows a module account before its first
// coins.
func (q *Querier) moduleAccount(ctx context.Context, role ModuleAccountRole) (*protobuf.Any, error) {
	_, st, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	base, ok, err := accountIn(st, role.Address)
	if err != nil {
		return nil, err
	}
	if !ok {
		base = &BaseAccount{Address: accAddr(role.Address), AccountNumber: AccountNumber(role.Address)}
	}
	return packModule(role, base), nil
}

func packModule(role ModuleAccountRole, base *BaseAccount) *protobuf.Any {
	perms := role.Permissions
	if perms == nil {
		perms = []string{}
	}
	return &protobuf.Any{Msg: ModuleAccount{BaseAccount: base, Name: role.Name, Permissions: perms}}
}

// roleOf is the module account role of a, if a system contract at a
// stands for one.
func (q *Querier) roleOf(a types.Address) (ModuleAccountRole, bool) {
	for _, r := range q.b.ModuleAccounts {
		if r.Address == a {
			return r, true
		}
	}
	return ModuleAccountRole{}, false
}

// packAccount packs a's account as the SDK packs it: a ModuleAccount for
// a module's account, a BaseAccount otherwise.
func (q *Querier) packAccount(a types.Address, base *BaseAccount) *protobuf.Any {
	if role, ok := q.roleOf(a); ok {
		return packModule(role, base)
	}
	return &protobuf.Any{Msg: *base}
}

// ModuleAccounts lists the module accounts by name, as the SDK does.
func (q *Querier) ModuleAccounts(ctx context.Context, _ *QueryModuleAccountsRequest) (*QueryModuleAccountsResponse, error) {
	roles := slices.SortedFunc(slices.Values(q.b.ModuleAccounts), func(a, b ModuleAccountRole) int { return strings.Compare(a.Name, b.Name) })
	out := []*protobuf.Any{}
	for _, r := range roles {
		a, err := q.moduleAccount(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return &QueryModuleAccountsResponse{Accounts: out}, nil
}

// ModuleAccountByName finds a module account by its SDK module name;
// NotFound, in the SDK's words, for a module chaind has no account for.
func (q *Querier) ModuleAccountByName(ctx context.Context, r *QueryModuleAccountByNameRequest) (*QueryModuleAccountByNameResponse, error) {
	if r.Name == "" {
		return nil, Errorf(InvalidArgument, "module name is empty")
	}
	for _, role := range q.b.ModuleAccounts {
		if role.Name == r.Name {
			a, err := q.moduleAccount(ctx, role)
			if err != nil {
				return nil, err
			}
			return &QueryModuleAccountByNameResponse{Account: a}, nil
		}
	}
	return nil, Errorf(NotFound, "account %s not found", r.Name)
}

// AddressBytesToString renders 20 address bytes in bech32 with the
// account prefix. (The SDK's codec takes any length up to 255; every
// chaind account is 20 bytes, so any other length names none.)
func (q *Querier) AddressBytesToString(_ context.Context, r *AddressBytesToStringRequest) (*AddressBytesToStringResponse, error) {
	if len(r.AddressBytes) == 0 {
		return nil, Errorf(InvalidArgument, "empty address bytes is not allowed")
	}
	if len(r.AddressBytes) != len(types.Address{}) {
		return nil, Errorf(InvalidArgument, "invalid address bytes: %d bytes, want %d", len(r.AddressBytes), len(types.Address{}))
	}
	return &AddressBytesToStringResponse{AddressString: accAddr(types.BytesToAddress(r.AddressBytes))}, nil
}

// AddressStringToBytes decodes a bech32 account address (or a 0x one, as
// every address parameter here takes) to its 20 bytes.
func (q *Querier) AddressStringToBytes(_ context.Context, r *AddressStringToBytesRequest) (*AddressStringToBytesResponse, error) {
	if strings.TrimSpace(r.AddressString) == "" {
		return nil, Errorf(InvalidArgument, "empty address string is not allowed")
	}
	a, err := parseAddress(AccountPrefix, "address_string", r.AddressString)
	if err != nil {
		return nil, err
	}
	return &AddressStringToBytesResponse{AddressBytes: a[:]}, nil
}

// AccountAddressByID would find an account by its number. chaind's
// account numbers are a hash of the address (AccountNumber), not a
// counter with an index: a number cannot be turned back into its
// address without hashing every account in the state. So every number
// is answered as the SDK answers one it never handed out. The deprecated
// id field is refused, as the SDK refuses it.
func (q *Querier) AccountAddressByID(_ context.Context, r *QueryAccountAddressByIDRequest) (*QueryAccountAddressByIDResponse, error) {
	if r.ID != 0 {
		return nil, Errorf(InvalidArgument, "requesting with id isn't supported, try to request using account-id")
	}
	return nil, Errorf(NotFound, "account address not found with account number %d", r.AccountID)
}
