package fork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/rpc"
)

// Node is what a reset needs of the node around its chain.
type Node interface {
	// Halt stops block production and waits for it to end; it fails,
	// and stops nothing, when the node is closed.
	Halt() error
	// ResetChain starts the chain over at g (nil: its own genesis).
	ResetChain(g *chain.Genesis) error
	// Resume empties the pool, forgets what the dev helpers kept of the
	// old chain when the reset was made (made), and restarts block
	// production.
	Resume(made bool) error
}

// ResetNode starts n's chain over. With url empty the chain returns to
// its genesis (for a fork: the fork point, whose fetched state stays in
// the store). Otherwise it becomes a fork of url at block (nil: its
// latest), keeping conf, the chain's config (and so its chain ID).
// Pending transactions are dropped.
func (s *State) ResetNode(ctx context.Context, n Node, url string, block *uint64, conf *chain.Config, log *slog.Logger) error {
	s.Lock()
	defer s.Unlock()
	var g *chain.Genesis
	var up *Client
	if url != "" {
		var err error
		if g, up, err = s.Refork(ctx, url, block, conf); err != nil {
			return err
		}
	}
	// The upstream is dialled and the genesis laid out before block
	// production stops; if its state then cannot be read, the chain's
	// reset changes nothing and production resumes on the old chain.
	if err := n.Halt(); err != nil {
		return err
	}
	err := s.Reset(ctx, g, up, n.ResetChain, log)
	if rerr := n.Resume(err == nil); rerr != nil {
		err = errors.Join(err, fmt.Errorf("consensus: %w", rerr))
	}
	return err
}

// RegisterReset serves anvil_reset and hardhat_reset on srv: a reset of
// n (ResetNode) to the parameters they name (ParseReset); and
// anvil_setRpcUrl, a switch of the upstream (SetURL).
func (s *State) RegisterReset(srv *rpc.Server, n Node, conf func() *chain.Config, log *slog.Logger) {
	reset := func(ctx context.Context, p rpc.Params) error {
		req, err := ParseReset(p, s.Upstream())
		if err != nil {
			return err
		}
		return s.ResetNode(ctx, n, req.URL, req.Block, conf(), log)
	}
	srv.Register("anvil_reset", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		return nil, reset(ctx, p)
	})
	srv.Register("hardhat_reset", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		return true, reset(ctx, p)
	})
	srv.Register("anvil_setRpcUrl", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		var url string
		if err := p.Decode(0, &url); err != nil {
			return nil, err
		}
		return nil, s.SetURL(ctx, url)
	})
}
