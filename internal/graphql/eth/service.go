// Package eth serves Ethereum's GraphQL interface (EIP-1767) over the
// node's backend: the schema as Ethereum clients serve it today with the
// Cancun fields and totalDifficulty, resolvers that read only what a query
// selects, the /graphql HTTP endpoint and the /graphql/ui query page.
package eth

import (
	"context"
	_ "embed"
	"fmt"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/graphql"
	"github.com/chaind/chaind/internal/types"
)

//go:embed schema.graphql
var schemaSDL string

// Backend is what the GraphQL interface reads and runs.
type Backend interface {
	backend.Blocks
	backend.Receipts
	backend.TxIndex
	backend.Blooms
	backend.ChainConfig
	backend.StateReader
	backend.TxPool
	backend.Executor
	backend.Network
	backend.CallOutcomes
	backend.Difficulty
}

// Options bound what queries may ask for. Zero values take the defaults.
type Options struct {
	MaxBlocks uint64 // blocks of one blocks(from, to) (default 1,000)
	LogRange  uint64 // blocks one logs query scans (default 10,000)
	LogLimit  int    // logs one logs query returns (default 10,000)

	MaxDepth  int           // field nesting (default 20)
	MaxCost   int           // estimated fields resolved (default 250,000)
	Timeout   time.Duration // per query (default 10s)
	MaxValues int           // values in one response (default 1,000,000)
}

func (o *Options) defaults() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if o.MaxBlocks == 0 {
		o.MaxBlocks = 1_000
	}
	if o.LogRange == 0 {
		o.LogRange = 10_000
	}
	def(&o.LogLimit, 10_000)
	def(&o.MaxDepth, 20)
	def(&o.MaxCost, 250_000)
	def(&o.MaxValues, 1_000_000)
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
}

// Service is the GraphQL interface of one node.
type Service struct {
	b      Backend
	opts   Options
	engine *graphql.Engine
}

// New builds the service's schema and resolvers.
func New(b Backend, opts Options) (*Service, error) {
	opts.defaults()
	schema, err := graphql.ParseSchema(schemaSDL)
	if err != nil {
		return nil, fmt.Errorf("graphql schema: %w", err)
	}
	s := &Service{b: b, opts: opts}
	s.engine, err = graphql.NewEngine(schema, scalars, s.resolvers(), graphql.Limits{
		MaxDepth: opts.MaxDepth, MaxCost: opts.MaxCost, Timeout: opts.Timeout,
		MaxValues: opts.MaxValues, ListSize: s.listSize,
	})
	if err != nil {
		return nil, fmt.Errorf("graphql resolvers: %w", err)
	}
	return s, nil
}

// Engine returns the query engine, for tests and tools.
func (s *Service) Engine() *graphql.Engine { return s.engine }

// Execute runs one request.
func (s *Service) Execute(ctx context.Context, req *graphql.Request) *graphql.Response {
	return s.engine.Execute(withCache(ctx), req)
}

// listSize estimates list lengths for the query cost: a block range by its
// bounds when they are written in the query, the node's caps otherwise.
func (s *Service) listSize(typeName string, f *graphql.Field) int {
	switch typeName + "." + f.Name {
	case "Query.blocks":
		from, okF := intArgOf(f, "from")
		to, okT := intArgOf(f, "to")
		if okF && okT && to >= from && to-from < int64(s.opts.MaxBlocks) {
			return int(to-from) + 1
		}
		return int(s.opts.MaxBlocks)
	case "Block.transactions", "Pending.transactions":
		return 100
	case "Query.logs", "Block.logs", "Transaction.logs":
		return 100
	}
	return graphql.DefaultListSize
}

func intArgOf(f *graphql.Field, name string) (int64, bool) {
	for _, a := range f.Args {
		if a.Name == name && (a.Value.Kind == graphql.IntValue || a.Value.Kind == graphql.StringValue) {
			v, err := parseLong(a.Value.Raw)
			if err != nil {
				return 0, false
			}
			return int64(v.(uint64)), true
		}
	}
	return 0, false
}

// cache holds what one request has read, so that fields of the same
// block or state share one read: a block's receipts, a header's state.
type cache struct {
	mu     sync.Mutex
	blocks map[types.Hash]*blockObj
	states map[types.Hash]backend.State
}

type cacheKey struct{}

func withCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, cacheKey{}, &cache{blocks: map[types.Hash]*blockObj{}, states: map[types.Hash]backend.State{}})
}

func cacheOf(ctx context.Context) *cache {
	if c, ok := ctx.Value(cacheKey{}).(*cache); ok {
		return c
	}
	return &cache{blocks: map[types.Hash]*blockObj{}, states: map[types.Hash]backend.State{}}
}
