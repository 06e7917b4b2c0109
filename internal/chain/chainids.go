package chain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/chaind/chaind/internal/store"
)

// A development chain may change its chain ID as it goes (anvil's
// anvil_setChainId): from the next block on, transactions must be signed
// for the new ID and CHAINID answers it, while the blocks made before keep
// the ID they were made under, so re-executing or tracing them gives what
// it gave then. The ID is therefore a value by height, like the fork
// rules: Config.ChainIDAt is the one answer to "which chain ID do block
// N's transactions use", and the signer (Config.Signer), block execution
// (Rules.Open) and every call path ask it. Config.ChainID stays the
// genesis's: the network's identity, which consensus signatures,
// certificates and the p2p handshake bind, and which a development chain
// (a network of one) has no reason to move.
//
// The changes are stored with the chain (keyChainIDs), so a restarted
// node keeps them, and a rewind (a snapshot revert, anvil_rollback,
// anvil_reorg, a reset) keeps the ID in force at the top: the blocks made
// again after it use the latest ID, as anvil's do, which keeps its chain
// ID across a revert.

// keyChainIDs holds a chain's ID changes: 16 bytes each, the first block
// it applies to and the ID, both big-endian, in block order.
var keyChainIDs = []byte("m:chain-ids")

// Errors of SetChainID.
var (
	// ErrChainIDFixed: the chain is not a development chain.
	ErrChainIDFixed = errors.New("chain: the chain ID is fixed by the genesis; only a development chain (--dev) changes it")
	// ErrChainIDZero: EIP-155 has no chain 0 (a signature for it is an
	// unprotected one).
	ErrChainIDZero = errors.New("chain: chain ID 0 is not a chain (EIP-155)")
)

// ChainIDs are a chain's chain ID changes by height (Config.ChainIDs).
type ChainIDs struct {
	movable bool                          // SetChainID may add changes
	list    atomic.Pointer[[]chainIDFrom] // immutable once stored; nil: none
}

// chainIDFrom is one change: id applies from block from on.
type chainIDFrom struct{ from, id uint64 }

// NewChainIDs returns the changes of a development chain, none yet: set
// as Config.ChainIDs, it lets SetChainID move the chain's ID. The chain
// loads the changes its store holds when it opens.
func NewChainIDs() *ChainIDs { return &ChainIDs{movable: true} }

// ChainIDAt returns the chain ID the transactions of block number are
// signed for and its CHAINID answers: the genesis's, unless a development
// chain changed it at or before that block. A call on the state of block
// n runs as a transaction of the block after it would, under
// ChainIDAt(n+1).
func (c *Config) ChainIDAt(number uint64) uint64 {
	if c.ChainIDs == nil {
		return c.ChainID
	}
	id := c.ChainID
	if p := c.ChainIDs.list.Load(); p != nil {
		for _, e := range *p {
			if e.from > number {
				break
			}
			id = e.id
		}
	}
	return id
}

// changes returns the stored changes (nil: none). The slice is shared.
func (s *ChainIDs) changes() []chainIDFrom {
	if p := s.list.Load(); p != nil {
		return *p
	}
	return nil
}

// withChainID returns list with id in force from block from on: the
// changes at or after from are dropped, and none is added that would
// repeat the ID in force before it.
func withChainID(list []chainIDFrom, genesisID, from, id uint64) []chainIDFrom {
	out := make([]chainIDFrom, 0, len(list)+1)
	prev := genesisID
	for _, e := range list {
		if e.from >= from {
			break
		}
		out = append(out, e)
		prev = e.id
	}
	if id != prev {
		out = append(out, chainIDFrom{from, id})
	}
	return out
}

// SetChainID makes id the chain ID of the blocks after the head (and of
// calls on the head's state); the head and the blocks before it keep
// theirs. Whoever produces blocks must not be building one meanwhile.
func (c *Chain) SetChainID(id uint64) error {
	s := c.Config.ChainIDs
	if s == nil || !s.movable {
		return ErrChainIDFixed
	}
	if id == 0 {
		return ErrChainIDZero
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.storeChainIDs(withChainID(s.changes(), c.Config.ChainID, c.head.Number()+1, id))
}

// rewindChainIDs keeps, after the head moved back to head, the ID in
// force at the top for the blocks to come. Called with c.wmu held.
func (c *Chain) rewindChainIDs(head uint64) error {
	s := c.Config.ChainIDs
	if s == nil || s.list.Load() == nil {
		return nil
	}
	top := c.Config.ChainIDAt(^uint64(0))
	return c.storeChainIDs(withChainID(s.changes(), c.Config.ChainID, head+1, top))
}

// dropChainIDs forgets every change: a new genesis (a reset to another
// fork point) starts over with the genesis's ID. Called with c.wmu held.
func (c *Chain) dropChainIDs() error {
	if s := c.Config.ChainIDs; s == nil || s.list.Load() == nil {
		return nil
	}
	return c.storeChainIDs(nil)
}

// storeChainIDs writes list and makes it the chain's.
func (c *Chain) storeChainIDs(list []chainIDFrom) error {
	var b store.Batch
	if len(list) == 0 {
		b.Delete(keyChainIDs)
	} else {
		b.Put(keyChainIDs, encodeChainIDs(list))
	}
	if err := c.db.kv.Write(&b); err != nil {
		return fmt.Errorf("chain: storing the chain ID: %w", err)
	}
	if len(list) == 0 {
		c.Config.ChainIDs.list.Store(nil)
	} else {
		c.Config.ChainIDs.list.Store(&list)
	}
	return nil
}

// openChainIDs loads the chain ID changes the store holds. A store with
// changes opened without Config.ChainIDs (a development chain's data
// directory served by a node that is not a development one) still
// answers the IDs its blocks were made under, on a copy of the config,
// but cannot change them. Changes past the head's child (a rewind that
// stopped before storing its own) give way to the ID in force at the top,
// as rewindChainIDs makes them.
func (c *Chain) openChainIDs(kv store.KV) error {
	v, err := kv.Get(keyChainIDs)
	if errors.Is(err, store.ErrNotFound) {
		if c.Config.ChainIDs != nil {
			c.Config.ChainIDs.list.Store(nil)
		}
		return nil
	}
	if err != nil {
		return err
	}
	list, err := decodeChainIDs(v)
	if err != nil {
		return err
	}
	if c.Config.ChainIDs == nil {
		cfg := *c.Config
		cfg.ChainIDs = &ChainIDs{}
		c.Config = &cfg
	}
	c.Config.ChainIDs.list.Store(&list)
	top := c.Config.ChainIDAt(^uint64(0))
	list = withChainID(list, c.Config.ChainID, c.head.Number()+1, top)
	c.Config.ChainIDs.list.Store(&list)
	return nil
}

func encodeChainIDs(list []chainIDFrom) []byte {
	out := make([]byte, 0, 16*len(list))
	for _, e := range list {
		out = binary.BigEndian.AppendUint64(out, e.from)
		out = binary.BigEndian.AppendUint64(out, e.id)
	}
	return out
}

func decodeChainIDs(v []byte) ([]chainIDFrom, error) {
	if len(v)%16 != 0 {
		return nil, fmt.Errorf("chain: chain ID record of %d bytes, not pairs of 8", len(v))
	}
	list := make([]chainIDFrom, 0, len(v)/16)
	for i := 0; i < len(v); i += 16 {
		e := chainIDFrom{binary.BigEndian.Uint64(v[i:]), binary.BigEndian.Uint64(v[i+8:])}
		if e.id == 0 || (len(list) > 0 && e.from <= list[len(list)-1].from) {
			return nil, fmt.Errorf("chain: chain ID record out of order or with ID 0 at entry %d", i/16)
		}
		list = append(list, e)
	}
	return list, nil
}
