package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// ForkPoint starts a chain on another chain's state (a fork, as anvil
// makes them). With the upstream's Header, the genesis block is the
// upstream's block Number itself (same header, same hash: the first local
// block is its child); without it (a fork made before, or an upstream
// whose header fields do not hash to its block hash) the genesis is a
// local block on top of it. Either way the genesis state is the
// upstream's state at that block with the genesis allocations written
// over it. Accounts, code and storage the local store lacks are read
// through Remote on first touch.
type ForkPoint struct {
	URL       string     `json:"url"`       // the upstream's JSON-RPC endpoint, for a restart
	Number    Uint64     `json:"number"`    // upstream block the chain continues from
	Hash      types.Hash `json:"hash"`      // its hash: the genesis block's parent
	StateRoot types.Hash `json:"stateRoot"` // its state root
	// Hashes are the upstream's block hashes up to Number, the last one
	// first (as many as BLOCKHASH can reach back), for the first local
	// blocks' BLOCKHASH and block-hash queries.
	Hashes []types.Hash `json:"hashes"`
	// Header is the RLP of the upstream's header of block Number: the
	// genesis block's, when set.
	Header types.HexBytes `json:"header,omitempty"`

	// Remote supplies the upstream state; it is set at run time, never
	// stored.
	Remote state.Remote `json:"-"`

	// localRoot is the root of the genesis state when the genesis is the
	// upstream block: its header names the upstream's root, without the
	// allocations. Set by Genesis.Commit.
	localRoot types.Hash
}

// upstreamHeader decodes Header (nil when there is none).
func (f *ForkPoint) upstreamHeader() (*types.Header, error) {
	if len(f.Header) == 0 {
		return nil, nil
	}
	h, err := types.DecodeHeader(f.Header)
	if err != nil {
		return nil, fmt.Errorf("chain: fork header: %w", err)
	}
	if h.Number != uint64(f.Number) || h.Hash() != f.Hash || h.Root != f.StateRoot {
		return nil, fmt.Errorf("chain: fork header is not block %d %s", f.Number, f.Hash)
	}
	return h, nil
}

// stateRootOf returns the root to open for the state a header names: its
// own, except for a fork's genesis that is the upstream block, whose
// header names the upstream's state and whose local state adds the
// genesis allocations to it.
func (c *Chain) stateRootOf(root types.Hash) types.Hash {
	if f := c.fork.Load(); f != nil && f.localRoot != (types.Hash{}) && root == f.StateRoot {
		return f.localRoot
	}
	return root
}

// ErrNoRemote is returned when a forked chain is opened without a source
// for the upstream state.
var ErrNoRemote = errors.New("chain: forked genesis without an upstream to read its state from")

// baseState opens the state a genesis builds on: empty, or the upstream's
// for a fork.
func (g *Genesis) baseState(db trie.Database) (*state.StateDB, error) {
	if g.Fork == nil {
		return state.New(types.Hash(trie.EmptyRoot), db)
	}
	if g.Fork.Remote == nil {
		return nil, ErrNoRemote
	}
	if len(g.Fork.Header) == 0 && (uint64(g.Number) != uint64(g.Fork.Number)+1 || g.ParentHash != g.Fork.Hash) {
		return nil, fmt.Errorf("chain: forked genesis must be block %d with parent %s", g.Fork.Number+1, g.Fork.Hash)
	}
	return state.NewWithRemote(g.Fork.StateRoot, db, g.Fork.Remote)
}

// upstreamHash returns the hash of upstream block n of a fork (zero when
// n is not among the hashes kept).
func (f *ForkPoint) upstreamHash(n uint64) types.Hash {
	if f == nil || n > uint64(f.Number) {
		return types.Hash{}
	}
	if i := uint64(f.Number) - n; i < uint64(len(f.Hashes)) {
		return f.Hashes[i]
	}
	return types.Hash{}
}

// Fork returns the fork point the chain starts from (nil: not a fork).
func (c *Chain) Fork() *ForkPoint { return c.fork.Load() }

// remote is the source of state the store lacks (nil: none).
func (c *Chain) remote() state.Remote {
	if f := c.fork.Load(); f != nil {
		return f.Remote
	}
	return nil
}

// stageGenesis marks b as the genesis in the next write. Block 0 is marked
// by WriteBlock itself; a genesis with another number (a fork's) is not.
func (db *DB) stageGenesis(b *types.Block) {
	h := b.Hash()
	db.mu.Lock()
	db.pending.Put(keyGenesis, h[:])
	db.mu.Unlock()
}
