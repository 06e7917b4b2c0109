package fork

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/chaind/chaind/rpc"
)

// ErrNotFork is returned for an upstream switch on a chain that is no
// fork.
var ErrNotFork = errors.New("this node is no fork: start it with --fork-url, or fork with anvil_reset")

// ErrOtherChain is returned when a new upstream does not hold the fork
// block: it serves another chain.
var ErrOtherChain = errors.New("the new upstream serves another chain")

// SetURL switches the upstream the fork reads its missing state from to
// rawURL, as anvil_setRpcUrl does: the same chain served elsewhere (a
// provider that went down, a key that ran out). The fork block stays;
// the new endpoint must hold it under the same hash and chain ID, and
// every proof it gives is checked against the block's state root as
// before. What was fetched stays in the store. A restart reads the URL
// the data directory was forked from unless --fork-url names another.
func (s *State) SetURL(ctx context.Context, rawURL string) error {
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return rpc.InvalidParams(0, fmt.Errorf("want an http or https URL, got %q", rawURL))
	}
	s.Lock()
	defer s.Unlock()
	cur := s.up.Load()
	if cur == nil {
		return ErrNotFork
	}
	n := cur.Block.Number
	up, err := Dial(ctx, rawURL, &n)
	if errors.Is(err, ErrBeyondHead) {
		return fmt.Errorf("%w: it has no block %d yet", ErrOtherChain, n)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrResetUpstream, err)
	}
	if up.Block.Hash != cur.Block.Hash || (cur.ChainID != 0 && up.ChainID != cur.ChainID) {
		return fmt.Errorf("%w: its block %d is %s on chain %d, the fork's %s on chain %d", ErrOtherChain, n, up.Block.Hash, up.ChainID, cur.Block.Hash, cur.ChainID)
	}
	up.Block = cur.Block // the header the fork continues on, as first read
	s.up.Store(up)
	return nil
}
