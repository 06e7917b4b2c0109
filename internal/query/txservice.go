package query

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query/eventquery"
	"github.com/chaind/chaind/internal/types"
)

// cosmos.tx.v1beta1.Service: the chain's transactions as Cosmos EVM
// serves them (a MsgEthereumTx in a Tx, CosmosTx), with the results and
// events of TxResult. Transactions enter chaind as Ethereum transactions,
// so Simulate and BroadcastTx are refused with a pointer to the JSON-RPC
// methods that do their work.

// OrderBy is cosmos.tx.v1beta1.OrderBy.
type OrderBy int32

func (OrderBy) EnumDescriptor() (string, []string) {
	return "cosmos.tx.v1beta1.OrderBy", []string{"ORDER_BY_UNSPECIFIED", "ORDER_BY_ASC", "ORDER_BY_DESC"}
}

// BroadcastMode is cosmos.tx.v1beta1.BroadcastMode.
type BroadcastMode int32

func (BroadcastMode) EnumDescriptor() (string, []string) {
	return "cosmos.tx.v1beta1.BroadcastMode", []string{"BROADCAST_MODE_UNSPECIFIED", "BROADCAST_MODE_BLOCK",
		"BROADCAST_MODE_SYNC", "BROADCAST_MODE_ASYNC"}
}

// Tx is a decoded transaction: its body, auth info and signatures (none:
// the Ethereum signature is inside the MsgEthereumTx).
type Tx struct {
	Body       *TxBody   `pb:"1,body"`
	AuthInfo   *AuthInfo `pb:"2,auth_info"`
	Signatures [][]byte  `pb:"3,signatures"`
}

func (Tx) ProtoName() string { return "cosmos.tx.v1beta1.Tx" }

type StringAttribute struct {
	Key   string `pb:"1,key"`
	Value string `pb:"2,value"`
}

func (StringAttribute) ProtoName() string { return "cosmos.base.abci.v1beta1.Attribute" }

type StringEvent struct {
	Type       string            `pb:"1,type"`
	Attributes []StringAttribute `pb:"2,attributes"`
}

func (StringEvent) ProtoName() string { return "cosmos.base.abci.v1beta1.StringEvent" }

type ABCIMessageLog struct {
	MsgIndex uint32        `pb:"1,msg_index"`
	Log      string        `pb:"2,log"`
	Events   []StringEvent `pb:"3,events"`
}

func (ABCIMessageLog) ProtoName() string { return "cosmos.base.abci.v1beta1.ABCIMessageLog" }

// TxResponse is an included transaction with its result, as the SDK v0.50
// reports it: logs and raw_log are empty there (the events carry what they
// did), and so they are here.
type TxResponse struct {
	Height    int64            `pb:"1,height"`
	TxHash    string           `pb:"2,txhash"`
	Codespace string           `pb:"3,codespace"`
	Code      uint32           `pb:"4,code"`
	Data      string           `pb:"5,data"`
	RawLog    string           `pb:"6,raw_log"`
	Logs      []ABCIMessageLog `pb:"7,logs"`
	Info      string           `pb:"8,info"`
	GasWanted int64            `pb:"9,gas_wanted"`
	GasUsed   int64            `pb:"10,gas_used"`
	Tx        *protobuf.Any    `pb:"11,tx"`
	Timestamp string           `pb:"12,timestamp"`
	Events    []Event          `pb:"13,events"`
}

func (TxResponse) ProtoName() string { return "cosmos.base.abci.v1beta1.TxResponse" }

type GetTxRequest struct {
	Hash string `pb:"1,hash"`
}

func (GetTxRequest) ProtoName() string { return "cosmos.tx.v1beta1.GetTxRequest" }

type GetTxResponse struct {
	Tx         *Tx         `pb:"1,tx"`
	TxResponse *TxResponse `pb:"2,tx_response"`
}

func (GetTxResponse) ProtoName() string { return "cosmos.tx.v1beta1.GetTxResponse" }

type GetTxsEventRequest struct {
	Events     []string     `pb:"1,events"`
	Pagination *PageRequest `pb:"2,pagination"`
	OrderBy    OrderBy      `pb:"3,order_by"`
	Page       uint64       `pb:"4,page"`
	Limit      uint64       `pb:"5,limit"`
	Query      string       `pb:"6,query"`
}

func (GetTxsEventRequest) ProtoName() string { return "cosmos.tx.v1beta1.GetTxsEventRequest" }

type GetTxsEventResponse struct {
	Txs         []Tx          `pb:"1,txs"`
	TxResponses []TxResponse  `pb:"2,tx_responses"`
	Pagination  *PageResponse `pb:"3,pagination"`
	Total       uint64        `pb:"4,total"`
}

func (GetTxsEventResponse) ProtoName() string { return "cosmos.tx.v1beta1.GetTxsEventResponse" }

type GetBlockWithTxsRequest struct {
	Height     int64        `pb:"1,height"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (GetBlockWithTxsRequest) ProtoName() string { return "cosmos.tx.v1beta1.GetBlockWithTxsRequest" }

type GetBlockWithTxsResponse struct {
	Txs        []Tx          `pb:"1,txs"`
	BlockID    *BlockID      `pb:"2,block_id"`
	Block      *TMBlock      `pb:"3,block"`
	Pagination *PageResponse `pb:"4,pagination"`
}

func (GetBlockWithTxsResponse) ProtoName() string { return "cosmos.tx.v1beta1.GetBlockWithTxsResponse" }

type SimulateRequest struct {
	Tx      *Tx    `pb:"1,tx"`
	TxBytes []byte `pb:"2,tx_bytes"`
}

func (SimulateRequest) ProtoName() string { return "cosmos.tx.v1beta1.SimulateRequest" }

type GasInfo struct {
	GasWanted uint64 `pb:"1,gas_wanted"`
	GasUsed   uint64 `pb:"2,gas_used"`
}

func (GasInfo) ProtoName() string { return "cosmos.base.abci.v1beta1.GasInfo" }

// Result is what running a Cosmos transaction's messages gave: Simulate's
// answer (which chaind refuses) declares it.
type Result struct {
	Data         []byte          `pb:"1,data"` // deprecated in the SDK: msg_responses carry it
	Log          string          `pb:"2,log"`
	Events       []Event         `pb:"3,events"`
	MsgResponses []*protobuf.Any `pb:"4,msg_responses"`
}

func (Result) ProtoName() string { return "cosmos.base.abci.v1beta1.Result" }

type SimulateResponse struct {
	GasInfo *GasInfo `pb:"1,gas_info"`
	Result  *Result  `pb:"2,result"`
}

func (SimulateResponse) ProtoName() string { return "cosmos.tx.v1beta1.SimulateResponse" }

type BroadcastTxRequest struct {
	TxBytes []byte        `pb:"1,tx_bytes"`
	Mode    BroadcastMode `pb:"2,mode"`
}

func (BroadcastTxRequest) ProtoName() string { return "cosmos.tx.v1beta1.BroadcastTxRequest" }

type BroadcastTxResponse struct {
	TxResponse *TxResponse `pb:"1,tx_response"`
}

func (BroadcastTxResponse) ProtoName() string { return "cosmos.tx.v1beta1.BroadcastTxResponse" }

func txService() *Service {
	return serviceFile("cosmos/tx/v1beta1/service.proto", "cosmos.tx.v1beta1.Service",
		append([]protobuf.Message{Tx{}, GetTxRequest{}, GetTxResponse{}, GetTxsEventRequest{}, GetTxsEventResponse{},
			GetBlockWithTxsRequest{}, GetBlockWithTxsResponse{}, SimulateRequest{}, SimulateResponse{},
			BroadcastTxRequest{}, BroadcastTxResponse{}}, txCodecMessages...),
		[]protobuf.Enum{OrderBy(0), BroadcastMode(0)},
		append([]*Method{
			method("Simulate", "", (*Querier).Simulate),
			method("GetTx", "/cosmos/tx/v1beta1/txs/{hash}", (*Querier).GetTx),
			method("BroadcastTx", "", (*Querier).BroadcastTx),
			method("GetTxsEvent", "/cosmos/tx/v1beta1/txs", (*Querier).GetTxsEvent),
			method("GetBlockWithTxs", "/cosmos/tx/v1beta1/txs/block/{height}", (*Querier).GetBlockWithTxs),
		}, txCodecMethods()...))
}

// errEthereumOnly refuses the methods that would take a Cosmos
// transaction.
func errEthereumOnly(method string) error {
	return Errorf(Unimplemented, "%s: chaind takes transactions as Ethereum transactions: send them with eth_sendRawTransaction on the JSON-RPC port (eth_estimateGas estimates their gas)", method)
}

// Simulate is refused: see errEthereumOnly.
func (q *Querier) Simulate(context.Context, *SimulateRequest) (*SimulateResponse, error) {
	return nil, errEthereumOnly("Simulate")
}

// BroadcastTx is refused: see errEthereumOnly.
func (q *Querier) BroadcastTx(context.Context, *BroadcastTxRequest) (*BroadcastTxResponse, error) {
	return nil, errEthereumOnly("BroadcastTx")
}

// decodedTx is t's transaction as the tx service shows it.
func decodedTx(t *TxResult) Tx {
	return Tx{Body: &t.Body, AuthInfo: &t.AuthInfo, Signatures: [][]byte{}}
}

// txResponse is t with its result, in a block of time at. The timestamp
// is RFC 3339 in whole seconds, as the SDK formats it (time.RFC3339),
// though the block's own time carries milliseconds.
func txResponse(t *TxResult, at time.Time) TxResponse {
	tx := decodedTx(t)
	return TxResponse{Height: int64(t.Height), TxHash: fmt.Sprintf("%X", t.Hash[:]),
		Data: strings.ToUpper(hex.EncodeToString(EthTxResultData(t.Receipt))), Logs: []ABCIMessageLog{},
		GasWanted: int64(t.Tx.Gas()), GasUsed: int64(t.Receipt.GasUsed), Tx: &protobuf.Any{Msg: tx},
		Timestamp: at.Format(time.RFC3339), Events: t.Events}
}

// txTime is the time of the block holding t.
func (q *Querier) txTime(t *TxResult) (time.Time, error) {
	b, err := q.b.Blocks.BlockByNumber(t.Height)
	if err != nil {
		return time.Time{}, err
	}
	return q.BlockTime(b.HeaderRef()), nil
}

// GetTx finds a transaction by its CometBFT hash (hex, as txhash shows it)
// or its Ethereum hash (0x hex).
func (q *Querier) GetTx(_ context.Context, r *GetTxRequest) (*GetTxResponse, error) {
	if r.Hash == "" {
		return nil, Errorf(InvalidArgument, "tx hash cannot be empty")
	}
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(r.Hash, "0x"), "0X"))
	if err != nil || len(b) != len(types.Hash{}) {
		return nil, Errorf(InvalidArgument, "invalid tx hash %q: want 32 bytes of hex", r.Hash)
	}
	t, err := q.TxByHash(types.Hash(b))
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, Errorf(NotFound, "tx not found: %s", r.Hash)
	}
	at, err := q.txTime(t)
	if err != nil {
		return nil, err
	}
	tx, resp := decodedTx(t), txResponse(t, at)
	return &GetTxResponse{Tx: &tx, TxResponse: &resp}, nil
}

// maxTxsPage is the most transactions one GetTxsEvent page holds,
// CometBFT's tx_search limit.
const maxTxsPage = 100

// GetTxsEvent searches transactions by their events, as tx_search does:
// query (or the deprecated events, joined by AND), page from 1, limit
// (default 100, at most 100), newest first with ORDER_BY_DESC.
func (q *Querier) GetTxsEvent(_ context.Context, r *GetTxsEventRequest) (*GetTxsEventResponse, error) {
	qs := r.Query
	if qs == "" {
		qs = strings.Join(r.Events, " AND ")
	}
	if qs == "" {
		return nil, Errorf(InvalidArgument, "query cannot be empty")
	}
	eq, err := eventquery.Parse(qs)
	if err != nil {
		return nil, Errorf(InvalidArgument, "%v", err)
	}
	if err := CheckKeys(eq, TxSearchKeys, "GetTxsEvent"); err != nil {
		return nil, err
	}
	page, limit := max(r.Page, 1), r.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	limit = min(limit, maxTxsPage)
	window := func(total int) (int, int, error) {
		lo := (page - 1) * limit
		if lo > uint64(total) {
			return 0, 0, Errorf(InvalidArgument, "page %d is past the last of %d transactions at %d a page", page, total, limit)
		}
		return int(lo), int(min(lo+limit, uint64(total))), nil
	}
	list, total, err := q.TxSearch(eq, window, r.OrderBy == 2)
	if err != nil {
		return nil, err
	}
	out := &GetTxsEventResponse{Txs: make([]Tx, len(list)), TxResponses: make([]TxResponse, len(list)), Total: uint64(total)}
	for i, t := range list {
		at, err := q.txTime(t)
		if err != nil {
			return nil, err
		}
		out.Txs[i], out.TxResponses[i] = decodedTx(t), txResponse(t, at)
	}
	return out, nil
}

// GetBlockWithTxs is a block with its transactions decoded, a page of
// them (offset and limit) at a time; pagination.reverse lists them last
// first, the offset counting from the last, as PageRequest's reverse means
// everywhere else. (The SDK's own loop walks down from index offset and
// never reaches index 0, so with offset 0 it lists nothing: chaind does not
// copy that.)
func (q *Querier) GetBlockWithTxs(_ context.Context, r *GetBlockWithTxsRequest) (*GetBlockWithTxsResponse, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	head := q.b.Blocks.Head().Number()
	if r.Height < 1 || uint64(r.Height) > head {
		return nil, Errorf(InvalidArgument, "requested height %d but height must not be less than 1 or greater than the current height %d", r.Height, head)
	}
	b, err := q.b.Blocks.BlockByNumber(uint64(r.Height))
	if err != nil {
		return nil, err
	}
	id, tm, _, err := q.block(b)
	if err != nil {
		return nil, err
	}
	rs, err := q.BlockTxResults(b)
	if err != nil {
		return nil, err
	}
	offset, limit, reverse := uint64(0), uint64(DefaultLimit), false
	if p := r.Pagination; p != nil {
		offset, reverse = p.Offset, p.Reverse
		if p.Limit != 0 {
			limit = p.Limit
		}
	}
	n := uint64(len(rs))
	if offset >= n && n != 0 {
		return nil, Errorf(InvalidArgument, "out of range: cannot paginate %d txs with offset %d and limit %d", n, offset, limit)
	}
	out := &GetBlockWithTxsResponse{Txs: []Tx{}, BlockID: id, Block: tm, Pagination: &PageResponse{Total: n}}
	for i := offset; i < n && uint64(len(out.Txs)) < limit; i++ {
		j := i
		if reverse {
			j = n - 1 - i
		}
		out.Txs = append(out.Txs, decodedTx(&rs[j]))
	}
	return out, nil
}
