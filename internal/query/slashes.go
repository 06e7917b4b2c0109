package query

import (
	"context"
	"encoding/binary"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/holiman/uint256"
)

// Distribution's ValidatorSlashes, from the slash log the staking rules
// keep per validator (every penalty, with the block that applied it and
// the fraction taken: internal/staking's slash log, read through
// backend.Signing). The SDK keys its slash events by height and the
// validator period the slash ended; chaind keeps no distribution periods,
// so a slash's period is its place in the validator's log, from 1 (the
// SDK's periods also count up by one at each slash). starting_height and
// ending_height bound the height of the slash, as their names say (the
// SDK compares them with the period). The paging key is the SDK's layout:
// the height and the period, 8 big-endian bytes each.

type QueryValidatorSlashesRequest struct {
	ValidatorAddress string       `pb:"1,validator_address"`
	StartingHeight   uint64       `pb:"2,starting_height"`
	EndingHeight     uint64       `pb:"3,ending_height"`
	Pagination       *PageRequest `pb:"4,pagination"`
}

func (QueryValidatorSlashesRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorSlashesRequest"
}

type QueryValidatorSlashesResponse struct {
	Slashes    []ValidatorSlashEvent `pb:"1,slashes"`
	Pagination *PageResponse         `pb:"2,pagination"`
}

func (QueryValidatorSlashesResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorSlashesResponse"
}

// ValidatorSlashEvent is one slash: the period it ended and the fraction
// of stake taken.
type ValidatorSlashEvent struct {
	ValidatorPeriod uint64 `pb:"1,validator_period"`
	Fraction        Dec    `pb:"2,fraction"`
}

func (ValidatorSlashEvent) ProtoName() string {
	return "cosmos.distribution.v1beta1.ValidatorSlashEvent"
}

var slashMessages = []protobuf.Message{QueryValidatorSlashesRequest{}, QueryValidatorSlashesResponse{}, ValidatorSlashEvent{}}

func slashMethod() *Method {
	return method("ValidatorSlashes", "/cosmos/distribution/v1beta1/validators/{validator_address}/slashes", (*Querier).ValidatorSlashes)
}

// slashAt is a slash with the height that applied it.
type slashAt struct {
	height uint64
	ev     ValidatorSlashEvent
}

// slashKey is a slash's paging key: its height and period.
func slashKey(s slashAt) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, s.height), s.ev.ValidatorPeriod)
}

// ValidatorSlashes lists a validator's slashes whose height is within
// [starting_height, ending_height], oldest first.
func (q *Querier) ValidatorSlashes(ctx context.Context, r *QueryValidatorSlashesRequest) (*QueryValidatorSlashesResponse, error) {
	if r.ValidatorAddress == "" {
		return nil, Errorf(InvalidArgument, "empty validator address")
	}
	if r.EndingHeight < r.StartingHeight {
		return nil, Errorf(InvalidArgument, "starting height greater than ending height (%d > %d)", r.StartingHeight, r.EndingHeight)
	}
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddress)
	if err != nil {
		return nil, err
	}
	n, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	if q.b.Signing == nil {
		return nil, backend.ErrUnavailable
	}
	evs, err := q.b.Signing.SlashEvents(n.at, op)
	if err != nil {
		return nil, nativeErr(err)
	}
	var matched []slashAt
	for i, e := range evs {
		if e.Height < r.StartingHeight || e.Height > r.EndingHeight {
			continue
		}
		frac := new(uint256.Int).Mul(uint256.NewInt(e.PPM), ppmUnit)
		matched = append(matched, slashAt{height: e.Height, ev: ValidatorSlashEvent{ValidatorPeriod: uint64(i) + 1, Fraction: DecOf(frac)}})
	}
	page, pr, err := paginate(matched, slashKey, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := &QueryValidatorSlashesResponse{Slashes: make([]ValidatorSlashEvent, len(page)), Pagination: pr}
	for i, s := range page {
		out.Slashes[i] = s.ev
	}
	return out, nil
}
