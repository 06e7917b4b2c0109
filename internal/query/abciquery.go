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
	SDKInvalidHeight  = 26
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

// abciResolve finds what r asks for: the method and the height read
// (with ctx carrying it), or the failed answer. The request in r.Data is
// decoded by abciRequest, only when the answer is not cached.
func (q *Querier) abciResolve(ctx context.Context, r *ABCIQueryRequest) (context.Context, *Method, uint64, *ABCIQueryResponse, error) {
	if r.Prove {
		return ctx, nil, 0, nil, ErrProve
	}
	fail := func(code uint32, log string, h uint64) (context.Context, *Method, uint64, *ABCIQueryResponse, error) {
		return ctx, nil, h, &ABCIQueryResponse{Code: code, Log: log, Codespace: "sdk", Height: int64(h)}, nil
	}
	m, ok := q.Lookup(r.Path)
	if !ok || r.Path == abciQueryPath {
		return fail(SDKUnknownRequest, "unknown query path: "+r.Path, 0)
	}
	raw := "" // height 0 is the head, as an absent header
	if r.Height != 0 {
		raw = strconv.FormatInt(r.Height, 10)
	}
	ctx, at, qerr := q.AtHeight(ctx, raw)
	if qerr != nil {
		return fail(sdkCode(qerr.Code), qerr.Msg, 0)
	}
	if at == 0 && q.b.Blocks != nil {
		// The genesis state is height 0, and an answer at height 0 reads as
		// no answer to CometBFT clients (cosmjs's QueryClient throws "No
		// query height returned"): refuse it as the SDK's baseapp refuses a
		// query before its first block, so the client says why.
		return fail(SDKInvalidHeight, "chaind is not ready; please wait for first block: invalid height (the chain holds only its genesis block; queries read the state of a decided block)", 0)
	}
	return ctx, m, at, nil, nil
}

// abciRequest decodes the request of m in data; a failure is
// InvalidArgument, the SDK's code for it.
func abciRequest(m *Method, data []byte) (protobuf.Message, *Error) {
	req := m.NewRequest()
	if err := protobuf.Unmarshal(data, req); err != nil {
		return nil, Errorf(InvalidArgument, "failed to unmarshal request: %v", err)
	}
	return req, nil
}

func abciFailure(qerr *Error, at uint64) *ABCIQueryResponse {
	return &ABCIQueryResponse{Code: sdkCode(qerr.Code), Log: qerr.Msg, Codespace: "sdk", Height: int64(at)}
}

// ABCIQuery runs the query r names. Only a request for a proof fails the
// call (ErrProve); every other failure is the answer's code and log.
func (q *Querier) ABCIQuery(ctx context.Context, r *ABCIQueryRequest) (*ABCIQueryResponse, error) {
	ctx, m, at, failed, err := q.abciResolve(ctx, r)
	if err != nil || failed != nil {
		return failed, err
	}
	req, qerr := abciRequest(m, r.Data)
	if qerr == nil {
		var resp protobuf.Message
		if resp, qerr = q.Call(ctx, m, req); qerr == nil {
			return &ABCIQueryResponse{Value: protobuf.Marshal(resp), Height: int64(at)}, nil
		}
	}
	return abciFailure(qerr, at), nil
}

// ABCIQueryRendered is ABCIQuery with the answer rendered by render (the
// CometBFT RPC's JSON) and, when it succeeds, kept in the answer cache
// of the head under kind with the gRPC and REST answers, so a dashboard
// polling through abci_query costs what it costs through gRPC: a lookup
// and a write (the request is decoded only to render a new answer).
func (q *Querier) ABCIQueryRendered(ctx context.Context, r *ABCIQueryRequest, kind string, render func(*ABCIQueryResponse) ([]byte, error)) ([]byte, error) {
	ctx, m, at, failed, err := q.abciResolve(ctx, r)
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return render(failed)
	}
	out, qerr := q.Cached(m, kind+" "+strconv.FormatUint(at, 10)+" "+r.Path+" "+string(r.Data), func() ([]byte, *Error) {
		req, qerr := abciRequest(m, r.Data)
		if qerr != nil {
			return nil, qerr
		}
		resp, qerr := q.Call(ctx, m, req)
		if qerr != nil {
			return nil, qerr
		}
		b, err := render(&ABCIQueryResponse{Value: protobuf.Marshal(resp), Height: int64(at)})
		if err != nil {
			return nil, AsError(err)
		}
		return b, nil
	})
	if qerr != nil {
		return render(abciFailure(qerr, at))
	}
	return out, nil
}
