package chain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// The history index numbers every canonical transaction in chain order
// (its ordinal) and lists, for each address, the transactions that touch
// it: sent by it, sent to it, or creating it. It is written in the block's
// own batch, so after a crash the index and the blocks always agree, and
// every query it answers is a few point lookups, never a scan.
var (
	prefixTxOrdinal   = []byte("xo") // xo + ordinal(8) -> TxRef
	prefixTxCumul     = []byte("xc") // xc + number(8) -> transactions in blocks 0..number (8)
	prefixAddrTx      = []byte("xa") // xa + address + n(8) -> TxRef of the address's n-th transaction
	prefixAddrTxCount = []byte("xA") // xA + address -> how many transactions touch the address (8)
	keyTxIndexFrom    = []byte("m:txindex-from")
)

// TxRef locates an indexed transaction.
type TxRef struct {
	Block uint64
	Index uint32
	Hash  types.Hash
}

const txRefLen = 8 + 4 + 32

func (r TxRef) encode() (b [txRefLen]byte) {
	binary.BigEndian.PutUint64(b[:], r.Block)
	binary.BigEndian.PutUint32(b[8:], r.Index)
	copy(b[12:], r.Hash[:])
	return b
}

func decodeTxRef(b []byte) (TxRef, error) {
	if len(b) != txRefLen {
		return TxRef{}, fmt.Errorf("history index: record of %d bytes, want %d", len(b), txRefLen)
	}
	r := TxRef{Block: binary.BigEndian.Uint64(b), Index: binary.BigEndian.Uint32(b[8:])}
	copy(r.Hash[:], b[12:])
	return r, nil
}

// ErrNotIndexed is returned for blocks stored before the history index
// existed in this data directory.
var ErrNotIndexed = errors.New("block not in the history index")

// stageHistory adds b's entries of the history index to the pending batch.
// It runs under c.mu, after the parent's batch is written, so the counts
// it reads are the parent's.
func (c *Chain) stageHistory(b *types.Block, receipts types.Receipts, transfers [][]types.Address) error {
	n := b.Number()
	var before uint64
	if n > 0 {
		cum, err := c.db.TxCountThrough(n - 1)
		switch {
		case errors.Is(err, ErrNotIndexed):
			// A data directory older than the index: it starts here.
			if _, ferr := c.db.kv.Get(keyTxIndexFrom); errors.Is(ferr, store.ErrNotFound) {
				c.db.stagePut(keyTxIndexFrom, numKey(n))
			}
			before = 0
		case err != nil:
			return err
		default:
			before = cum
		}
	}
	signer := c.Config.Signer(n, b.Time())
	counts := map[types.Address]uint64{}
	var order []types.Address // first-touch order, so writes are deterministic
	touch := func(a types.Address, ref []byte) error {
		cnt, ok := counts[a]
		if !ok {
			var err error
			if cnt, err = c.db.AddressTxCount(a); err != nil {
				return err
			}
			order = append(order, a)
		}
		c.db.stagePutNum(prefixAddrTx, a[:], cnt, ref)
		counts[a] = cnt + 1
		return nil
	}
	for i, tx := range b.Transactions() {
		from, err := signer.Sender(tx)
		if err != nil {
			return fmt.Errorf("history index: sender of tx %d: %w", i, err)
		}
		refArr := TxRef{Block: n, Index: uint32(i), Hash: tx.Hash()}.encode()
		ref := refArr[:]
		c.db.stagePutNum(prefixTxOrdinal, nil, before+uint64(i), ref)
		if err := touch(from, ref); err != nil {
			return err
		}
		to := tx.To()
		if to == nil {
			created := types.CreateAddress(from, tx.Nonce())
			to = &created
		}
		if *to != from {
			if err := touch(*to, ref); err != nil {
				return err
			}
		}
		// Value moved inside the transaction lists it for the recipients
		// too (once each, and not again for its sender or recipient).
		if i < len(transfers) {
			for _, a := range transfers[i] {
				if a == from || a == *to {
					continue
				}
				if err := touch(a, ref); err != nil {
					return err
				}
			}
		}
	}
	var v [8]byte
	for _, a := range order {
		binary.BigEndian.PutUint64(v[:], counts[a])
		c.db.stagePut(key(prefixAddrTxCount, a[:]), v[:])
	}
	if c.recordingKeys() {
		c.stageBlockAddrs(n, order)
	}
	binary.BigEndian.PutUint64(v[:], before+uint64(len(b.Transactions())))
	c.db.stagePut(key(prefixTxCumul, numKey(n)), v[:])
	return nil
}

func (db *DB) stagePut(k, v []byte) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.pending.Put(k, v)
}

// stagePutNum is stagePut of prefix+mid+n, with the key built by putNumKey.
func (db *DB) stagePutNum(prefix, mid []byte, n uint64, v []byte) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.putNumKey(prefix, mid, n, v)
}

func (db *DB) getUint64(k []byte) (uint64, bool, error) {
	v, err := db.kv.Get(k)
	if errors.Is(err, store.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if len(v) != 8 {
		return 0, false, fmt.Errorf("history index: counter of %d bytes", len(v))
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// TxCountThrough is the number of transactions in canonical blocks 0..n;
// ErrNotIndexed for a block stored before the index began (the genesis
// block counts as indexed: it holds no transactions).
func (db *DB) TxCountThrough(n uint64) (uint64, error) {
	v, ok, err := db.getUint64(key(prefixTxCumul, numKey(n)))
	if err != nil || ok {
		return v, err
	}
	if n == 0 {
		return 0, nil
	}
	// A chain whose genesis is above 0 (a fork) has no transactions of
	// its own up to its genesis.
	if gh, ok := db.GenesisHash(); ok {
		if gn, ok := db.BlockNumber(gh); ok && n <= gn {
			return 0, nil
		}
	}
	return 0, ErrNotIndexed
}

// TxIndexFrom is the first block the history index covers: 0 unless the
// data directory held blocks before the index existed.
func (db *DB) TxIndexFrom() (uint64, error) {
	v, ok, err := db.getUint64(keyTxIndexFrom)
	if !ok {
		return 0, err
	}
	return v, err
}

// TxAt returns the transaction of the given ordinal (0 is the chain's
// first); ErrNotFound past the last.
func (db *DB) TxAt(ordinal uint64) (TxRef, error) {
	return db.getRef(key(prefixTxOrdinal, numKey(ordinal)))
}

// AddressTxCount is how many indexed transactions touch addr.
func (db *DB) AddressTxCount(addr types.Address) (uint64, error) {
	v, _, err := db.getUint64(key(prefixAddrTxCount, addr[:]))
	return v, err
}

// AddressTxAt returns the i-th transaction touching addr, in chain order;
// ErrNotFound past the last.
func (db *DB) AddressTxAt(addr types.Address, i uint64) (TxRef, error) {
	return db.getRef(key(prefixAddrTx, addr[:], numKey(i)))
}

// AddressTxCountBefore is how many of addr's transactions are in blocks
// before block n: a binary search over the address's list.
func (db *DB) AddressTxCountBefore(addr types.Address, n uint64) (uint64, error) {
	total, err := db.AddressTxCount(addr)
	if err != nil {
		return 0, err
	}
	var ferr error
	i := sort.Search(int(total), func(i int) bool {
		if ferr != nil {
			return true
		}
		ref, err := db.AddressTxAt(addr, uint64(i))
		if err != nil {
			ferr = err
			return true
		}
		return ref.Block >= n
	})
	return uint64(i), ferr
}

func (db *DB) getRef(k []byte) (TxRef, error) {
	v, err := db.kv.Get(k)
	if errors.Is(err, store.ErrNotFound) {
		return TxRef{}, ErrNotFound
	}
	if err != nil {
		return TxRef{}, err
	}
	return decodeTxRef(v)
}
