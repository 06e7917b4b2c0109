package chain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state/flat"
	"github.com/chaind/chaind/trie"
)

// Key layout of the chain store. One byte of prefix per table keeps keys
// short and lets Iterate walk one table.
var (
	prefixCanonical = []byte("h") // h + number(8) -> block hash
	prefixNumber    = []byte("H") // H + hash -> number(8)
	prefixBlock     = []byte("b") // b + hash -> block RLP
	prefixReceipts  = []byte("r") // r + hash -> RLP list of storage receipts
	prefixTxLookup  = []byte("t") // t + tx hash -> block hash + index(4)
	prefixNode      = []byte("n") // n + hash -> trie node or contract code
	prefixCert      = []byte("c") // c + number(8) -> commit certificate of the block (consensus encoding)
	keyHead         = []byte("m:head")
	keyGenesis      = []byte("m:genesis") // block 0's hash; the genesis spec's records are in genesisrecord.go
)

func key(prefix []byte, rest ...[]byte) []byte {
	k := append([]byte(nil), prefix...)
	for _, r := range rest {
		k = append(k, r...)
	}
	return k
}

func numKey(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// maxKeyLen bounds the keys putKey and putNumKey assemble on the stack;
// the longest is a prefix, an address or hash, and a number.
const maxKeyLen = 2 + 32 + 8

// putKey puts prefix+mid = v into the pending batch. The batch copies
// keys, so the key is assembled in a stack buffer rather than allocated:
// a block import stages several keys per transaction. Called with db.mu
// held.
func (db *DB) putKey(prefix, mid, v []byte) {
	var buf [maxKeyLen]byte
	db.pending.Put(append(append(buf[:0], prefix...), mid...), v)
}

// putNumKey puts prefix+mid+n (8 bytes, big-endian) = v into the pending
// batch, as putKey does. Called with db.mu held.
func (db *DB) putNumKey(prefix, mid []byte, n uint64, v []byte) {
	var buf [maxKeyLen]byte
	db.pending.Put(binary.BigEndian.AppendUint64(append(append(buf[:0], prefix...), mid...), n), v)
}

// ErrNotFound is returned by lookups of absent blocks, receipts and
// transactions.
var ErrNotFound = errors.New("not found")

// DB stores blocks, receipts, lookups and trie nodes over a key-value
// store. It is the trie.Database of the state: nodes a state commit writes
// wait in memory and reach the disk in the same atomic batch as the block
// that produced them, so a crash never leaves a block without its state or
// state without its block.
type DB struct {
	kv store.KV

	mu sync.RWMutex
	// pending and overlay are the writes and trie nodes staged for the
	// next store write. Nothing of a committed block waits here once its
	// commit returns: every path that stores a block or a state (commit,
	// insert, CommitState, Rewind, WriteSideBlock) stages and writes under
	// the chain's writer lock before it returns, and a failed one discards
	// what it staged. A block built and not (yet) committed stages nothing
	// (its state stays in its StateDB). So a store closed with no flush of
	// this batch (Node.Close, a kill) loses no block the chain answered
	// for (TestNothingOfACommitWaitsInMemory).
	pending store.Batch
	overlay map[[32]byte][]byte
	// flushMu orders the writes of pending batches (Flush) and is held
	// across the store write, which mu is not: the batch and its nodes
	// are set aside first (writing holds the nodes, nil when no write is
	// under way), so node readers and pruning never wait behind a
	// commit's fsync. spare and spareOv are the last write's emptied
	// batch and overlay, reused.
	flushMu sync.Mutex
	writing map[[32]byte][]byte
	spare   store.Batch
	spareOv map[[32]byte][]byte
	// written are the nodes of the last write, stored by now and kept
	// until the next one: the pruner walks the newest block's state right
	// after its commit (countBlock), and the nodes below the levels a
	// commit caches (writtenCacheDepth) would otherwise be read back from
	// the store, a read or two for every account the block changed. A
	// node pruning deletes leaves it too (deleteNodes).
	written map[[32]byte][]byte
	track   map[[32]byte]struct{} // nodes written while a pruning pass marks; nil when none runs
	// deleting is the set of nodes a pruning pass is deleting right now
	// (deleteNodes): set under mu, cleared when the deletes are written.
	deleting atomic.Pointer[nodeDeletes]
	delWaits deleteWaits // how long writes waited for deletes in flight
	clean    *nodeCache  // nodes read and written last (nil: none)
	pin      *bloom      // while the genesis state is committed: its pin filter (prunepin.go)

	// idx are the history index values a history prune is writing
	// (swapHistory), for the index's readers until they are stored: a
	// commit reads the lists it extends from the store, and must find the
	// list headers the prune moved.
	idx map[string][]byte

	flat       *flat.Layer // the flat copy of the newest state; nil: none (flatstate.go)
	flatStaged []flatDiff  // diffs of the state commits pending
	flatCtx    flatContext // the block they belong to

	acctIndex bool // the store keeps the account index (acctindex.go)
}

// startTracking begins recording the hashes of written nodes; it reports
// false if a pruning pass already does.
func (db *DB) startTracking() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.track != nil {
		return false
	}
	db.track = map[[32]byte]struct{}{}
	return true
}

func (db *DB) stopTracking() {
	db.mu.Lock()
	db.track = nil
	db.mu.Unlock()
}

// NewDB wraps a key-value store.
func NewDB(kv store.KV) *DB { return &DB{kv: kv, overlay: map[[32]byte][]byte{}} }

// Node implements trie.Reader.
func (db *DB) Node(hash [32]byte) ([]byte, error) {
	db.mu.RLock()
	blob, ok := db.overlay[hash]
	if !ok && db.writing != nil {
		blob, ok = db.writing[hash]
	}
	written := false
	if !ok && db.written != nil {
		blob, ok = db.written[hash]
		written = ok
	}
	db.mu.RUnlock()
	if written {
		db.clean.TryPut(hash, blob) // as read from the store: the next write lets it go
	}
	if ok {
		return blob, nil
	}
	if blob, ok := db.clean.Get(hash); ok {
		return blob, nil
	}
	var buf [maxKeyLen]byte
	blob, err := db.kv.Get(append(append(buf[:0], prefixNode...), hash[:]...))
	if errors.Is(err, store.ErrNotFound) {
		return nil, trie.MissingNode(hash)
	}
	if err == nil {
		db.clean.TryPut(hash, blob) // a reader: not worth waiting for the shard
	}
	return blob, err
}

// Update implements trie.Database: the nodes are held until the next
// WriteBlock (or Flush).
func (db *DB) Update(set *trie.NodeSet) error {
	db.mu.Lock()
	// Each node is a key (prefix and hash), its blob and their framing.
	db.pending.Grow(set.Size() + set.Len()*(len(prefixNode)+32+8))
	set.ForEach(func(hash [32]byte, blob []byte) {
		if db.track != nil {
			db.track[hash] = struct{}{}
		}
		if db.pin != nil {
			db.pin.add(hash)
		}
		if _, ok := db.overlay[hash]; ok {
			return
		}
		b := append([]byte(nil), blob...)
		db.overlay[hash] = b
		db.putKey(prefixNode, hash[:], b)
	})
	// The upper nodes go to the node cache once mu is let go: the overlay
	// serves them meanwhile, and Node's readers (the next block's and the
	// pool's warmers, eth_getBalance) need not wait on mu for a block's
	// some 20,000 cache puts.
	var upper []writtenNode
	if db.clean != nil {
		set.ForEachUpper(writtenCacheDepth, func(hash [32]byte, _ []byte) {
			upper = append(upper, writtenNode{hash, db.overlay[hash]})
		})
	}
	db.mu.Unlock()
	for _, n := range upper {
		db.clean.Put(n.hash, n.blob)
	}
	return nil
}

// writtenNode is a node Update caches.
type writtenNode struct {
	hash [32]byte
	blob []byte
}

// Keep implements state.Keeper: nodes and code a fork's upstream supplied
// are written at once, in their own batch, rather than with the next
// block. They are content-addressed and the upstream's, right whatever
// block comes next, so nothing can be left inconsistent by writing them
// early; and a fork restarted without having made a block still holds
// what it read. A pruning pass running now keeps them, as it keeps every
// node written while it marks.
func (db *DB) Keep(set *trie.NodeSet) error {
	var b store.Batch
	var buf [maxKeyLen]byte
	var again bool
	db.mu.Lock()
	d := db.deleting.Load()
	set.ForEach(func(hash [32]byte, blob []byte) {
		if db.track != nil {
			db.track[hash] = struct{}{}
		}
		again = again || d.has(hash)
		b.Put(append(append(buf[:0], prefixNode...), hash[:]...), blob)
	})
	db.mu.Unlock()
	if again {
		d.wait()
	}
	return db.kv.Write(&b)
}

// Discard drops nodes written since the last WriteBlock, e.g. by a block
// that failed validation after its state was committed.
func (db *DB) Discard() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.pending.Reset()
	clear(db.overlay)
	db.flatStaged, db.flatCtx = nil, flatContext{}
}

// WriteBlock durably stores a block as the new canonical head, together
// with its receipts, its transaction lookups and every trie node written
// since the last call, in one atomic batch. It keeps no history index:
// the chain's own blocks are committed with theirs (Chain.commit).
func (db *DB) WriteBlock(b *types.Block, receipts types.Receipts) error {
	return db.switchCanonical(&canonSwitch{tip: b, tipReceipts: receipts})
}

func encodeReceipts(rs types.Receipts) []byte {
	var buf rlp.Buffer
	l := buf.List()
	for _, r := range rs {
		buf.WriteRaw(r.EncodeForStorage())
	}
	buf.ListEnd(l)
	return buf.Bytes()
}

// HeadHash returns the hash of the canonical head, or false on an empty store.
func (db *DB) HeadHash() (types.Hash, bool) {
	v, err := db.kv.Get(keyHead)
	if err != nil || len(v) != 32 {
		return types.Hash{}, false
	}
	return types.Hash(v), true
}

// GenesisHash returns the hash of block 0, or false on an empty store.
func (db *DB) GenesisHash() (types.Hash, bool) {
	v, err := db.kv.Get(keyGenesis)
	if err != nil || len(v) != 32 {
		return types.Hash{}, false
	}
	return types.Hash(v), true
}

// CanonicalHash returns the hash of canonical block n.
func (db *DB) CanonicalHash(n uint64) (types.Hash, bool) {
	v, err := db.kv.Get(key(prefixCanonical, numKey(n)))
	if err != nil || len(v) != 32 {
		return types.Hash{}, false
	}
	return types.Hash(v), true
}

// BlockNumber returns the number of the block with the given hash.
func (db *DB) BlockNumber(h types.Hash) (uint64, bool) {
	v, err := db.kv.Get(key(prefixNumber, h[:]))
	if err != nil || len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

// Block returns the block with the given hash.
func (db *DB) Block(h types.Hash) (*types.Block, error) {
	v, err := db.kv.Get(key(prefixBlock, h[:]))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	b, err := types.DecodeBlock(v)
	if err != nil {
		return nil, fmt.Errorf("stored block %s: %w", h, err)
	}
	return b, nil
}

// RawBlock returns the stored RLP of a block.
func (db *DB) RawBlock(h types.Hash) ([]byte, error) {
	v, err := db.kv.Get(key(prefixBlock, h[:]))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	return v, err
}

// Receipts returns the consensus and storage fields of a block's receipts;
// callers derive the rest with types.DeriveReceiptFields.
func (db *DB) Receipts(h types.Hash) (types.Receipts, error) {
	v, err := db.kv.Get(key(prefixReceipts, h[:]))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	content, _, err := rlp.SplitList(v)
	if err != nil {
		return nil, err
	}
	var rs types.Receipts
	for len(content) > 0 {
		_, _, rest, err := rlp.Split(content)
		if err != nil {
			return nil, err
		}
		r, err := types.DecodeReceiptFromStorage(content[:len(content)-len(rest)])
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
		content = rest
	}
	return rs, nil
}

// TxLookup returns the block hash and index of a transaction.
func (db *DB) TxLookup(txHash types.Hash) (types.Hash, int, bool) {
	v, err := db.kv.Get(key(prefixTxLookup, txHash[:]))
	if err != nil || len(v) != 36 {
		return types.Hash{}, 0, false
	}
	return types.Hash(v[:32]), int(binary.BigEndian.Uint32(v[32:])), true
}

// WriteSideBlock stores a block that is not (yet) canonical: the block,
// its receipts, its transfers (for the history index, should it become
// canonical), its number and the trie nodes written since the last
// write, without touching the canonical index or the head.
func (db *DB) WriteSideBlock(b *types.Block, receipts types.Receipts, transfers [][]types.Address) error {
	db.mu.Lock()
	h := b.Hash()
	db.pending.Put(key(prefixBlock, h[:]), b.EncodeRLP())
	db.pending.Put(key(prefixReceipts, h[:]), encodeReceipts(receipts))
	db.pending.Put(key(prefixNumber, h[:]), numKey(b.Number()))
	db.pending.Put(key(prefixTransfers, h[:]), encodeTransfers(transfers))
	db.flatCtx = flatContext{num: b.Number(), hash: h, side: true}
	db.mu.Unlock()
	return db.Flush()
}
