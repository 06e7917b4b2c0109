package chain

import (
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Proof-of-work history can hold competing branches: a block may build on
// any stored block, not only the head. Such a block is validated and
// executed on its own parent's state through the same path as every other
// block, and stored; it becomes the head when its branch carries more total
// difficulty than the current head's (the proof-of-work fork-choice rule).
// Past the Merge the difficulty no longer grows and the fork choice belongs
// to the consensus layer: an imported block then becomes the head as
// imported, as go-ethereum's import does. Blocks decided by this node's own
// consensus (BFT finality) never arrive here: they are committed through
// CommitCertified and InsertCertified, which only extend the head.

var prefixTD = []byte("d") // d + hash -> total difficulty (32 bytes, big-endian)

// stageTD records the total difficulty of block h in the pending batch.
func (db *DB) stageTD(h types.Hash, td *uint256.Int) {
	db.mu.Lock()
	defer db.mu.Unlock()
	v := td.Bytes32()
	db.pending.Put(key(prefixTD, h[:]), v[:])
}

// TotalDifficulty returns the sum of the difficulties of block h and its
// ancestors, or false when it is not stored (blocks written before the
// store kept it).
func (db *DB) TotalDifficulty(h types.Hash) (*uint256.Int, bool) {
	v, err := db.kv.Get(key(prefixTD, h[:]))
	if err != nil || len(v) != 32 {
		return nil, false
	}
	return new(uint256.Int).SetBytes32(v), true
}

// TotalDifficulty returns the total difficulty of the stored block h. A
// block stored before the store kept total difficulties gets the sum
// computed back to the nearest block that has one (or to genesis).
func (c *Chain) TotalDifficulty(h types.Hash) (*uint256.Int, bool) {
	if td, ok := c.db.TotalDifficulty(h); ok {
		return td, true
	}
	if m := c.Config.MergeNetsplitBlock; m != nil && *m == 0 {
		// Proof of stake from genesis: no block adds difficulty, so every
		// block's total is the genesis block's own, without a walk.
		if _, ok := c.db.BlockNumber(h); !ok {
			return nil, false
		}
		return new(uint256.Int).Set(&c.genesis.HeaderRef().Difficulty), true
	}
	sum := new(uint256.Int)
	for {
		if td, ok := c.db.TotalDifficulty(h); ok {
			return sum.Add(sum, td), true
		}
		b, err := c.db.Block(h)
		if err != nil {
			return nil, false
		}
		sum.Add(sum, &b.HeaderRef().Difficulty)
		if b.Number() == 0 {
			return sum, true
		}
		h = b.ParentHash()
	}
}

// childTD is the total difficulty of a child of parent with difficulty d,
// or nil when the parent's is unknown.
func (c *Chain) childTD(parent types.Hash, d *uint256.Int) *uint256.Int {
	ptd, ok := c.db.TotalDifficulty(parent)
	if !ok {
		return nil
	}
	return new(uint256.Int).Add(ptd, d)
}

// checkTerminal applies the terminal total difficulty to a block of a
// chain that merges by difficulty: the first proof-of-stake block must
// follow a block whose total difficulty reached the terminal one, and no
// proof-of-work block may follow such a block. Without the parent's total
// (a store from before totals were kept) the rule cannot be applied and
// the block passes, as before.
func (c *Chain) checkTerminal(parent, h *types.Header) error {
	if !c.Config.mergesByDifficulty() {
		return nil
	}
	ptd, ok := c.db.TotalDifficulty(h.ParentHash) // stored only: no walk back on a hot path
	if !ok {
		return nil
	}
	ttd, overflow := uint256.FromBig((*big.Int)(c.Config.TerminalTotalDifficulty))
	if overflow {
		return nil // no chain's difficulty reaches 2^256
	}
	reached := !ptd.Lt(ttd)
	switch pos := c.Config.IsPoSHeader(h); {
	case pos && !reached && !c.Config.IsPoSHeader(parent):
		return fmt.Errorf("%w: proof-of-stake block on a parent with total difficulty %s, below the terminal %s", ErrBadPoSHeader, ptd, ttd)
	case !pos && reached:
		return fmt.Errorf("%w: proof-of-work block on a parent with total difficulty %s, past the terminal %s", ErrBadPoSHeader, ptd, ttd)
	}
	return nil
}

// ancestorHashes answers BLOCKHASH for a block whose parent is parent,
// following the block's own branch rather than the canonical chain.
func (c *Chain) ancestorHashes(parent *types.Block) func(uint64) types.Hash {
	return func(n uint64) types.Hash {
		h := parent.HeaderRef()
		for h.Number > n {
			b, err := c.db.Block(h.ParentHash)
			if err != nil {
				return types.Hash{}
			}
			h = b.HeaderRef()
		}
		if h.Number != n {
			return types.Hash{}
		}
		return h.Hash()
	}
}

// insertBranch imports a block whose parent is a stored block other than
// the head. Called with c.wmu held.
func (c *Chain) insertBranch(b *types.Block, s senders) (types.Receipts, error) {
	parent, err := c.db.Block(b.ParentHash())
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: block %d builds on %s, which is not stored", ErrUnknownParent, b.Number(), b.ParentHash())
	}
	if err != nil {
		return nil, err
	}
	built, err := c.validate(b, parent, c.ancestorHashes(parent), s)
	if err != nil {
		return nil, err
	}
	if err := c.commitState(b, built.State); err != nil {
		return nil, err
	}
	td := c.childTD(parent.Hash(), &b.HeaderRef().Difficulty)
	headTD, _ := c.db.TotalDifficulty(c.head.Hash())
	adopt := c.Config.IsMerged(b.Number()) || (td != nil && headTD != nil && td.Gt(headTD))
	if td != nil {
		c.db.stageTD(b.Hash(), td)
	}
	if !adopt {
		if err := c.db.WriteSideBlock(b, built.Receipts, built.Transfers); err != nil {
			c.db.Discard()
			return nil, err
		}
		return built.Receipts, nil
	}
	// The new branch, from the block back to where it meets the canonical
	// chain, becomes canonical.
	var branch []*types.Block
	base := parent
	for {
		if h, ok := c.db.CanonicalHash(base.Number()); ok && h == base.Hash() {
			break
		}
		branch = append(branch, base)
		if base, err = c.db.Block(base.ParentHash()); err != nil {
			c.db.Discard()
			return nil, fmt.Errorf("branch of block %d: %w", b.Number(), err)
		}
	}
	slices.Reverse(branch)
	err = c.switchCanonical(&canonSwitch{base: base, branch: branch, tip: b, tipReceipts: built.Receipts, tipTransfers: built.Transfers})
	if err != nil {
		return nil, err
	}
	c.setHead(b)
	c.notify(b)
	return built.Receipts, nil
}
