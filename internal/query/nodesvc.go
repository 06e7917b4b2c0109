package query

import (
	"context"
	"strconv"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
)

// cosmos.base.node.v1beta1.Service: what the node serves from and how it
// is configured.

type ConfigRequest struct{}

func (ConfigRequest) ProtoName() string { return "cosmos.base.node.v1beta1.ConfigRequest" }

// ConfigResponse: minimum_gas_price is the least a transaction must offer
// per gas to enter the next block — that block's base fee, a DecCoins
// string as the SDK renders its own minimum; pruning_keep_recent the
// blocks whose state the node keeps ("0": every block's); the node has no
// pruning interval setting (it prunes as blocks arrive) and no halt
// height.
type ConfigResponse struct {
	MinimumGasPrice   string `pb:"1,minimum_gas_price"`
	PruningKeepRecent string `pb:"2,pruning_keep_recent"`
	PruningInterval   string `pb:"3,pruning_interval"`
	HaltHeight        uint64 `pb:"4,halt_height"`
}

func (ConfigResponse) ProtoName() string { return "cosmos.base.node.v1beta1.ConfigResponse" }

type StatusRequest struct{}

func (StatusRequest) ProtoName() string { return "cosmos.base.node.v1beta1.StatusRequest" }

// StatusResponse describes the head: earliest_store_height is the lowest
// block whose state the node still keeps.
type StatusResponse struct {
	EarliestStoreHeight uint64    `pb:"1,earliest_store_height"`
	Height              uint64    `pb:"2,height"`
	Timestamp           time.Time `pb:"3,timestamp"`
	AppHash             []byte    `pb:"4,app_hash"`
	ValidatorHash       []byte    `pb:"5,validator_hash"`
}

func (StatusResponse) ProtoName() string { return "cosmos.base.node.v1beta1.StatusResponse" }

func nodeService() *Service {
	return serviceFile("cosmos/base/node/v1beta1/query.proto", "cosmos.base.node.v1beta1.Service",
		[]protobuf.Message{ConfigRequest{}, ConfigResponse{}, StatusRequest{}, StatusResponse{}},
		nil,
		[]*Method{
			method("Config", "/cosmos/base/node/v1beta1/config", (*Querier).Config),
			method("Status", "/cosmos/base/node/v1beta1/status", (*Querier).Status),
		})
}

// Config describes the node's settings.
func (q *Querier) Config(context.Context, *ConfigRequest) (*ConfigResponse, error) {
	if q.b.Blocks == nil || q.b.Config == nil {
		return nil, backend.ErrUnavailable
	}
	out := &ConfigResponse{PruningKeepRecent: "0"}
	if fee := q.b.Config.NextBaseFee(q.b.Blocks.Head().Header()); fee != nil {
		d := DecFromInt(fee)
		out.MinimumGasPrice = d.JSONText() + Denom
	}
	if q.b.Retention != nil {
		out.PruningKeepRecent = strconv.FormatUint(q.b.Retention.StateRetention(), 10)
	}
	return out, nil
}

// Status describes the head block.
func (q *Querier) Status(context.Context, *StatusRequest) (*StatusResponse, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	h := q.b.Blocks.Head().Header()
	return &StatusResponse{EarliestStoreHeight: q.OldestState(), Height: h.Number, Timestamp: q.BlockTime(h),
		AppHash: h.Root[:], ValidatorHash: q.validatorsHash(h.Number)}, nil
}
