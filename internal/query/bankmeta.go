package query

import (
	"context"

	"github.com/chaind/chaind/internal/protobuf"
)

// The bank module's queries beside balances and supply: its parameters,
// spendable balances and the native coin's metadata. A balance is wholly
// spendable: staked coins leave the account for the staking contract, and
// no vesting locks any, so spendable balances are the balances.

// The native coin's display unit: 1 chain = 10^18 achain.
const (
	DisplayDenom = "chain"
	CoinSymbol   = "CHAIN"
	CoinDecimals = 18
)

type SendEnabled struct {
	Denom   string `pb:"1,denom"`
	Enabled bool   `pb:"2,enabled"`
}

func (SendEnabled) ProtoName() string { return "cosmos.bank.v1beta1.SendEnabled" }

// BankParams: every coin can be sent (the native coin is the only one and
// transfers are never switched off).
type BankParams struct {
	SendEnabled        []SendEnabled `pb:"1,send_enabled"`
	DefaultSendEnabled bool          `pb:"2,default_send_enabled"`
}

func (BankParams) ProtoName() string { return "cosmos.bank.v1beta1.Params" }

type DenomUnit struct {
	Denom    string   `pb:"1,denom"`
	Exponent uint32   `pb:"2,exponent"`
	Aliases  []string `pb:"3,aliases"`
}

func (DenomUnit) ProtoName() string { return "cosmos.bank.v1beta1.DenomUnit" }

type Metadata struct {
	Description string      `pb:"1,description"`
	DenomUnits  []DenomUnit `pb:"2,denom_units"`
	Base        string      `pb:"3,base"`
	Display     string      `pb:"4,display"`
	Name        string      `pb:"5,name"`
	Symbol      string      `pb:"6,symbol"`
	URI         string      `pb:"7,uri"`
	URIHash     string      `pb:"8,uri_hash"`
}

func (Metadata) ProtoName() string { return "cosmos.bank.v1beta1.Metadata" }

// nativeMetadata describes the native coin.
var nativeMetadata = Metadata{
	Description: "The native coin of the chain: staking, fees and governance deposits",
	DenomUnits: []DenomUnit{{Denom: Denom, Exponent: 0, Aliases: []string{}},
		{Denom: DisplayDenom, Exponent: CoinDecimals, Aliases: []string{}}},
	Base: Denom, Display: DisplayDenom, Name: "Chain", Symbol: CoinSymbol,
}

type QueryBankParamsRequest struct{}

func (QueryBankParamsRequest) ProtoName() string { return "cosmos.bank.v1beta1.QueryParamsRequest" }

type QueryBankParamsResponse struct {
	Params BankParams `pb:"1,params"`
}

func (QueryBankParamsResponse) ProtoName() string { return "cosmos.bank.v1beta1.QueryParamsResponse" }

type QuerySpendableBalancesRequest struct {
	Address    string       `pb:"1,address"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QuerySpendableBalancesRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QuerySpendableBalancesRequest"
}

type QuerySpendableBalancesResponse struct {
	Balances   []Coin        `pb:"1,balances"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QuerySpendableBalancesResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QuerySpendableBalancesResponse"
}

type QuerySpendableBalanceByDenomRequest struct {
	Address string `pb:"1,address"`
	Denom   string `pb:"2,denom"`
}

func (QuerySpendableBalanceByDenomRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QuerySpendableBalanceByDenomRequest"
}

type QuerySpendableBalanceByDenomResponse struct {
	Balance *Coin `pb:"1,balance"`
}

func (QuerySpendableBalanceByDenomResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QuerySpendableBalanceByDenomResponse"
}

type QueryDenomMetadataRequest struct {
	Denom string `pb:"1,denom"`
}

func (QueryDenomMetadataRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomMetadataRequest"
}

type QueryDenomMetadataResponse struct {
	Metadata Metadata `pb:"1,metadata"`
}

func (QueryDenomMetadataResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomMetadataResponse"
}

type QueryDenomsMetadataRequest struct {
	Pagination *PageRequest `pb:"1,pagination"`
}

func (QueryDenomsMetadataRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomsMetadataRequest"
}

type QueryDenomsMetadataResponse struct {
	Metadatas  []Metadata    `pb:"1,metadatas"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryDenomsMetadataResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomsMetadataResponse"
}

type QueryDenomMetadataByQueryStringRequest struct {
	Denom string `pb:"1,denom"`
}

func (QueryDenomMetadataByQueryStringRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomMetadataByQueryStringRequest"
}

type QueryDenomMetadataByQueryStringResponse struct {
	Metadata Metadata `pb:"1,metadata"`
}

func (QueryDenomMetadataByQueryStringResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomMetadataByQueryStringResponse"
}

type QuerySendEnabledRequest struct {
	Denoms     []string     `pb:"1,denoms"`
	Pagination *PageRequest `pb:"99,pagination"`
}

func (QuerySendEnabledRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QuerySendEnabledRequest"
}

type QuerySendEnabledResponse struct {
	SendEnabled []SendEnabled `pb:"1,send_enabled"`
	Pagination  *PageResponse `pb:"99,pagination"`
}

func (QuerySendEnabledResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QuerySendEnabledResponse"
}

// bankMetaMessages and bankMetaMethods join the bank service.
var bankMetaMessages = []protobuf.Message{SendEnabled{}, BankParams{}, DenomUnit{}, Metadata{},
	QueryBankParamsRequest{}, QueryBankParamsResponse{}, QuerySpendableBalancesRequest{}, QuerySpendableBalancesResponse{},
	QuerySpendableBalanceByDenomRequest{}, QuerySpendableBalanceByDenomResponse{},
	QueryDenomMetadataRequest{}, QueryDenomMetadataResponse{}, QueryDenomsMetadataRequest{}, QueryDenomsMetadataResponse{},
	QueryDenomMetadataByQueryStringRequest{}, QueryDenomMetadataByQueryStringResponse{}, QuerySendEnabledRequest{}, QuerySendEnabledResponse{}}

func bankMetaMethods() []*Method {
	return []*Method{
		method("SpendableBalances", "/cosmos/bank/v1beta1/spendable_balances/{address}", (*Querier).SpendableBalances),
		method("SpendableBalanceByDenom", "/cosmos/bank/v1beta1/spendable_balances/{address}/by_denom", (*Querier).SpendableBalanceByDenom),
		method("Params", "/cosmos/bank/v1beta1/params", (*Querier).BankParams),
		method("DenomMetadata", "/cosmos/bank/v1beta1/denoms_metadata/{denom}", (*Querier).DenomMetadata),
		method("DenomsMetadata", "/cosmos/bank/v1beta1/denoms_metadata", (*Querier).DenomsMetadata),
		method("DenomMetadataByQueryString", "/cosmos/bank/v1beta1/denoms_metadata_by_query_string", (*Querier).DenomMetadataByQueryString),
		method("SendEnabled", "/cosmos/bank/v1beta1/send_enabled", (*Querier).SendEnabled),
	}
}

// bankParams are the bank parameters: no coin has a send_enabled entry
// of its own (the SDK keeps those apart from the parameters since
// v0.47, and chaind has none), and sending is on by default.
var bankParams = BankParams{SendEnabled: []SendEnabled{}, DefaultSendEnabled: true}

// BankParams returns the bank parameters.
func (q *Querier) BankParams(context.Context, *QueryBankParamsRequest) (*QueryBankParamsResponse, error) {
	return &QueryBankParamsResponse{Params: bankParams}, nil
}

// SendEnabled lists the send_enabled entries of the denominations asked,
// or, asked for none, every entry, paginated. The SDK lists only the
// coins that have an entry of their own; chaind answers for its native
// coin, whose sending follows default_send_enabled, so a client asking
// about it learns that value, and skips any other denomination as the
// SDK skips one without an entry. Asked for none, the list is the
// parameters' own entries: none.
func (q *Querier) SendEnabled(_ context.Context, r *QuerySendEnabledRequest) (*QuerySendEnabledResponse, error) {
	if len(r.Denoms) > 0 {
		out := []SendEnabled{}
		for _, d := range r.Denoms {
			if err := checkDenom(d); err != nil {
				return nil, err
			}
			if d == Denom {
				out = append(out, SendEnabled{Denom: d, Enabled: bankParams.DefaultSendEnabled})
			}
		}
		return &QuerySendEnabledResponse{SendEnabled: out}, nil
	}
	page, pr, err := paginate(bankParams.SendEnabled, func(e SendEnabled) []byte { return []byte(e.Denom) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QuerySendEnabledResponse{SendEnabled: page, Pagination: pr}, nil
}

// SpendableBalances are an account's balances, all of them spendable.
func (q *Querier) SpendableBalances(ctx context.Context, r *QuerySpendableBalancesRequest) (*QuerySpendableBalancesResponse, error) {
	all, err := q.AllBalances(ctx, &QueryAllBalancesRequest{Address: r.Address, Pagination: r.Pagination})
	if err != nil {
		return nil, err
	}
	return &QuerySpendableBalancesResponse{Balances: all.Balances, Pagination: all.Pagination}, nil
}

// SpendableBalanceByDenom is an account's spendable balance of one coin.
func (q *Querier) SpendableBalanceByDenom(ctx context.Context, r *QuerySpendableBalanceByDenomRequest) (*QuerySpendableBalanceByDenomResponse, error) {
	b, err := q.Balance(ctx, &QueryBalanceRequest{Address: r.Address, Denom: r.Denom})
	if err != nil {
		return nil, err
	}
	return &QuerySpendableBalanceByDenomResponse{Balance: b.Balance}, nil
}

// DenomMetadata describes one coin: the native one, by its base or
// display denomination; NotFound for any other, as in the SDK.
func (q *Querier) DenomMetadata(_ context.Context, r *QueryDenomMetadataRequest) (*QueryDenomMetadataResponse, error) {
	if err := checkDenom(r.Denom); err != nil {
		return nil, err
	}
	if r.Denom != Denom && r.Denom != DisplayDenom {
		return nil, Errorf(NotFound, "client metadata for denom %s", r.Denom)
	}
	return &QueryDenomMetadataResponse{Metadata: nativeMetadata}, nil
}

// DenomMetadataByQueryString is DenomMetadata with the denomination in
// the query string (?denom=), for denominations with a slash.
func (q *Querier) DenomMetadataByQueryString(ctx context.Context, r *QueryDenomMetadataByQueryStringRequest) (*QueryDenomMetadataByQueryStringResponse, error) {
	m, err := q.DenomMetadata(ctx, &QueryDenomMetadataRequest{Denom: r.Denom})
	if err != nil {
		return nil, err
	}
	return &QueryDenomMetadataByQueryStringResponse{Metadata: m.Metadata}, nil
}

// DenomsMetadata lists every coin's metadata: the native coin's.
func (q *Querier) DenomsMetadata(_ context.Context, r *QueryDenomsMetadataRequest) (*QueryDenomsMetadataResponse, error) {
	page, pr, err := paginate([]Metadata{nativeMetadata}, func(m Metadata) []byte { return []byte(m.Base) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryDenomsMetadataResponse{Metadatas: page, Pagination: pr}, nil
}
