package query

import (
	"context"
	"strconv"

	"github.com/chaind/chaind/internal/protobuf"
)

// ABCI queries: a query method named by its gRPC path, on the protobuf
// request in data, at a height (0: the latest), answered with the
// protobuf response bytes and the Cosmos SDK's error codes in the answer
// rather than as a failure of the call. The CometBFT RPC's abci_query and
// the tendermint service's ABCIQuery both answer through here. (The SDK's
// own ABCIQuery service passes only app/, store/, p2p/ and custom/ paths
// to its application; chaind has no such stores, and serves the gRPC
// paths its queries answer, as CometBFT's abci_query does.) Proofs are
// refused: chaind's state is a Merkle-Patricia trie, whose proofs
// eth_getProof serves; there is no IAVL store to prove against.

// The Cosmos SDK's error codes (codespace "sdk") an ABCI query answers
// with, mapped from the query's gRPC status as the SDK's baseapp maps
// them.
const (
	SDKUnauthorized   = 4
	SDKUnknownRequest = 6
	SDKInvalidRequest = 18
	SDKKeyNotFound    = 38
)

func sdkCode(c Code) uint32 {
	switch c {
	case NotFound:
		return SDKKeyNotFound
	case InvalidArgument:
		return SDKInvalidRequest
	case 16: // UNAUTHENTICATED
		return SDKUnauthorized
	}
	return SDKUnknownRequest
}

// ErrProve refuses an ABCI query's proof.
var ErrProve = Errorf(InvalidArgument, "prove: chaind keeps no IAVL store to prove against; state proofs are served by eth_getProof on the JSON-RPC port")

type ABCIQueryRequest struct {
	Data   []byte `pb:"1,data"`
	Path   string `pb:"2,path"`
	Height int64  `pb:"3,height"`
	Prove  bool   `pb:"4,prove"`
}

func (ABCIQueryRequest) ProtoName() string { return "cosmos.base.tendermint.v1beta1.ABCIQueryRequest" }

type ProofOp struct {
	Type string `pb:"1,type"`
	Key  []byte `pb:"2,key"`
	Data []byte `pb:"3,data"`
}

func (ProofOp) ProtoName() string { return "cosmos.base.tendermint.v1beta1.ProofOp" }

type ProofOps struct {
	Ops []ProofOp `pb:"1,ops"`
}

func (ProofOps) ProtoName() string { return "cosmos.base.tendermint.v1beta1.ProofOps" }

type ABCIQueryResponse struct {
	Code      uint32    `pb:"1,code"`
	Log       string    `pb:"3,log"`
	Info      string    `pb:"4,info"`
	Index     int64     `pb:"5,index"`
	Key       []byte    `pb:"6,key"`
	Value     []byte    `pb:"7,value"`
	ProofOps  *ProofOps `pb:"8,proof_ops"`
	Height    int64     `pb:"9,height"`
	Codespace string    `pb:"10,codespace"`
}

func (ABCIQueryResponse) ProtoName() string {
	return "cosmos.base.tendermint.v1beta1.ABCIQueryResponse"
}

// abciQueryPath is the ABCIQuery method's own path, which it does not
// answer through itself.
const abciQueryPath = "/cosmos.base.tendermint.v1beta1.Service/ABCIQuery"

// ABCIQuery runs the query r names. Only a request for a proof fails the
// call (ErrProve); every other failure is the answer's code and log.
func (q *Querier) ABCIQuery(ctx context.Context, r *ABCIQueryRequest) (*ABCIQueryResponse, error) {
	if r.Prove {
		return nil, ErrProve
	}
	fail := func(code uint32, log string, h uint64) (*ABCIQueryResponse, error) {
		return &ABCIQueryResponse{Code: code, Log: log, Codespace: "sdk", Height: int64(h)}, nil
	}
	m, ok := q.Lookup(r.Path)
	if !ok || r.Path == abciQueryPath {
		return fail(SDKUnknownRequest, "unknown query path: "+r.Path, 0)
	}
	ctx, at, qerr := q.AtHeight(ctx, strconv.FormatInt(r.Height, 10))
	if qerr != nil {
		return fail(sdkCode(qerr.Code), qerr.Msg, 0)
	}
	req := m.NewRequest()
	if err := protobuf.Unmarshal(r.Data, req); err != nil {
		return fail(SDKInvalidRequest, "failed to unmarshal request: "+err.Error(), at)
	}
	resp, qerr := q.Call(ctx, m, req)
	if qerr != nil {
		return fail(sdkCode(qerr.Code), qerr.Msg, at)
	}
	return &ABCIQueryResponse{Value: protobuf.Marshal(resp), Height: int64(at)}, nil
}
