package query

import (
	"context"
	"sort"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// RedelegationEntry is cosmos.staking.v1beta1.RedelegationEntry.
type RedelegationEntry struct {
	CreationHeight          int64     `pb:"1,creation_height"`
	CompletionTime          time.Time `pb:"2,completion_time"`
	InitialBalance          Int       `pb:"3,initial_balance"`
	SharesDst               Dec       `pb:"4,shares_dst"`
	UnbondingID             uint64    `pb:"5,unbonding_id"`
	UnbondingOnHoldRefCount int64     `pb:"6,unbonding_on_hold_ref_count"`
}

func (RedelegationEntry) ProtoName() string { return "cosmos.staking.v1beta1.RedelegationEntry" }

// Redelegation is cosmos.staking.v1beta1.Redelegation.
type Redelegation struct {
	DelegatorAddress    string              `pb:"1,delegator_address"`
	ValidatorSrcAddress string              `pb:"2,validator_src_address"`
	ValidatorDstAddress string              `pb:"3,validator_dst_address"`
	Entries             []RedelegationEntry `pb:"4,entries"`
}

func (Redelegation) ProtoName() string { return "cosmos.staking.v1beta1.Redelegation" }

// RedelegationEntryResponse is cosmos.staking.v1beta1.RedelegationEntryResponse:
// an entry with what its destination shares are worth now.
type RedelegationEntryResponse struct {
	RedelegationEntry RedelegationEntry `pb:"1,redelegation_entry"`
	Balance           Int               `pb:"4,balance"`
}

func (RedelegationEntryResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.RedelegationEntryResponse"
}

// RedelegationResponse is cosmos.staking.v1beta1.RedelegationResponse. As
// the Cosmos SDK answers it, the entries are in Entries, each with its
// balance, and Redelegation.Entries is left empty.
type RedelegationResponse struct {
	Redelegation Redelegation                `pb:"1,redelegation"`
	Entries      []RedelegationEntryResponse `pb:"2,entries"`
}

func (RedelegationResponse) ProtoName() string { return "cosmos.staking.v1beta1.RedelegationResponse" }

type QueryRedelegationsRequest struct {
	DelegatorAddr    string       `pb:"1,delegator_addr"`
	SrcValidatorAddr string       `pb:"2,src_validator_addr"`
	DstValidatorAddr string       `pb:"3,dst_validator_addr"`
	Pagination       *PageRequest `pb:"4,pagination"`
}

func (QueryRedelegationsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryRedelegationsRequest"
}

type QueryRedelegationsResponse struct {
	RedelegationResponses []RedelegationResponse `pb:"1,redelegation_responses"`
	Pagination            *PageResponse          `pb:"2,pagination"`
}

func (QueryRedelegationsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryRedelegationsResponse"
}

// vRedelegation is one delegator's pending redelegations from one
// validator to another.
type vRedelegation struct {
	Delegator, Src, Dst types.Address
	Entries             []vRedelegationEntry
}

// vRedelegationEntry is one redelegation whose stake a slash of the
// source can still reach.
type vRedelegationEntry struct {
	CreationHeight int64
	CompletionTime time.Time
	InitialBalance *uint256.Int
	SharesDst      *uint256.Int // Dec
	Balance        *uint256.Int // SharesDst's worth at the destination now
	UnbondingID    uint64
}

// Redelegations groups the pending redelegation entries, of one delegator
// or (nil) of everyone, per (delegator, source, destination), each
// group's entries in the order they were made. Native shares are whole
// numbers; as Decs they are times 10^18.
func (n native) Redelegations(d *types.Address) ([]vRedelegation, error) {
	rs, ok := n.s.(backend.StakingRedelegations)
	if !ok {
		return nil, backend.ErrUnavailable
	}
	es, err := rs.Redelegations(n.at, d)
	if err != nil {
		return nil, nativeErr(err)
	}
	type trio struct{ d, src, dst types.Address }
	var out []vRedelegation
	at := map[trio]int{}
	for _, e := range es {
		k := trio{e.Delegator, e.Src, e.Dst}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, vRedelegation{Delegator: e.Delegator, Src: e.Src, Dst: e.Dst})
		}
		out[i].Entries = append(out[i].Entries, vRedelegationEntry{UnbondingID: e.ID,
			CreationHeight: int64(e.CreationHeight), CompletionTime: unixTime(e.CompletionTime),
			InitialBalance: zeroIfNil(e.Amount), SharesDst: dec(e.SharesDst), Balance: zeroIfNil(e.Balance)})
	}
	return out, nil
}

// redelegationKey is the paging key of a group listed under its
// delegator (source then destination) or under its source (delegator
// then destination), the order the Cosmos SDK's store keys give.
func redelegationKey(a, b types.Address) []byte {
	return append(append(make([]byte, 0, 2*len(a)), a[:]...), b[:]...)
}

func redelegationOf(r vRedelegation) RedelegationResponse {
	out := RedelegationResponse{
		Redelegation: Redelegation{DelegatorAddress: accAddr(r.Delegator), ValidatorSrcAddress: valAddr(r.Src),
			ValidatorDstAddress: valAddr(r.Dst), Entries: []RedelegationEntry{}},
		Entries: make([]RedelegationEntryResponse, len(r.Entries)),
	}
	for i, e := range r.Entries {
		out.Entries[i] = RedelegationEntryResponse{
			RedelegationEntry: RedelegationEntry{CreationHeight: e.CreationHeight, CompletionTime: e.CompletionTime.UTC(),
				InitialBalance: IntOf(e.InitialBalance), SharesDst: DecOf(e.SharesDst), UnbondingID: e.UnbondingID},
			Balance: IntOf(e.Balance),
		}
	}
	return out
}

// optionalAddress parses s when it is given; given tells whether it was.
func optionalAddress(prefix, what, s string) (a types.Address, given bool, err error) {
	if s == "" {
		return types.Address{}, false, nil
	}
	a, err = parseAddress(prefix, what, s)
	return a, err == nil, err
}

// Redelegations answers as the Cosmos SDK does for the combinations of
// its three addresses: all three name one redelegation (NotFound when
// there is none, and no pagination); a source validator alone lists the
// redelegations out of it, everyone's; anything else lists the
// delegator's redelegations, whatever validators are also given (the SDK
// does not filter by them), so the delegator is then required. Every
// address given must parse, even one the combination does not use.
func (q *Querier) Redelegations(ctx context.Context, r *QueryRedelegationsRequest) (*QueryRedelegationsResponse, error) {
	del, hasDel, err := optionalAddress(AccountPrefix, "delegator address", r.DelegatorAddr)
	if err != nil {
		return nil, err
	}
	src, hasSrc, err := optionalAddress(ValidatorPrefix, "source validator address", r.SrcValidatorAddr)
	if err != nil {
		return nil, err
	}
	dst, hasDst, err := optionalAddress(ValidatorPrefix, "destination validator address", r.DstValidatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case hasDel && hasSrc && hasDst:
		rs, err := st.Redelegations(&del)
		if err != nil {
			return nil, err
		}
		for _, red := range rs {
			if red.Src == src && red.Dst == dst {
				return &QueryRedelegationsResponse{RedelegationResponses: []RedelegationResponse{redelegationOf(red)}}, nil
			}
		}
		return nil, Errorf(NotFound, "redelegation not found for delegator address %s from validator address %s",
			r.DelegatorAddr, r.SrcValidatorAddr)
	case !hasDel && hasSrc && !hasDst:
		all, err := st.Redelegations(nil)
		if err != nil {
			return nil, err
		}
		var rs []vRedelegation
		for _, red := range all {
			if red.Src == src {
				rs = append(rs, red)
			}
		}
		return redelegationPage(rs, func(red vRedelegation) []byte { return redelegationKey(red.Delegator, red.Dst) }, r.Pagination)
	}
	if !hasDel {
		return nil, Errorf(InvalidArgument, "delegator address cannot be empty")
	}
	rs, err := st.Redelegations(&del)
	if err != nil {
		return nil, err
	}
	return redelegationPage(rs, func(red vRedelegation) []byte { return redelegationKey(red.Src, red.Dst) }, r.Pagination)
}

func redelegationPage(rs []vRedelegation, key func(vRedelegation) []byte, p *PageRequest) (*QueryRedelegationsResponse, error) {
	sort.Slice(rs, func(i, j int) bool { return string(key(rs[i])) < string(key(rs[j])) })
	page, pr, err := paginate(rs, key, p)
	if err != nil {
		return nil, err
	}
	out := make([]RedelegationResponse, len(page))
	for i, red := range page {
		out[i] = redelegationOf(red)
	}
	return &QueryRedelegationsResponse{RedelegationResponses: out, Pagination: pr}, nil
}
