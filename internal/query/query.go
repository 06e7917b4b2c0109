// Package query holds the Cosmos-style query handlers the REST ("LCD")
// and gRPC interfaces both serve: bank, auth, staking, distribution,
// governance, slashing and the consensus ("tendermint") service. Each
// query is one function from a typed request message to a typed response
// message; the messages carry their proto field numbers and names (see
// internal/protobuf), so the REST JSON, the gRPC wire form and the
// reflection descriptors all come from the same declarations.
//
// The handlers read the node only through internal/backend; errors are
// *Error values with a gRPC status code, which each interface maps to its
// own form (an HTTP status and a JSON body, or grpc-status trailers).
package query

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/bech32"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// Backend is what the queries read. Fields left nil make the queries that
// need them answer Unavailable.
type Backend struct {
	Blocks backend.Blocks
	State  backend.StateReader
	// Accounts lists the addresses that held accounts, for the queries
	// that list every account or holder (nil: those answer Unavailable).
	Accounts backend.AccountIndex
	// Retention bounds the heights a query may ask for (AtHeight); nil:
	// every block's state is kept.
	Retention backend.Retention
	Config    backend.ChainConfig
	Network   backend.Network
	// Supply is the total supply of a chain without staking contracts;
	// with them, the staking state's exact count is served instead.
	Supply    backend.CosmosSupply
	Consensus backend.ConsensusSet
	// Commits reads the certificates and evidence blocks carry (nil on a
	// chain without validators): blocks' last_commit and evidence_hash.
	Commits backend.Commits
	// Signing gives blocks' times to the millisecond (nil: the headers'
	// whole seconds) and the validators' slash logs (ValidatorSlashes).
	Signing backend.Signing
	// Receipts, TxIndex and History find included transactions and their
	// results: the tx service and CometBFT's tx, tx_search and
	// block_results (nil: those answer Unavailable).
	Receipts backend.Receipts
	TxIndex  backend.TxIndex
	History  backend.History
	// BlockMaxBytes bounds a block's encoding (consensus_hash hashes it).
	BlockMaxBytes int64
	// BlockTime is the node's target time between blocks (mint's
	// blocks_per_year); 0 when blocks are made on demand.
	BlockTime time.Duration
	// Authority is the account that governance acts as: the governance
	// contract (upgrade's and gov's authority).
	Authority types.Address
	// ModuleAccounts are the system contracts that hold coins for a
	// module as the SDK's module accounts do (the staking contract the
	// bonded stake, the governance contract the deposits), under the
	// SDK's module names so a client finds them as on a Cosmos chain.
	ModuleAccounts []ModuleAccountRole
	// Staking and Governance are the chain's staking and governance
	// state, which the staking, distribution, gov and slashing queries
	// show in Cosmos' shapes.
	Staking    backend.Staking
	Governance backend.Governance

	// What GetNodeInfo tells about this node.
	NodeID     string // hex of the node's p2p identity
	ListenAddr string // its p2p address
	Moniker    string
	Version    string // the node's version ("chaind/v1.2.3/...")
	GoVersion  string
}

// Denom is the native coin's base denomination.
const Denom = "achain"

// Bech32 prefixes of account and validator-operator addresses.
const (
	AccountPrefix   = bech32.AccountPrefix
	ValidatorPrefix = bech32.ValidatorPrefix
	ConsensusPrefix = bech32.ConsensusPrefix
)

// Code is a gRPC status code.
type Code int

// The gRPC status codes the queries use.
const (
	OK               Code = 0
	Canceled         Code = 1
	Unknown          Code = 2
	InvalidArgument  Code = 3
	DeadlineExceeded Code = 4
	NotFound         Code = 5
	ResourceExhaust  Code = 8
	Unimplemented    Code = 12
	Internal         Code = 13
	Unavailable      Code = 14
)

// Error is a query failure with its gRPC status code.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Errorf makes an *Error.
func Errorf(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// AsError turns any error a handler returned into an *Error: backend
// errors get their codes, context errors theirs, anything else Internal.
func AsError(err error) *Error {
	var qe *Error
	switch {
	case errors.As(err, &qe):
		return qe
	case errors.Is(err, context.DeadlineExceeded):
		return Errorf(DeadlineExceeded, "deadline exceeded")
	case errors.Is(err, context.Canceled):
		return Errorf(Canceled, "canceled")
	case errors.Is(err, backend.ErrNotFound):
		return Errorf(NotFound, "%v", err)
	case errors.Is(err, backend.ErrUnavailable):
		return Errorf(Unavailable, "%v", err)
	}
	return Errorf(Internal, "%v", err)
}

// Method is one query: its gRPC name, its REST route and its handler.
type Method struct {
	Name string // "AllBalances"
	// Get is the REST path template ("/cosmos/bank/v1beta1/balances/{address}");
	// each {name} is a request field filled from the path. Empty: gRPC only.
	Get string
	In  protobuf.Message // zero request, for descriptors
	Out protobuf.Message // zero response
	// volatile answers change without the head changing; they are not
	// cached.
	volatile bool
	call     func(q *Querier, ctx context.Context, req protobuf.Message) (protobuf.Message, error)
}

// NewRequest returns a new, empty request message for the method.
func (m *Method) NewRequest() protobuf.Message {
	return reflect.New(reflect.TypeOf(m.In)).Interface().(protobuf.Message)
}

// Service is one gRPC service with its methods.
type Service struct {
	File    protobuf.File // the proto file defining it; Services filled in by Services
	Name    string        // fully qualified ("cosmos.bank.v1beta1.Query")
	Methods []*Method
}

// method builds a Method from a typed handler.
func method[Req, Resp any, PReq interface {
	*Req
	protobuf.Message
}, PResp interface {
	*Resp
	protobuf.Message
}](name, get string, fn func(q *Querier, ctx context.Context, req PReq) (PResp, error)) *Method {
	return &Method{
		Name: name, Get: get, In: any(*new(Req)).(protobuf.Message), Out: any(*new(Resp)).(protobuf.Message),
		call: func(q *Querier, ctx context.Context, req protobuf.Message) (protobuf.Message, error) {
			r, err := fn(q, ctx, req.(PReq))
			if err != nil {
				return nil, err
			}
			return r, nil
		},
	}
}

// Querier answers queries from a Backend.
type Querier struct {
	b        Backend
	services []*Service
	byPath   map[string]*Method // "/pkg.Service/Method"
	files    []protobuf.File
	reg      *protobuf.Registry
	cache    answerCache
	txs      txs
	modules  []ModuleVersion // ModuleVersions' answer
}

// New returns a Querier over b.
func New(b Backend) *Querier {
	q := &Querier{b: b, byPath: map[string]*Method{}}
	q.services = allServices()
	q.modules = moduleVersions(q.services)
	var files []protobuf.File
	for _, s := range q.services {
		for _, m := range s.Methods {
			q.byPath["/"+s.Name+"/"+m.Name] = m
		}
		files = append(files, s.File)
	}
	q.files = append(append(files, typeFiles...), proposalTypeFiles...)
	q.reg = protobuf.NewRegistry(q.files...)
	return q
}

// Services lists the services with their methods.
func (q *Querier) Services() []*Service { return q.services }

// Files are the proto files of every service and type, for a registry
// that describes more services (server reflection's own).
func (q *Querier) Files() []protobuf.File { return q.files }

// Registry holds the descriptors of every service and type, for
// reflection.
func (q *Querier) Registry() *protobuf.Registry { return q.reg }

// Lookup finds a method by its gRPC path ("/cosmos.bank.v1beta1.Query/Balance").
func (q *Querier) Lookup(path string) (*Method, bool) {
	m, ok := q.byPath[path]
	return m, ok
}

// Call runs m on req. The error, when not nil, is an *Error.
func (q *Querier) Call(ctx context.Context, m *Method, req protobuf.Message) (protobuf.Message, *Error) {
	if err := ctx.Err(); err != nil {
		return nil, AsError(err)
	}
	resp, err := m.call(q, ctx, req)
	if err != nil {
		return nil, AsError(err)
	}
	return resp, nil
}

// serviceName splits a fully-qualified service name into package and name.
func serviceFile(fileName, full string, messages []protobuf.Message, enums []protobuf.Enum, methods []*Method) *Service {
	i := strings.LastIndexByte(full, '.')
	s := &Service{Name: full, Methods: methods}
	ps := protobuf.Service{Name: full[i+1:]}
	for _, m := range methods {
		ps.Methods = append(ps.Methods, protobuf.Method{Name: m.Name, In: m.In, Out: m.Out})
	}
	s.File = protobuf.File{Name: fileName, Package: full[:i], Messages: messages, Enums: enums, Services: []protobuf.Service{ps}}
	return s
}
