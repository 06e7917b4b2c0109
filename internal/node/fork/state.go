package fork

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// Config makes a development node a fork of another chain (its state
// read lazily from the upstream's JSON-RPC endpoint, as anvil does) and
// lets it be reset.
type Config struct {
	URL     string  // upstream JSON-RPC endpoint; empty: no fork
	Block   *uint64 // fork block; nil: the upstream's latest block at start
	ChainID uint64  // chain ID of a new fork; 0: the upstream's
	// Reset serves anvil_reset and hardhat_reset (development nodes only).
	Reset bool
}

// State is a node's fork bookkeeping: the genesis it started from and the
// upstream it follows now. It is the chain's state.Remote: the chain asks
// it for the state its store lacks, and it asks the upstream it follows,
// so the chain, the node's view (chainview) and every reader behind it
// know one upstream, replaced in one place by a re-fork.
type State struct {
	mu   sync.Mutex             // serialises resets (Lock)
	base chain.Genesis          // the genesis before any fork was applied to it
	up   atomic.Pointer[Client] // nil: the chain is no fork
	keptState
}

// Open prepares g for a fork (Prepare), with a deadline for the upstream.
func Open(g *chain.Genesis, cfg Config, kv Store, log *slog.Logger) (*State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*Timeout)
	defer cancel()
	return Prepare(ctx, g, cfg, kv, log)
}

// Prepare turns g into a fork genesis when cfg asks for one, or
// reconnects a stored fork genesis to its upstream. It changes g (and
// replaces its Config when the fork takes another chain ID). What the
// fork reads of the fork block is kept in kv (BlockContents; nil: not
// kept).
func Prepare(ctx context.Context, g *chain.Genesis, cfg Config, kv Store, log *slog.Logger) (*State, error) {
	fs := &State{base: *g, keptState: keptState{store: kv}}
	fs.base.Alloc = maps.Clone(g.Alloc) // a fork genesis rewrites its own
	switch {
	case g.Fork != nil:
		url := g.Fork.URL
		if cfg.URL != "" {
			url = cfg.URL
		}
		if b := cfg.Block; b != nil && *b != uint64(g.Fork.Number) {
			return nil, fmt.Errorf("the data directory holds a fork of block %d; use another --datadir to fork block %d", g.Fork.Number, *b)
		}
		// Not dialled: what was fetched before is in the store, and
		// proofs of the rest are checked against the stored state root.
		up := Pinned(url, Block{Number: uint64(g.Fork.Number), Hash: g.Fork.Hash, StateRoot: g.Fork.StateRoot})
		g.Fork.Remote = fs
		fs.up.Store(up)
	case cfg.URL != "":
		up, err := Dial(ctx, cfg.URL, cfg.Block)
		if err != nil {
			return nil, err
		}
		id := cfg.ChainID
		if id == 0 {
			id = up.ChainID
		}
		conf := *g.Config
		conf.ChainID = id
		g.Config = &conf
		fs.base.Config = &conf
		if err := Genesis(ctx, g, up); err != nil {
			return nil, err
		}
		g.Fork.Remote = fs
		fs.up.Store(up)
		fs.keepBlock(ctx, log)
		log.Info("forking", "upstream", up.URL(), "block", up.Block.Number, "hash", up.Block.Hash, "chainId", id)
	}
	return fs, nil
}

// Upstream returns the client of the chain's fork upstream (nil: no fork).
func (s *State) Upstream() *Client { return s.up.Load() }

// ErrNoUpstream is returned by Prove and Code when the chain follows no
// upstream (it was reset to a chain that is no fork).
var ErrNoUpstream = errors.New("fork: the chain follows no upstream")

// Prove implements state.Remote with the upstream followed now.
func (s *State) Prove(addr types.Address, slots []types.Hash) ([][]byte, error) {
	up := s.up.Load()
	if up == nil {
		return nil, ErrNoUpstream
	}
	return up.Prove(addr, slots)
}

// Code implements state.Remote with the upstream followed now.
func (s *State) Code(addr types.Address, codeHash types.Hash) ([]byte, error) {
	up := s.up.Load()
	if up == nil {
		return nil, ErrNoUpstream
	}
	return up.Code(addr, codeHash)
}

// Lock serialises resets; Unlock ends one.
func (s *State) Lock()   { s.mu.Lock() }
func (s *State) Unlock() { s.mu.Unlock() }

// ErrResetUpstream wraps a failure to reach the upstream of a re-fork;
// the chain is then left as it was.
var ErrResetUpstream = errors.New("reset")

// Refork dials url and lays out the genesis of a fork of its block (nil:
// its latest) over the node's starting genesis, keeping cfg, the chain's
// config. Nothing changes until the caller resets the chain to it (Reset).
func (s *State) Refork(ctx context.Context, url string, block *uint64, cfg *chain.Config) (*chain.Genesis, *Client, error) {
	up, err := Dial(ctx, url, block)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrResetUpstream, err)
	}
	ng := s.base
	ng.Alloc = maps.Clone(s.base.Alloc)
	conf := *s.base.Config
	ng.Config = &conf
	if err := Genesis(ctx, &ng, up); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrResetUpstream, err)
	}
	// The chain keeps its config; its engine adds the system contracts,
	// whose genesis state depends on the genesis time the fork point
	// moved (Chain.Reset).
	ng.Config = cfg
	ng.Fork.Remote = s
	return &ng, up, nil
}

// Reset runs reset, which resets the chain to g (nil: to its own
// genesis), with up (from Refork, with g) followed: the new genesis's
// state is read through s from up. When reset fails the upstream followed
// before is followed again, as the chain is left as it was.
func (s *State) Reset(ctx context.Context, g *chain.Genesis, up *Client, reset func(*chain.Genesis) error, log *slog.Logger) error {
	if g == nil {
		return reset(nil)
	}
	prev := s.up.Swap(up)
	err := reset(g)
	if err != nil {
		s.up.Store(prev)
		return err
	}
	s.keepBlock(ctx, log)
	return nil
}

// keepBlock keeps the new fork block's contents (read when its genesis
// was laid out) in the store now, so a restart before anything read them
// still shows the block. A failure does not stop the fork: the block is
// asked for again when read.
func (s *State) keepBlock(ctx context.Context, log *slog.Logger) {
	if up := s.up.Load(); up == nil || up.Block.Header == nil {
		return // the genesis is a local block on top of the fork block
	}
	if _, _, _, err := s.BlockContents(ctx); err != nil {
		log.Warn("fork block not read yet; it is asked for again when read", "err", err)
	}
}

// ResetRequest is what anvil_reset and hardhat_reset ask: a fresh start
// (URL empty), or a fork of URL at Block (nil: its latest).
type ResetRequest struct {
	URL   string
	Block *uint64
}

// ParseReset reads the parameter of anvil_reset and hardhat_reset; a
// re-fork that names no URL keeps current's (nil: the node is no fork).
func ParseReset(p rpc.Params, current *Client) (ResetRequest, error) {
	var rp struct {
		Forking *struct {
			JSONRPCURL  string          `json:"jsonRpcUrl"`
			BlockNumber json.RawMessage `json:"blockNumber"` // a number or a hex quantity
		} `json:"forking"`
	}
	if _, err := p.Optional(0, &rp); err != nil {
		return ResetRequest{}, err
	}
	if rp.Forking == nil {
		return ResetRequest{}, nil
	}
	var req ResetRequest
	if raw := strings.TrimSpace(string(rp.Forking.BlockNumber)); raw != "" && raw != "null" {
		v, err := parseBlockNumber(raw)
		if err != nil {
			return ResetRequest{}, rpc.InvalidParams(0, fmt.Errorf("forking.blockNumber: %w", err))
		}
		req.Block = &v
	}
	req.URL = rp.Forking.JSONRPCURL
	if req.URL == "" {
		if current == nil {
			return ResetRequest{}, rpc.InvalidParams(0, errors.New("forking.jsonRpcUrl is required: this node is no fork"))
		}
		req.URL = current.URL()
	}
	return req, nil
}

// parseBlockNumber reads 123, "123" or "0x7b".
func parseBlockNumber(raw string) (uint64, error) {
	s := strings.Trim(raw, `"`)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}
