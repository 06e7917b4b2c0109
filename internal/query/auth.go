package query

import (
	"context"
	"encoding/binary"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// Accounts are the Cosmos SDK's standard BaseAccount, as Cosmos EVM serves
// them today (its evmd app builds the auth keeper with ProtoBaseAccount;
// the older ethermint.types.v1.EthAccount is gone), so @cosmjs/stargate's
// accountFromAny decodes them.
//
// chaind keeps no account numbers: an account is its 20 bytes. The number
// shown is derived from the address alone — the first 8 bytes of
// keccak256(address), big-endian, cut to 53 bits — so it is the same on
// every node and at every height, never changes, and is exact in a
// JavaScript number (cosmjs converts it to one). Two accounts share a
// number only if their address hashes agree in 53 bits: about one chance
// in 10^5 among a million accounts. A number the SDK would hand out in
// order of creation needs a counter in the chain's state, which chaind's
// consensus does not keep.

type QueryAccountRequest struct {
	Address string `pb:"1,address"`
}

func (QueryAccountRequest) ProtoName() string { return "cosmos.auth.v1beta1.QueryAccountRequest" }

type QueryAccountResponse struct {
	Account *protobuf.Any `pb:"1,account"`
}

func (QueryAccountResponse) ProtoName() string { return "cosmos.auth.v1beta1.QueryAccountResponse" }

// BaseAccount is the Cosmos account record: sequence is the account's
// nonce; pub_key stays unset (chaind keeps no public keys; the SDK also
// leaves it unset until an account first signs a Cosmos transaction).
type BaseAccount struct {
	Address       string        `pb:"1,address"`
	PubKey        *protobuf.Any `pb:"2,pub_key"`
	AccountNumber uint64        `pb:"3,account_number"`
	Sequence      uint64        `pb:"4,sequence"`
}

func (BaseAccount) ProtoName() string { return "cosmos.auth.v1beta1.BaseAccount" }

type QueryAccountInfoRequest struct {
	Address string `pb:"1,address"`
}

func (QueryAccountInfoRequest) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryAccountInfoRequest"
}

type QueryAccountInfoResponse struct {
	Info *BaseAccount `pb:"1,info"`
}

func (QueryAccountInfoResponse) ProtoName() string {
	return "cosmos.auth.v1beta1.QueryAccountInfoResponse"
}

// AuthParams are the auth module's parameters. chaind takes no Cosmos
// transactions (memo, signature and size costs apply to none), so they
// are the SDK's defaults, which Cosmos EVM's genesis keeps: what a
// client checking a Cosmos transaction against them expects.
type AuthParams struct {
	MaxMemoCharacters      uint64 `pb:"1,max_memo_characters"`
	TxSigLimit             uint64 `pb:"2,tx_sig_limit"`
	TxSizeCostPerByte      uint64 `pb:"3,tx_size_cost_per_byte"`
	SigVerifyCostEd25519   uint64 `pb:"4,sig_verify_cost_ed25519"`
	SigVerifyCostSecp256k1 uint64 `pb:"5,sig_verify_cost_secp256k1"`
}

func (AuthParams) ProtoName() string { return "cosmos.auth.v1beta1.Params" }

// sdkAuthParams are the SDK's default auth parameters.
var sdkAuthParams = AuthParams{MaxMemoCharacters: 256, TxSigLimit: 7, TxSizeCostPerByte: 10,
	SigVerifyCostEd25519: 590, SigVerifyCostSecp256k1: 1000}

type QueryAuthParamsRequest struct{}

func (QueryAuthParamsRequest) ProtoName() string { return "cosmos.auth.v1beta1.QueryParamsRequest" }

type QueryAuthParamsResponse struct {
	Params AuthParams `pb:"1,params"`
}

func (QueryAuthParamsResponse) ProtoName() string { return "cosmos.auth.v1beta1.QueryParamsResponse" }

type Bech32PrefixRequest struct{}

func (Bech32PrefixRequest) ProtoName() string { return "cosmos.auth.v1beta1.Bech32PrefixRequest" }

type Bech32PrefixResponse struct {
	Bech32Prefix string `pb:"1,bech32_prefix"`
}

func (Bech32PrefixResponse) ProtoName() string { return "cosmos.auth.v1beta1.Bech32PrefixResponse" }

func authService() *Service {
	return serviceFile("cosmos/auth/v1beta1/query.proto", "cosmos.auth.v1beta1.Query",
		append([]protobuf.Message{QueryAccountRequest{}, QueryAccountResponse{}, BaseAccount{}, QueryAccountInfoRequest{}, QueryAccountInfoResponse{},
			AuthParams{}, QueryAuthParamsRequest{}, QueryAuthParamsResponse{}, Bech32PrefixRequest{}, Bech32PrefixResponse{},
			QueryAccountsRequest{}, QueryAccountsResponse{}}, authMoreMessages...),
		nil,
		append([]*Method{
			method("Accounts", "/cosmos/auth/v1beta1/accounts", (*Querier).Accounts),
			method("Account", "/cosmos/auth/v1beta1/accounts/{address}", (*Querier).Account),
			method("Params", "/cosmos/auth/v1beta1/params", (*Querier).AuthParams),
			method("Bech32Prefix", "/cosmos/auth/v1beta1/bech32", (*Querier).Bech32Prefix),
			method("AccountInfo", "/cosmos/auth/v1beta1/account_info/{address}", (*Querier).AccountInfo),
		}, authMoreMethods()...))
}

// AccountNumber is the account number chaind shows for a: see the top of
// this file.
func AccountNumber(a types.Address) uint64 {
	h := crypto.Keccak256(a[:])
	return binary.BigEndian.Uint64(h[:8]) >> 11
}

// baseAccount reads an account that exists in the state read (has a
// nonce, a balance or code: accountIn); NotFound otherwise, as for an
// account the Cosmos SDK never saw.
func (q *Querier) baseAccount(ctx context.Context, addr string) (*BaseAccount, error) {
	a, err := parseAddress(AccountPrefix, "address", addr)
	if err != nil {
		return nil, err
	}
	_, st, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	acc, ok, err := accountIn(st, a)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Errorf(NotFound, "account %s not found", addr)
	}
	return acc, nil
}

// accountIn reads a's account in st; false when st holds none (no nonce,
// balance or code).
func accountIn(st backend.State, a types.Address) (*BaseAccount, bool, error) {
	nonce, bal, code := st.Nonce(a), st.Balance(a), st.Code(a)
	if err := backend.ReadErr(st); err != nil {
		return nil, false, err
	}
	if nonce == 0 && (bal == nil || bal.IsZero()) && len(code) == 0 {
		return nil, false, nil
	}
	return &BaseAccount{Address: accAddr(a), AccountNumber: AccountNumber(a), Sequence: nonce}, true, nil
}

// Account returns an account in an Any: a BaseAccount, or the
// ModuleAccount of a system contract standing for a module's account
// (shown before it holds anything, as the SDK shows a module account).
func (q *Querier) Account(ctx context.Context, r *QueryAccountRequest) (*QueryAccountResponse, error) {
	a, err := parseAddress(AccountPrefix, "address", r.Address)
	if err != nil {
		return nil, err
	}
	if role, ok := q.roleOf(a); ok {
		acc, err := q.moduleAccount(ctx, role)
		if err != nil {
			return nil, err
		}
		return &QueryAccountResponse{Account: acc}, nil
	}
	acc, err := q.baseAccount(ctx, r.Address)
	if err != nil {
		return nil, err
	}
	return &QueryAccountResponse{Account: &protobuf.Any{Msg: *acc}}, nil
}

// AccountInfo returns an account's BaseAccount itself.
func (q *Querier) AccountInfo(ctx context.Context, r *QueryAccountInfoRequest) (*QueryAccountInfoResponse, error) {
	acc, err := q.baseAccount(ctx, r.Address)
	if err != nil {
		return nil, err
	}
	return &QueryAccountInfoResponse{Info: acc}, nil
}

// AuthParams returns the auth parameters.
func (q *Querier) AuthParams(context.Context, *QueryAuthParamsRequest) (*QueryAuthParamsResponse, error) {
	return &QueryAuthParamsResponse{Params: sdkAuthParams}, nil
}

// Bech32Prefix is the prefix of account addresses.
func (q *Querier) Bech32Prefix(context.Context, *Bech32PrefixRequest) (*Bech32PrefixResponse, error) {
	return &Bech32PrefixResponse{Bech32Prefix: AccountPrefix}, nil
}
