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
	// prefixBlockAddrs (xt + number) held, in earlier versions, the
	// addresses a development chain's block extended the lists of; an
	// unwind removes any left.
	prefixBlockAddrs  = []byte("xt")
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

// transfersOfBlock lists the addresses, per transaction, that received
// value inside it (Built.Transfers). It is stored with every block, so a
// block that becomes canonical again, or leaves the canonical chain, gets
// or loses exactly the history entries its first execution gave it.
var prefixTransfers = []byte("xT") // xT + block hash -> encodeTransfers

// encodeTransfers writes, per transaction, a uvarint count and that many
// addresses.
func encodeTransfers(t [][]types.Address) []byte {
	out := []byte{}
	for _, as := range t {
		out = binary.AppendUvarint(out, uint64(len(as)))
		for _, a := range as {
			out = append(out, a[:]...)
		}
	}
	return out
}

func decodeTransfers(v []byte, txs int) ([][]types.Address, error) {
	var out [][]types.Address
	for len(v) > 0 {
		n, k := binary.Uvarint(v)
		if k <= 0 || n > uint64(len(v)-k)/20 {
			return nil, errors.New("history index: malformed transfers record")
		}
		v = v[k:]
		as := make([]types.Address, n)
		for i := range as {
			as[i] = types.Address(v[:20])
			v = v[20:]
		}
		out = append(out, as)
	}
	if len(out) > txs {
		return nil, fmt.Errorf("history index: transfers of %d transactions in a block of %d", len(out), txs)
	}
	return out, nil
}

// transfers returns the stored transfers of block b, or, for a block
// stored without them, what reexec gives.
func (w *indexBatch) transfers(b *types.Block, reexec func(*types.Block) ([][]types.Address, error)) ([][]types.Address, error) {
	h := b.Hash()
	v, err := w.get(key(prefixTransfers, h[:]))
	switch {
	case errors.Is(err, store.ErrNotFound):
		if reexec == nil {
			return nil, fmt.Errorf("history index: block %d (%s) has no transfers record", b.Number(), h)
		}
		return reexec(b)
	case err != nil:
		return nil, err
	}
	return decodeTransfers(v, len(b.Transactions()))
}

// historyTouches calls fn for every (transaction, address) entry block b
// adds to the history index, in order: the sender, the recipient (or the
// created contract) unless it is the sender, then each address that
// received value inside the transaction and is neither. This is the one
// rule both the indexing and the unwinding of a block follow.
func historyTouches(b *types.Block, signer types.Signer, transfers [][]types.Address, fn func(i int, a types.Address) error) error {
	for i, tx := range b.Transactions() {
		from, err := signer.Sender(tx)
		if err != nil {
			return fmt.Errorf("history index: sender of tx %d: %w", i, err)
		}
		if err := fn(i, from); err != nil {
			return err
		}
		to := tx.To()
		if to == nil {
			created := types.CreateAddress(from, tx.Nonce())
			to = &created
		}
		if *to != from {
			if err := fn(i, *to); err != nil {
				return err
			}
		}
		if i < len(transfers) {
			for _, a := range transfers[i] {
				if a == from || a == *to {
					continue
				}
				if err := fn(i, a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// indexHistory stages b's entries of the history index; the entries of
// b's parent are stored or staged before.
func (w *indexBatch) indexHistory(b *types.Block, signer types.Signer, transfers [][]types.Address) error {
	n := b.Number()
	var before uint64
	if n > 0 {
		cum, err := w.txCountThrough(n - 1)
		switch {
		case errors.Is(err, ErrNotIndexed):
			// A data directory older than the index: it starts here.
			if _, ferr := w.get(keyTxIndexFrom); errors.Is(ferr, store.ErrNotFound) {
				w.put(keyTxIndexFrom, numKey(n))
			}
			before = 0
		case err != nil:
			return err
		default:
			before = cum
		}
	}
	txs := b.Transactions()
	counts := map[types.Address]uint64{}
	var order []types.Address // first-touch order, so writes are deterministic
	var refArr [txRefLen]byte
	last := -1
	err := historyTouches(b, signer, transfers, func(i int, a types.Address) error {
		if i != last {
			last = i
			refArr = TxRef{Block: n, Index: uint32(i), Hash: txs[i].Hash()}.encode()
			w.putNum(prefixTxOrdinal, nil, before+uint64(i), refArr[:])
		}
		cnt, ok := counts[a]
		if !ok {
			var err error
			if cnt, err = w.addressTxCount(a); err != nil {
				return err
			}
			order = append(order, a)
		}
		w.putNum(prefixAddrTx, a[:], cnt, refArr[:])
		counts[a] = cnt + 1
		return nil
	})
	if err != nil {
		return err
	}
	var v [8]byte
	for _, a := range order {
		binary.BigEndian.PutUint64(v[:], counts[a])
		w.putKey(prefixAddrTxCount, a[:], v[:])
	}
	binary.BigEndian.PutUint64(v[:], before+uint64(len(txs)))
	w.putKey(prefixTxCumul, numKey(n), v[:])
	return nil
}

// unwindHistory stages the removal of the history entries of canonical
// blocks base+1 .. old (dropped, the ones stored): the ordinals past
// base's, and the tail of each list a dropped block extended. It runs
// before anything else of the switch is staged.
func (w *indexBatch) unwindHistory(base, old uint64, dropped []*types.Block, signer func(*types.Block) types.Signer) error {
	allTxs, err := w.txCountThrough(old)
	if errors.Is(err, ErrNotIndexed) {
		return nil // nothing dropped was indexed
	}
	if err != nil {
		return err
	}
	keepTxs, err := w.txCountThrough(base)
	switch {
	case errors.Is(err, ErrNotIndexed):
		// The index began after base: all of it goes, and it begins
		// again with the next block.
		keepTxs = 0
		w.del(keyTxIndexFrom)
	case err != nil:
		return err
	}
	for o := keepTxs; o < allTxs; o++ {
		w.delNum(prefixTxOrdinal, nil, o)
	}
	// The addresses whose lists the dropped blocks extended.
	seen := map[types.Address]bool{}
	var addrs []types.Address
	walkAll := false
	for _, b := range dropped {
		h := b.Hash()
		v, err := w.get(key(prefixTransfers, h[:]))
		if errors.Is(err, store.ErrNotFound) {
			walkAll = true // stored before the record existed
			break
		}
		if err != nil {
			return err
		}
		transfers, err := decodeTransfers(v, len(b.Transactions()))
		if err != nil {
			return err
		}
		err = historyTouches(b, signer(b), transfers, func(_ int, a types.Address) error {
			if !seen[a] {
				seen[a] = true
				addrs = append(addrs, a)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if walkAll {
		addrs = addrs[:0]
		err := w.db.kv.IterateKeys(prefixAddrTxCount, func(k []byte) bool {
			if len(k) == len(prefixAddrTxCount)+20 {
				addrs = append(addrs, types.Address(k[len(prefixAddrTxCount):]))
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	for _, a := range addrs {
		total, err := w.addressTxCount(a)
		if err != nil {
			return err
		}
		keep, err := w.addressTxCountBefore(a, base+1)
		if err != nil {
			return err
		}
		for i := keep; i < total; i++ {
			w.delNum(prefixAddrTx, a[:], i)
		}
		switch {
		case keep == total:
		case keep == 0:
			w.delKey(prefixAddrTxCount, a[:])
		default:
			w.putKey(prefixAddrTxCount, a[:], numKey(keep))
		}
	}
	return nil
}

func (w *indexBatch) getUint64(k []byte) (uint64, bool, error) {
	v, err := w.get(k)
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
	return (&indexBatch{db: db}).txCountThrough(n)
}

func (w *indexBatch) txCountThrough(n uint64) (uint64, error) {
	v, ok, err := w.getUint64(key(prefixTxCumul, numKey(n)))
	if err != nil || ok {
		return v, err
	}
	if n == 0 {
		return 0, nil
	}
	// A chain whose genesis is above 0 (a fork) has no transactions of
	// its own up to its genesis.
	if gh, ok := w.db.GenesisHash(); ok {
		if gn, ok := w.db.BlockNumber(gh); ok && n <= gn {
			return 0, nil
		}
	}
	return 0, ErrNotIndexed
}

// TxIndexFrom is the first block the history index covers: 0 unless the
// data directory held blocks before the index existed.
func (db *DB) TxIndexFrom() (uint64, error) {
	v, ok, err := (&indexBatch{db: db}).getUint64(keyTxIndexFrom)
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
	return (&indexBatch{db: db}).addressTxCount(addr)
}

func (w *indexBatch) addressTxCount(addr types.Address) (uint64, error) {
	v, _, err := w.getUint64(key(prefixAddrTxCount, addr[:]))
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
	return (&indexBatch{db: db}).addressTxCountBefore(addr, n)
}

func (w *indexBatch) addressTxCountBefore(addr types.Address, n uint64) (uint64, error) {
	total, err := w.addressTxCount(addr)
	if err != nil {
		return 0, err
	}
	var ferr error
	i := sort.Search(int(total), func(i int) bool {
		if ferr != nil {
			return true
		}
		v, err := w.get(key(prefixAddrTx, addr[:], numKey(uint64(i))))
		if err == nil {
			var ref TxRef
			if ref, err = decodeTxRef(v); err == nil {
				return ref.Block >= n
			}
		}
		ferr = err
		return true
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
