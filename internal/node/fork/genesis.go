package fork

import (
	"context"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
)

// forkHashes is how many upstream block hashes a fork keeps: all that
// BLOCKHASH can reach from the first local blocks.
const forkHashes = 256

// Genesis makes g a genesis that continues up's fork block: the block
// itself when its header is known (as anvil forks: the fork block is the
// head until a block is made), else a first local block on top of it. The
// caller sets g.Fork.Remote (its State, following up).
func Genesis(ctx context.Context, g *chain.Genesis, up *Client) error {
	hashes, err := up.Hashes(ctx, forkHashes)
	if err != nil {
		return err
	}
	// The genesis writes its allocations over the upstream state: their
	// proofs (and the root's, which any proof starts with) in one batch.
	addrs := append([]types.Address{{}}, staking.Addresses()...)
	for a := range g.Alloc {
		addrs = append(addrs, a)
	}
	if err := up.Prefetch(ctx, addrs); err != nil {
		return err
	}
	b := up.Block
	g.Fork = &chain.ForkPoint{URL: up.URL(), Number: chain.Uint64(b.Number), Hash: b.Hash, StateRoot: b.StateRoot, Hashes: hashes}
	if b.BaseFee != nil {
		g.BaseFee = &chain.U256{Int: *b.BaseFee}
	}
	if b.Header != nil {
		// The genesis fields still date the system contracts' genesis
		// state; the block is the upstream's header.
		g.Fork.Header = b.Header.EncodeRLP()
		g.Number, g.ParentHash, g.Timestamp = chain.Uint64(b.Number), b.Parent, chain.Uint64(b.Time)
		// The block's body and receipts, read now rather than on the
		// first request: every API reads the head. A failure does not
		// stop the fork; the block is asked for again when read, and
		// until then reads of it report the upstream's error (the head
		// shows its header alone).
		up.BlockContents(ctx)
		return nil
	}
	g.Number = chain.Uint64(b.Number + 1)
	g.ParentHash = b.Hash
	g.Timestamp = chain.Uint64(max(uint64(g.Timestamp), b.Time+1))
	return nil
}
