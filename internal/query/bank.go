package query

import (
	"context"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/holiman/uint256"
)

type QueryBalanceRequest struct {
	Address string `pb:"1,address"`
	Denom   string `pb:"2,denom"`
}

func (QueryBalanceRequest) ProtoName() string { return "cosmos.bank.v1beta1.QueryBalanceRequest" }

type QueryBalanceResponse struct {
	Balance *Coin `pb:"1,balance"`
}

func (QueryBalanceResponse) ProtoName() string { return "cosmos.bank.v1beta1.QueryBalanceResponse" }

type QueryAllBalancesRequest struct {
	Address      string       `pb:"1,address"`
	Pagination   *PageRequest `pb:"2,pagination"`
	ResolveDenom bool         `pb:"3,resolve_denom"`
}

func (QueryAllBalancesRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryAllBalancesRequest"
}

type QueryAllBalancesResponse struct {
	Balances   []Coin        `pb:"1,balances"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryAllBalancesResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryAllBalancesResponse"
}

type QueryTotalSupplyRequest struct {
	Pagination *PageRequest `pb:"1,pagination"`
}

func (QueryTotalSupplyRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryTotalSupplyRequest"
}

type QueryTotalSupplyResponse struct {
	Supply     []Coin        `pb:"1,supply"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryTotalSupplyResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryTotalSupplyResponse"
}

type QuerySupplyOfRequest struct {
	Denom string `pb:"1,denom"`
}

func (QuerySupplyOfRequest) ProtoName() string { return "cosmos.bank.v1beta1.QuerySupplyOfRequest" }

type QuerySupplyOfResponse struct {
	Amount Coin `pb:"1,amount"`
}

func (QuerySupplyOfResponse) ProtoName() string { return "cosmos.bank.v1beta1.QuerySupplyOfResponse" }

func bankService() *Service {
	return serviceFile("cosmos/bank/v1beta1/query.proto", "cosmos.bank.v1beta1.Query",
		append(append([]protobuf.Message{QueryBalanceRequest{}, QueryBalanceResponse{}, QueryAllBalancesRequest{}, QueryAllBalancesResponse{},
			QueryTotalSupplyRequest{}, QueryTotalSupplyResponse{}, QuerySupplyOfRequest{}, QuerySupplyOfResponse{}}, bankMetaMessages...), holderMessages...),
		nil,
		append([]*Method{
			method("Balance", "/cosmos/bank/v1beta1/balances/{address}/by_denom", (*Querier).Balance),
			method("AllBalances", "/cosmos/bank/v1beta1/balances/{address}", (*Querier).AllBalances),
			method("TotalSupply", "/cosmos/bank/v1beta1/supply", (*Querier).TotalSupply),
			method("SupplyOf", "/cosmos/bank/v1beta1/supply/by_denom", (*Querier).SupplyOf),
		}, append(bankMetaMethods(), holderMethods()...)...))
}

func (q *Querier) balance(ctx context.Context, addr string) (*uint256.Int, error) {
	a, err := parseAddress(AccountPrefix, "address", addr)
	if err != nil {
		return nil, err
	}
	_, st, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	bal := st.Balance(a)
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	return bal, nil
}

func checkDenom(d string) error {
	if d == "" {
		return Errorf(InvalidArgument, "invalid denom")
	}
	return nil
}

// Balance is an account's balance of one denomination; the chain has one
// coin, so any other denomination holds zero, as for an unknown coin in
// the Cosmos SDK.
func (q *Querier) Balance(ctx context.Context, r *QueryBalanceRequest) (*QueryBalanceResponse, error) {
	if err := checkDenom(r.Denom); err != nil {
		return nil, err
	}
	bal, err := q.balance(ctx, r.Address)
	if err != nil {
		return nil, err
	}
	if r.Denom != Denom {
		bal = new(uint256.Int)
	}
	return &QueryBalanceResponse{Balance: &Coin{Denom: r.Denom, Amount: IntOf(bal)}}, nil
}

// AllBalances lists an account's non-zero balances.
func (q *Querier) AllBalances(ctx context.Context, r *QueryAllBalancesRequest) (*QueryAllBalancesResponse, error) {
	bal, err := q.balance(ctx, r.Address)
	if err != nil {
		return nil, err
	}
	page, pr, err := paginate(coins(bal), coinKey, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryAllBalancesResponse{Balances: page, Pagination: pr}, nil
}

func coinKey(c Coin) []byte { return []byte(c.Denom) }

// supply is the staking state's exact count when the chain has staking
// contracts, else what the Supply reader says.
func (q *Querier) supply(ctx context.Context) (*uint256.Int, error) {
	h, _, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	if n, err := q.native(ctx); err == nil {
		return n.TotalSupply(h)
	}
	if q.b.Supply == nil {
		return nil, backend.ErrUnavailable
	}
	return q.b.Supply.TotalSupply(h)
}

// TotalSupply lists the supply of every coin.
func (q *Querier) TotalSupply(ctx context.Context, r *QueryTotalSupplyRequest) (*QueryTotalSupplyResponse, error) {
	s, err := q.supply(ctx)
	if err != nil {
		return nil, err
	}
	page, pr, err := paginate(coins(s), coinKey, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryTotalSupplyResponse{Supply: page, Pagination: pr}, nil
}

// SupplyOf is the supply of one coin (zero for a coin the chain lacks).
func (q *Querier) SupplyOf(ctx context.Context, r *QuerySupplyOfRequest) (*QuerySupplyOfResponse, error) {
	if err := checkDenom(r.Denom); err != nil {
		return nil, err
	}
	s := new(uint256.Int)
	if r.Denom == Denom {
		var err error
		if s, err = q.supply(ctx); err != nil {
			return nil, err
		}
	}
	return &QuerySupplyOfResponse{Amount: Coin{Denom: r.Denom, Amount: IntOf(s)}}, nil
}
