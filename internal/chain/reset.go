package chain

import (
	"errors"

	"github.com/chaind/chaind/internal/types"
)

// Reset starts the chain over, as a development node's reset does. With g
// nil the chain goes back to its own genesis: every later block leaves the
// canonical chain (it stays stored, unreachable by number). Otherwise g
// (another fork point, say) becomes the genesis: it is committed, stored
// as the data directory's genesis, and is the head; it must have the
// chain's Config, which does not change. Whoever produces
// blocks must be stopped first; subscribers see the new head.
//
// The dropped blocks leave every index, the explorer's history included,
// in the same write that moves the head.
func (c *Chain) Reset(g *Genesis) error {
	var blk *types.Block
	if g != nil {
		if g.Config != c.Config {
			return errors.New("chain: a reset genesis must keep the chain's config")
		}
		// Built outside the lock: a fork's genesis may read upstream.
		full, err := genesisWith(g, c.engine)
		if err != nil {
			return err
		}
		if blk, err = full.Commit(c.db); err != nil {
			c.db.Discard()
			return err
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	old := c.genesis
	if c.head.Hash() != old.Hash() {
		if err := c.switchCanonical(&canonSwitch{base: old}); err != nil {
			return err
		}
		c.setHead(old)
	}
	if g == nil {
		err := c.rewindChainIDs(old.Number())
		c.notify(old)
		return err
	}
	alloc, err := allocDigest(g.Alloc)
	if err != nil {
		return err
	}
	head, eng, err := genesisRecords(g, c.engine, alloc)
	if err != nil {
		return err
	}
	c.db.dropGenesis(old.Number())
	c.db.stageGenesisRecords(head, alloc, eng)
	// The counts describe the old genesis's chain: the mark-and-sweep
	// pass (which marks the genesis it finds) takes over.
	c.db.stageDelete(keyPrune)
	c.db.stageDelete(keyPrunePending)
	c.db.stageTD(blk.Hash(), &blk.HeaderRef().Difficulty)
	c.db.stageGenesis(blk)
	if err := c.db.WriteBlock(blk, nil); err != nil {
		c.db.Discard()
		return err
	}
	c.mu.Lock()
	c.genesis, c.head = blk, blk
	c.mu.Unlock()
	c.pins.lowered(blk.Number())
	c.live.Store(nil)
	c.fork.Store(g.Fork)
	err = c.dropChainIDs()
	c.notify(blk)
	return err
}

// stageGenesisRecords stages the records of a new genesis (genesisrecord.go).
func (db *DB) stageGenesisRecords(head, alloc, eng []byte) {
	db.mu.Lock()
	defer db.mu.Unlock()
	putGenesisRecords(&db.pending, head, alloc, eng)
}

// dropGenesis stages the removal of the number index entries of the
// current genesis at n, which a new genesis replaces.
func (db *DB) dropGenesis(n uint64) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.pending.Delete(key(prefixCanonical, numKey(n)))
	db.pending.Delete(key(prefixBloom, numKey(n)))
}

// stageDelete stages the removal of k with the next write.
func (db *DB) stageDelete(k []byte) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.pending.Delete(k)
}
