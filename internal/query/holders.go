package query

import (
	"bytes"
	"context"
	"regexp"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// The queries that list every account (auth Accounts) and every holder of
// a coin (bank DenomOwners, DenomOwnersByQuery) page through the node's
// account index (backend.AccountIndex), which lists, in address order,
// every address that has held an account since genesis. Each page keeps
// the addresses that hold an account (or a balance of the coin) in the
// state of the height read, so the answer is the one an SDK node's store
// of that height gives: paging, next_key, count_total and reverse follow
// the SDK's CollectionPaginate over a store holding exactly those
// entries, keyed by the 20 address bytes (the SDK's next_key for both).
// The native coin is the only one: any other valid denomination has no
// holders.

// maxIndexPage bounds the entries one page of an index listing holds,
// whatever limit the client asks: a longer page stops there with its
// next_key, as a page the limit ends. The SDK sets no bound; a node
// listing millions of accounts needs one to bound the answer's memory.
const maxIndexPage = 1000

// maxIndexWalk bounds the index entries a request may walk past without
// returning them: an offset's skipped entries, and the entries after the
// page that count_total counts. Each costs a state read (is the account
// still there, does it hold the coin), so an unbounded walk let one
// request read the state of every address since genesis — millions on a
// big chain, seconds of CPU and disk for a query any client may send.
// Past the bound an offset is refused, an explicit count_total is
// refused, and the total that a request without a limit implies (the
// SDK counts then) is left out of the answer.
const maxIndexWalk = 10_000

// indexChunk is how many addresses one read of the index returns.
const indexChunk = 256

type QueryAccountsRequest struct {
	Pagination *PageRequest `pb:"1,pagination"`
}

func (QueryAccountsRequest) ProtoName() string { return "cosmos.auth.v1beta1.QueryAccountsRequest" }

type QueryAccountsResponse struct {
	Accounts   []*protobuf.Any `pb:"1,accounts"`
	Pagination *PageResponse   `pb:"2,pagination"`
}

func (QueryAccountsResponse) ProtoName() string { return "cosmos.auth.v1beta1.QueryAccountsResponse" }

type DenomOwner struct {
	Address string `pb:"1,address"`
	Balance Coin   `pb:"2,balance"`
}

func (DenomOwner) ProtoName() string { return "cosmos.bank.v1beta1.DenomOwner" }

type QueryDenomOwnersRequest struct {
	Denom      string       `pb:"1,denom"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryDenomOwnersRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomOwnersRequest"
}

type QueryDenomOwnersResponse struct {
	DenomOwners []DenomOwner  `pb:"1,denom_owners"`
	Pagination  *PageResponse `pb:"2,pagination"`
}

func (QueryDenomOwnersResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomOwnersResponse"
}

type QueryDenomOwnersByQueryRequest struct {
	Denom      string       `pb:"1,denom"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryDenomOwnersByQueryRequest) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomOwnersByQueryRequest"
}

type QueryDenomOwnersByQueryResponse struct {
	DenomOwners []DenomOwner  `pb:"1,denom_owners"`
	Pagination  *PageResponse `pb:"2,pagination"`
}

func (QueryDenomOwnersByQueryResponse) ProtoName() string {
	return "cosmos.bank.v1beta1.QueryDenomOwnersByQueryResponse"
}

// holderMessages and holderMethods join the bank service.
var holderMessages = []protobuf.Message{DenomOwner{}, QueryDenomOwnersRequest{}, QueryDenomOwnersResponse{},
	QueryDenomOwnersByQueryRequest{}, QueryDenomOwnersByQueryResponse{}}

func holderMethods() []*Method {
	return []*Method{
		method("DenomOwners", "/cosmos/bank/v1beta1/denom_owners/{denom}", (*Querier).DenomOwners),
		method("DenomOwnersByQuery", "/cosmos/bank/v1beta1/denom_owners_by_query", (*Querier).DenomOwnersByQuery),
	}
}

// Accounts lists the accounts of the state read, in address order.
func (q *Querier) Accounts(ctx context.Context, r *QueryAccountsRequest) (*QueryAccountsResponse, error) {
	_, st, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	page, pr, err := indexPage(ctx, q.b.Accounts, r.Pagination, func(a types.Address) (*protobuf.Any, bool, error) {
		acc, ok, err := accountIn(st, a)
		if !ok || err != nil {
			return nil, false, err
		}
		return q.packAccount(a, acc), true, nil // a module's account as a ModuleAccount, as the SDK lists it
	})
	if err != nil {
		return nil, err
	}
	return &QueryAccountsResponse{Accounts: page, Pagination: pr}, nil
}

// sdkDenom is the SDK's rule for a denomination (sdk.ValidateDenom's
// default pattern).
var sdkDenom = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$`)

// DenomOwners lists the accounts holding a coin in the state read, in
// address order, with their balances.
func (q *Querier) DenomOwners(ctx context.Context, r *QueryDenomOwnersRequest) (*QueryDenomOwnersResponse, error) {
	if !sdkDenom.MatchString(r.Denom) {
		return nil, Errorf(InvalidArgument, "invalid denom: %s", r.Denom)
	}
	_, st, err := q.at(ctx)
	if err != nil {
		return nil, err
	}
	keep := func(a types.Address) (DenomOwner, bool, error) {
		bal := st.Balance(a)
		if err := backend.ReadErr(st); err != nil || bal == nil || bal.IsZero() {
			return DenomOwner{}, false, err
		}
		return DenomOwner{Address: accAddr(a), Balance: Coin{Denom: Denom, Amount: IntOf(bal)}}, true, nil
	}
	idx := q.b.Accounts
	if r.Denom != Denom {
		idx = noAccounts{} // a coin the chain lacks: no holders, whatever the index
	}
	page, pr, err := indexPage(ctx, idx, r.Pagination, keep)
	if err != nil {
		return nil, err
	}
	return &QueryDenomOwnersResponse{DenomOwners: page, Pagination: pr}, nil
}

// DenomOwnersByQuery is DenomOwners with the denomination in the query
// string (one with a slash does not fit a path segment).
func (q *Querier) DenomOwnersByQuery(ctx context.Context, r *QueryDenomOwnersByQueryRequest) (*QueryDenomOwnersByQueryResponse, error) {
	o, err := q.DenomOwners(ctx, &QueryDenomOwnersRequest{Denom: r.Denom, Pagination: r.Pagination})
	if err != nil {
		return nil, err
	}
	return &QueryDenomOwnersByQueryResponse{DenomOwners: o.DenomOwners, Pagination: o.Pagination}, nil
}

// indexPage pages through the account index as CollectionPaginate pages a
// store holding, under each address, what keep makes of it (nothing when
// keep says no). The results are never nil: an empty list renders as [].
func indexPage[T any](ctx context.Context, idx backend.AccountIndex, p *PageRequest, keep func(types.Address) (T, bool, error)) ([]T, *PageResponse, error) {
	if idx == nil {
		return nil, nil, Errorf(Unavailable, "this node keeps no account index")
	}
	var req PageRequest
	if p != nil {
		req = *p
	}
	if len(req.Key) == 0 {
		req.Key = nil
	}
	count := req.CountTotal
	if req.Limit == 0 {
		req.Limit, count = DefaultLimit, true
	}
	if req.Offset > 0 && req.Key != nil {
		return nil, nil, errKeyAndOffset
	}
	limit := min(req.Limit, maxIndexPage)
	it := indexIter{ctx: ctx, idx: idx, reverse: req.Reverse, bound: req.Key}
	if req.Reverse && req.Key != nil {
		// The SDK walks down from the last key that starts with the
		// given one: the bound is the first key above all of those (nil,
		// the very last, when there is none).
		it.bound = prefixEnd(req.Key)
	}
	next := func() (types.Address, T, bool, error) {
		for {
			a, ok, err := it.next()
			if !ok || err != nil {
				var zero T
				return a, zero, false, err
			}
			v, kept, err := keep(a)
			if err != nil {
				return a, v, false, err
			}
			if kept {
				return a, v, true, nil
			}
		}
	}
	out := []T{}
	if req.Key == nil {
		if req.Offset > maxIndexWalk {
			return nil, nil, Errorf(InvalidArgument, "offset %d is over %d; page with next_key", req.Offset, maxIndexWalk)
		}
		for range req.Offset {
			if _, _, ok, err := next(); err != nil {
				return nil, nil, err
			} else if !ok {
				return out, &PageResponse{}, nil // the SDK's answer to an offset past the end
			}
		}
	}
	resp := &PageResponse{}
	n := uint64(0)
	walked := 0 // entries counted past the page
	for {
		a, v, ok, err := next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if n >= limit {
			if resp.NextKey == nil {
				resp.NextKey = bytes.Clone(a[:])
			}
			if req.Key != nil || !count {
				break
			}
			if walked++; walked > maxIndexWalk {
				if req.CountTotal {
					return nil, nil, Errorf(ResourceExhaust, "count_total would walk more than %d accounts past the page; page with next_key without it", maxIndexWalk)
				}
				return out, resp, nil // the implied total is left out
			}
			n++ // counting on to the end for the total
			continue
		}
		if n < limit {
			out = append(out, v)
		}
		n++
	}
	if req.Key == nil && count {
		resp.Total = n + req.Offset
	}
	return out, resp, nil
}

// indexIter walks the account index a chunk at a time: the index is read
// with no lock held while the state reads of keep run.
type indexIter struct {
	ctx     context.Context
	idx     backend.AccountIndex
	reverse bool
	bound   []byte // where the next chunk starts: inclusive going up, exclusive going down
	buf     []types.Address
	done    bool
}

func (it *indexIter) next() (types.Address, bool, error) {
	if len(it.buf) == 0 {
		if it.done {
			return types.Address{}, false, nil
		}
		if err := it.ctx.Err(); err != nil {
			return types.Address{}, false, err
		}
		chunk, err := it.idx.IndexedAccounts(it.bound, it.reverse, indexChunk)
		if err != nil {
			return types.Address{}, false, err
		}
		it.done = len(chunk) < indexChunk
		if len(chunk) == 0 {
			return types.Address{}, false, nil
		}
		last := chunk[len(chunk)-1]
		if it.reverse {
			it.bound = bytes.Clone(last[:])
		} else {
			it.bound = append(bytes.Clone(last[:]), 0) // the least key above last
		}
		it.buf = chunk
	}
	a := it.buf[0]
	it.buf = it.buf[1:]
	return a, true, nil
}

// noAccounts is an empty account index.
type noAccounts struct{}

func (noAccounts) IndexedAccounts([]byte, bool, int) ([]types.Address, error) { return nil, nil }

// prefixEnd is the least key above every key that starts with p; nil when
// there is none (p is all 0xff), as the SDK's PrefixEndBytes.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
