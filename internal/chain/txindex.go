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
// own batch, so after a crash the index and the blocks always agree.
//
// It is kept compact: an ordinal is not stored per transaction but found
// from the per-block running totals (a binary search over blocks), and an
// address's list is stored in chunks of addrChunk entries of (block,
// index), so a transaction costs its lookup key and a fraction of a key
// per address it touches. The oldest blocks can be dropped from it
// (PruneHistory, --history.keep): their lookups and whole chunks go, and
// what is asked of them is answered as of unknown transactions.
var (
	// prefixBlockAddrs (xt + number) held, in earlier versions, the
	// addresses a development chain's block extended the lists of; an
	// unwind removes any left.
	prefixBlockAddrs = []byte("xt")
	// prefixTxOrdinal (xo + ordinal), prefixAddrTxV1 (xa) and
	// prefixAddrTxCountV1 (xA) are the first version's per-transaction
	// entries; a data directory holding them drops them (migrateHistory).
	prefixTxOrdinal     = []byte("xo")
	prefixAddrTxV1      = []byte("xa")
	prefixAddrTxCountV1 = []byte("xA")
	prefixTxCumul       = []byte("xc") // xc + number(8) -> transactions in blocks 0..number (8)
	prefixAddrTx        = []byte("xb") // xb + address + chunk(8) -> entries addrChunk*chunk.. of the address's list
	prefixAddrTxCount   = []byte("xB") // xB + address -> entries in the list (8) + first chunk still stored (8)
	keyTxIndexFrom      = []byte("m:txindex-from")
	keyTxIndexVersion   = []byte("m:txindex-v")
)

// addrChunk is how many list entries one key holds: a new entry rewrites
// at most this many (about 5 bytes each).
const addrChunk = 64

// TxRef locates an indexed transaction.
type TxRef struct {
	Block uint64
	Index uint32
	Hash  types.Hash
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

// addrList is one address's list as stored: its length and the first
// chunk not pruned.
type addrList struct {
	count, first uint64
}

func (w *indexBatch) addrList(a types.Address) (addrList, error) {
	v, err := w.get(key(prefixAddrTxCount, a[:]))
	if errors.Is(err, store.ErrNotFound) {
		return addrList{}, nil
	}
	if err != nil {
		return addrList{}, err
	}
	if len(v) != 16 {
		return addrList{}, fmt.Errorf("history index: list header of %d bytes", len(v))
	}
	return addrList{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}, nil
}

func (w *indexBatch) putAddrList(a types.Address, l addrList) {
	if l.count == 0 {
		w.delKey(prefixAddrTxCount, a[:])
		return
	}
	var buf [16]byte
	w.putKey(prefixAddrTxCount, a[:], l.appendTo(buf[:0]))
}

// appendTo appends the list header as stored to b.
func (l addrList) appendTo(b []byte) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(b, l.count), l.first)
}

// listEntry is one entry of an address's list.
type listEntry struct {
	block uint64
	index uint32
}

func appendEntry(out []byte, e listEntry) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(out, e.block), uint64(e.index))
}

func decodeChunk(v []byte) ([]listEntry, error) {
	var out []listEntry
	for len(v) > 0 {
		b, k := binary.Uvarint(v)
		if k <= 0 {
			return nil, errors.New("history index: malformed list chunk")
		}
		i, k2 := binary.Uvarint(v[k:])
		if k2 <= 0 || i > 1<<32-1 {
			return nil, errors.New("history index: malformed list chunk")
		}
		out = append(out, listEntry{b, uint32(i)})
		v = v[k+k2:]
	}
	if len(out) > addrChunk {
		return nil, fmt.Errorf("history index: list chunk of %d entries", len(out))
	}
	return out, nil
}

// chunk reads chunk c of a's list; nil when it is not stored (pruned, or
// past the end).
func (w *indexBatch) chunk(a types.Address, c uint64) ([]listEntry, error) {
	v, err := w.get(key(prefixAddrTx, a[:], numKey(c)))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeChunk(v)
}

func (w *indexBatch) putChunk(a types.Address, c uint64, es []listEntry) {
	if len(es) == 0 {
		w.delNum(prefixAddrTx, a[:], c)
		return
	}
	v := make([]byte, 0, 5*len(es))
	for _, e := range es {
		v = appendEntry(v, e)
	}
	w.putNum(prefixAddrTx, a[:], c, v)
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
	added := map[types.Address][]listEntry{}
	var order []types.Address // first-touch order, so writes are deterministic
	err := historyTouches(b, signer, transfers, func(i int, a types.Address) error {
		if _, ok := added[a]; !ok {
			order = append(order, a)
		}
		added[a] = append(added[a], listEntry{n, uint32(i)})
		return nil
	})
	if err != nil {
		return err
	}
	for _, a := range order {
		l, err := w.addrList(a)
		if err != nil {
			return err
		}
		c := l.count / addrChunk
		var cur []listEntry
		if l.count%addrChunk != 0 {
			if cur, err = w.chunk(a, c); err != nil {
				return err
			}
			if uint64(len(cur)) != l.count%addrChunk {
				return fmt.Errorf("history index: %s's last chunk holds %d entries, want %d", a, len(cur), l.count%addrChunk)
			}
		}
		for _, e := range added[a] {
			cur = append(cur, e)
			l.count++
			if len(cur) == addrChunk {
				w.putChunk(a, c, cur)
				c, cur = c+1, nil
			}
		}
		if len(cur) > 0 {
			w.putChunk(a, c, cur)
		}
		w.putAddrList(a, l)
	}
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], before+uint64(len(b.Transactions())))
	w.putKey(prefixTxCumul, numKey(n), v[:])
	return nil
}

// unwindHistory stages the removal of the history entries of canonical
// blocks base+1 .. old (dropped, the ones stored): the running totals are
// removed by the caller, and the tail of each list a dropped block
// extended goes here. It runs before anything else of the switch is
// staged.
func (w *indexBatch) unwindHistory(base, old uint64, dropped []*types.Block, signer func(*types.Block) types.Signer) error {
	if _, err := w.txCountThrough(old); errors.Is(err, ErrNotIndexed) {
		return nil // nothing dropped was indexed
	} else if err != nil {
		return err
	}
	if _, err := w.txCountThrough(base); errors.Is(err, ErrNotIndexed) {
		// The index began after base: it begins again with the next block.
		w.del(keyTxIndexFrom)
	} else if err != nil {
		return err
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
		l, err := w.addrList(a)
		if err != nil {
			return err
		}
		keep, err := w.addressTxCountBefore(a, base+1)
		if err != nil {
			return err
		}
		if keep == l.count {
			continue
		}
		for c := (keep + addrChunk - 1) / addrChunk; c <= (l.count-1)/addrChunk; c++ {
			w.delNum(prefixAddrTx, a[:], c)
		}
		if keep%addrChunk != 0 {
			c := keep / addrChunk
			es, err := w.chunk(a, c)
			if err != nil {
				return err
			}
			if uint64(len(es)) >= keep%addrChunk {
				w.putChunk(a, c, es[:keep%addrChunk])
			}
		}
		l.count = keep
		l.first = min(l.first, keep/addrChunk)
		w.putAddrList(a, l)
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
// data directory held blocks before the index existed, or older blocks
// were pruned from it.
func (db *DB) TxIndexFrom() (uint64, error) {
	v, ok, err := (&indexBatch{db: db}).getUint64(keyTxIndexFrom)
	if !ok {
		return 0, err
	}
	return v, err
}

// TxAt returns the transaction of the given ordinal (0 is the chain's
// first); ErrNotFound past the last and for pruned ones. The block is
// found by a binary search over the running totals.
func (db *DB) TxAt(ordinal uint64) (TxRef, error) {
	hh, ok := db.HeadHash()
	if !ok {
		return TxRef{}, ErrNotFound
	}
	head, ok := db.BlockNumber(hh)
	if !ok {
		return TxRef{}, ErrNotFound
	}
	from, err := db.TxIndexFrom()
	if err != nil {
		return TxRef{}, err
	}
	w := &indexBatch{db: db}
	var ferr error
	// The first block whose running total passes ordinal.
	span := head - from + 1
	i := sort.Search(int(span), func(i int) bool {
		if ferr != nil {
			return true
		}
		cum, err := w.txCountThrough(from + uint64(i))
		if err != nil {
			ferr = err
			return true
		}
		return cum > ordinal
	})
	if errors.Is(ferr, ErrNotIndexed) || uint64(i) == span {
		return TxRef{}, ErrNotFound
	}
	if ferr != nil {
		return TxRef{}, ferr
	}
	n := from + uint64(i)
	var before uint64
	if n > 0 {
		if before, err = w.txCountThrough(n - 1); errors.Is(err, ErrNotIndexed) {
			before = 0 // the index started at n
		} else if err != nil {
			return TxRef{}, err
		}
	}
	if ordinal < before {
		return TxRef{}, ErrNotFound // pruned
	}
	return db.txRef(n, uint32(ordinal-before))
}

// txRef completes the reference of transaction index of canonical block
// n with its hash.
func (db *DB) txRef(n uint64, index uint32) (TxRef, error) {
	h, ok := db.CanonicalHash(n)
	if !ok {
		return TxRef{}, ErrNotFound
	}
	b, err := db.Block(h)
	if err != nil {
		return TxRef{}, err
	}
	txs := b.Transactions()
	if int(index) >= len(txs) {
		return TxRef{}, fmt.Errorf("history index: transaction %d of block %d, which holds %d", index, n, len(txs))
	}
	return TxRef{Block: n, Index: index, Hash: txs[index].Hash()}, nil
}

// AddressTxCount is how many indexed transactions touch addr (pruned ones
// included: they keep their places in the list).
func (db *DB) AddressTxCount(addr types.Address) (uint64, error) {
	l, err := (&indexBatch{db: db}).addrList(addr)
	return l.count, err
}

// AddressTxAt returns the i-th transaction touching addr, in chain order;
// ErrNotFound past the last and for pruned ones.
func (db *DB) AddressTxAt(addr types.Address, i uint64) (TxRef, error) {
	w := &indexBatch{db: db}
	l, err := w.addrList(addr)
	if err != nil {
		return TxRef{}, err
	}
	if i >= l.count {
		return TxRef{}, ErrNotFound
	}
	es, err := w.chunk(addr, i/addrChunk)
	if err != nil {
		return TxRef{}, err
	}
	if uint64(len(es)) <= i%addrChunk {
		return TxRef{}, ErrNotFound // pruned
	}
	e := es[i%addrChunk]
	if from, err := db.TxIndexFrom(); err != nil {
		return TxRef{}, err
	} else if e.block < from {
		return TxRef{}, ErrNotFound // pruned, in a chunk still partly kept
	}
	return db.txRef(e.block, e.index)
}

// AddressTxCountBefore is how many of addr's transactions are in blocks
// before block n: a binary search over the address's list.
func (db *DB) AddressTxCountBefore(addr types.Address, n uint64) (uint64, error) {
	return (&indexBatch{db: db}).addressTxCountBefore(addr, n)
}

func (w *indexBatch) addressTxCountBefore(addr types.Address, n uint64) (uint64, error) {
	l, err := w.addrList(addr)
	if err != nil {
		return 0, err
	}
	var ferr error
	cache := map[uint64][]listEntry{}
	i := sort.Search(int(l.count), func(i int) bool {
		if ferr != nil {
			return true
		}
		c := uint64(i) / addrChunk
		es, ok := cache[c]
		if !ok {
			if es, ferr = w.chunk(addr, c); ferr != nil {
				return true
			}
			cache[c] = es
		}
		if uint64(len(es)) <= uint64(i)%addrChunk {
			return false // pruned: older than any kept block
		}
		return es[uint64(i)%addrChunk].block >= n
	})
	return uint64(i), ferr
}
