package query

import (
	"context"
	"time"

	"github.com/chaind/chaind/internal/protobuf"
)

type ValidatorSigningInfo struct {
	Address             string    `pb:"1,address"`
	StartHeight         int64     `pb:"2,start_height"`
	IndexOffset         int64     `pb:"3,index_offset"`
	JailedUntil         time.Time `pb:"4,jailed_until"`
	Tombstoned          bool      `pb:"5,tombstoned"`
	MissedBlocksCounter int64     `pb:"6,missed_blocks_counter"`
}

func (ValidatorSigningInfo) ProtoName() string { return "cosmos.slashing.v1beta1.ValidatorSigningInfo" }

// SlashingParams' decimals are proto bytes holding the decimal's wire
// text.
type SlashingParams struct {
	SignedBlocksWindow      int64         `pb:"1,signed_blocks_window"`
	MinSignedPerWindow      DecBytes      `pb:"2,min_signed_per_window"`
	DowntimeJailDuration    time.Duration `pb:"3,downtime_jail_duration"`
	SlashFractionDoubleSign DecBytes      `pb:"4,slash_fraction_double_sign"`
	SlashFractionDowntime   DecBytes      `pb:"5,slash_fraction_downtime"`
}

func (SlashingParams) ProtoName() string { return "cosmos.slashing.v1beta1.Params" }

type QuerySlashingParamsRequest struct{}

func (QuerySlashingParamsRequest) ProtoName() string {
	return "cosmos.slashing.v1beta1.QueryParamsRequest"
}

type QuerySlashingParamsResponse struct {
	Params SlashingParams `pb:"1,params"`
}

func (QuerySlashingParamsResponse) ProtoName() string {
	return "cosmos.slashing.v1beta1.QueryParamsResponse"
}

type QuerySigningInfoRequest struct {
	ConsAddress string `pb:"1,cons_address"`
}

func (QuerySigningInfoRequest) ProtoName() string {
	return "cosmos.slashing.v1beta1.QuerySigningInfoRequest"
}

type QuerySigningInfoResponse struct {
	ValSigningInfo ValidatorSigningInfo `pb:"1,val_signing_info"`
}

func (QuerySigningInfoResponse) ProtoName() string {
	return "cosmos.slashing.v1beta1.QuerySigningInfoResponse"
}

type QuerySigningInfosRequest struct {
	Pagination *PageRequest `pb:"1,pagination"`
}

func (QuerySigningInfosRequest) ProtoName() string {
	return "cosmos.slashing.v1beta1.QuerySigningInfosRequest"
}

type QuerySigningInfosResponse struct {
	Info       []ValidatorSigningInfo `pb:"1,info"`
	Pagination *PageResponse          `pb:"2,pagination"`
}

func (QuerySigningInfosResponse) ProtoName() string {
	return "cosmos.slashing.v1beta1.QuerySigningInfosResponse"
}

func slashingService() *Service {
	return serviceFile("cosmos/slashing/v1beta1/query.proto", "cosmos.slashing.v1beta1.Query",
		[]protobuf.Message{ValidatorSigningInfo{}, SlashingParams{}, QuerySlashingParamsRequest{}, QuerySlashingParamsResponse{},
			QuerySigningInfoRequest{}, QuerySigningInfoResponse{}, QuerySigningInfosRequest{}, QuerySigningInfosResponse{}},
		nil,
		[]*Method{
			method("Params", "/cosmos/slashing/v1beta1/params", (*Querier).SlashingParams),
			method("SigningInfo", "/cosmos/slashing/v1beta1/signing_infos/{cons_address}", (*Querier).SigningInfo),
			method("SigningInfos", "/cosmos/slashing/v1beta1/signing_infos", (*Querier).SigningInfos),
		})
}

func signingInfoOf(s vSigningInfo) ValidatorSigningInfo {
	return ValidatorSigningInfo{Address: Bech32(ConsensusPrefix, s.Address), StartHeight: s.StartHeight,
		IndexOffset: s.IndexOffset, JailedUntil: s.JailedUntil.UTC(), Tombstoned: s.Tombstoned,
		MissedBlocksCounter: s.MissedBlocksCounter}
}

// SlashingParams returns the slashing rules: the missed-blocks window,
// the jail time and the slash fractions.
func (q *Querier) SlashingParams(ctx context.Context, _ *QuerySlashingParamsRequest) (*QuerySlashingParamsResponse, error) {
	s, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.SlashingRules()
	if err != nil {
		return nil, err
	}
	return &QuerySlashingParamsResponse{Params: SlashingParams{SignedBlocksWindow: p.SignedBlocksWindow,
		MinSignedPerWindow: DecBytes{DecOf(p.MinSignedPerWindow)}, DowntimeJailDuration: p.DowntimeJailDuration,
		SlashFractionDoubleSign: DecBytes{DecOf(p.SlashFractionDoubleSign)}, SlashFractionDowntime: DecBytes{DecOf(p.SlashFractionDowntime)}}}, nil
}

// SigningInfo returns one validator's liveness record.
func (q *Querier) SigningInfo(ctx context.Context, r *QuerySigningInfoRequest) (*QuerySigningInfoResponse, error) {
	a, err := parseAddress(ConsensusPrefix, "consensus address", r.ConsAddress)
	if err != nil {
		return nil, err
	}
	s, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	info, err := s.SigningInfo(a)
	if err != nil {
		return nil, notFound(err, "SigningInfo not found for validator %s", r.ConsAddress)
	}
	return &QuerySigningInfoResponse{ValSigningInfo: signingInfoOf(info)}, nil
}

// SigningInfos lists every validator's liveness record.
func (q *Querier) SigningInfos(ctx context.Context, r *QuerySigningInfosRequest) (*QuerySigningInfosResponse, error) {
	s, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.SigningInfos()
	if err != nil {
		return nil, err
	}
	page, pr, err := paginate(all, func(i vSigningInfo) []byte { return addrKey(i.Address) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]ValidatorSigningInfo, len(page))
	for i, info := range page {
		out[i] = signingInfoOf(info)
	}
	return &QuerySigningInfosResponse{Info: out, Pagination: pr}, nil
}
