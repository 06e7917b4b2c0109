package query

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// redelegating adds the redelegations reader to fakeNative.
type redelegating struct {
	*fakeNative
	redels []backend.RedelegationEntry
}

func (r redelegating) Redelegations(_ *uint64, d *types.Address) ([]backend.RedelegationEntry, error) {
	var out []backend.RedelegationEntry
	for _, e := range r.redels {
		if d == nil || e.Delegator == *d {
			out = append(out, e)
		}
	}
	return out, nil
}

// The native entries are grouped per (delegator, source, destination) in
// the order they were made, sorted by source then destination; shares
// become Decs; a reader without redelegations answers Unavailable.
func TestRedelegationMapping(t *testing.T) {
	a, b, c, d := types.Address{1}, types.Address{2}, types.Address{3}, types.Address{9}
	f := redelegating{fakeNative: &fakeNative{}, redels: []backend.RedelegationEntry{
		{ID: 7, Delegator: d, Src: b, Dst: a, Amount: u(5), SharesDst: u(4), Balance: u(3), CompletionTime: 100, CreationHeight: 5},
		{ID: 8, Delegator: d, Src: a, Dst: c, Amount: u(2), SharesDst: u(2), Balance: u(2), CompletionTime: 200, CreationHeight: 6},
		{ID: 9, Delegator: d, Src: b, Dst: a, Amount: u(1), SharesDst: u(1), Balance: u(1), CompletionTime: 300, CreationHeight: 7},
		{ID: 10, Delegator: a, Src: b, Dst: c, Amount: u(1), SharesDst: u(1), Balance: u(1), CompletionTime: 400, CreationHeight: 8},
	}}
	q := New(Backend{Staking: f})
	r, err := q.Redelegations(context.Background(), &QueryRedelegationsRequest{DelegatorAddr: accAddr(d)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RedelegationResponses) != 2 || r.Pagination.Total != 2 {
		t.Fatalf("%+v", r)
	}
	first, second := r.RedelegationResponses[0], r.RedelegationResponses[1]
	if first.Redelegation.ValidatorSrcAddress != valAddr(a) || len(first.Entries) != 1 ||
		second.Redelegation.ValidatorSrcAddress != valAddr(b) || len(second.Entries) != 2 {
		t.Fatalf("groups %+v", r.RedelegationResponses)
	}
	e := second.Entries[0]
	if e.RedelegationEntry.UnbondingID != 7 || e.RedelegationEntry.CreationHeight != 5 || e.RedelegationEntry.CompletionTime.Unix() != 100 ||
		e.RedelegationEntry.InitialBalance.JSONText() != "5" || e.RedelegationEntry.SharesDst.JSONText() != "4.000000000000000000" ||
		e.Balance.JSONText() != "3" || second.Entries[1].RedelegationEntry.UnbondingID != 9 {
		t.Errorf("entries %+v", second.Entries)
	}
	// Out of b, everyone's: keyed by delegator, so a's comes first.
	r, err = q.Redelegations(context.Background(), &QueryRedelegationsRequest{SrcValidatorAddr: valAddr(b)})
	if err != nil || len(r.RedelegationResponses) != 2 || r.RedelegationResponses[0].Redelegation.DelegatorAddress != accAddr(a) ||
		r.RedelegationResponses[1].Redelegation.DelegatorAddress != accAddr(d) {
		t.Fatalf("by source: %+v %v", r, err)
	}
	_, err = New(Backend{Staking: f.fakeNative}).Redelegations(context.Background(), &QueryRedelegationsRequest{DelegatorAddr: accAddr(d)})
	if AsError(err).Code != Unavailable {
		t.Errorf("without the reader: %v", err)
	}
}
