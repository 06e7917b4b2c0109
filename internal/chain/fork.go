package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// ForkPoint starts a chain on another chain's state (a fork, as anvil
// makes them): the genesis block is the first local block, a child of the
// upstream's block Number, and its state is the upstream's state at that
// block with the genesis allocations written over it. Accounts, code and
// storage the local store lacks are read through Remote on first touch.
type ForkPoint struct {
	URL       string     `json:"url"`       // the upstream's JSON-RPC endpoint, for a restart
	Number    Uint64     `json:"number"`    // upstream block the chain continues from
	Hash      types.Hash `json:"hash"`      // its hash: the genesis block's parent
	StateRoot types.Hash `json:"stateRoot"` // its state root
	// Hashes are the upstream's block hashes up to Number, the last one
	// first (as many as BLOCKHASH can reach back), for the first local
	// blocks' BLOCKHASH and block-hash queries.
	Hashes []types.Hash `json:"hashes"`

	// Remote supplies the upstream state; it is set at run time, never
	// stored.
	Remote state.Remote `json:"-"`
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
	if uint64(g.Number) != uint64(g.Fork.Number)+1 || g.ParentHash != g.Fork.Hash {
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
