package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"
	"sync/atomic"
)

// A table is an immutable sorted file: data blocks of about blockSize,
// a bloom filter block, an index block (the last key of every data block
// and where it lies), and a fixed footer locating the index and filter.
// Every block carries its own checksum, and the footer one of its own.

const (
	blockSize   = 4 << 10
	footerSize  = 44
	tableMagic  = 0x6c736d74_63686431 // "1dhctmsl"
	tableSuffix = ".sst"
	logSuffix   = ".log"
)

func tableName(num uint64) string { return fmt.Sprintf("%06d%s", num, tableSuffix) }
func logFileName(num uint64) string {
	return fmt.Sprintf("%06d%s", num, logSuffix)
}

// handle locates a block in a table file (without its checksum).
type handle struct {
	off int64
	n   int64
}

// tableWriter writes a table from entries given in key order.
type tableWriter struct {
	f        file
	off      int64  // bytes of the table so far
	written  int64  // bytes of it in the file
	started  int64  // bytes of it whose writeback has been started
	out      []byte // the rest
	data     blockBuilder
	index    blockBuilder
	hashes   []uint64
	lastKey  []byte
	smallest []byte
	count    uint64
	// pending is the block written last, whose index entry waits for the
	// next block's first key (separator); pendingSet says there is one.
	pending    handle
	pendingSet bool
	sep        []byte
}

func newTableWriter(f file) *tableWriter { return &tableWriter{f: f} }

func (w *tableWriter) add(key, val []byte, del bool) error {
	if w.count == 0 {
		w.smallest = append([]byte(nil), key...)
	}
	kind := kindPut
	if del {
		kind, val = kindDel, nil
	}
	if w.pendingSet {
		w.sep = separator(w.sep[:0], w.lastKey, key)
		w.addIndex(w.sep)
	}
	w.data.add(kind, key, val)
	w.hashes = append(w.hashes, keyHash(key))
	w.lastKey = append(w.lastKey[:0], key...)
	w.count++
	if w.data.size() >= blockSize {
		return w.flushBlock()
	}
	return nil
}

// size is about how many bytes the table holds so far.
func (w *tableWriter) size() int64 { return w.off + int64(w.data.size()) }

// writeBlock appends a finished block to the output, which goes to the
// file in large writes (one system call per tableWriteBuf, not per block).
func (w *tableWriter) writeBlock(raw []byte) (handle, error) {
	h := handle{off: w.off, n: int64(len(raw) - blockTrailer)}
	w.out = append(w.out, raw...)
	w.off += int64(len(raw))
	if len(w.out) >= tableWriteBuf {
		return h, w.flushOut()
	}
	return h, nil
}

const tableWriteBuf = 256 << 10

func (w *tableWriter) flushOut() error {
	if len(w.out) == 0 {
		return nil
	}
	_, err := w.f.WriteAt(w.out, w.written)
	w.written += int64(len(w.out))
	w.out = w.out[:0]
	// The table goes to the disk as it is written, not all at its final
	// fsync: megabytes flushed at once queue in the disk ahead of the
	// log's small fsync'd commits, which then wait for them.
	if w.written-w.started >= tableWriteback {
		w.f.writeback(w.started, w.written-w.started)
		w.started = w.written
	}
	return err
}

const tableWriteback = 1 << 20

func (w *tableWriter) flushBlock() error {
	if w.data.empty() {
		return nil
	}
	h, err := w.writeBlock(w.data.finish())
	if err != nil {
		return err
	}
	w.pending, w.pendingSet = h, true
	return nil
}

// addIndex adds the pending block's index entry under key, which is at or
// after the block's last key and before the next block's first.
func (w *tableWriter) addIndex(key []byte) {
	var v []byte
	v = binary.AppendUvarint(v, uint64(w.pending.off))
	v = binary.AppendUvarint(v, uint64(w.pending.n))
	w.index.add(kindPut, key, v)
	w.pendingSet = false
}

// separator appends to dst a short key s with a <= s < b (a < b): the
// index needs only to tell a block's keys from the next block's, and for
// hashed keys a few bytes do (a prefix and one byte) where the last key
// takes 33 or more: the index, pinned in memory for every table (pin.go),
// shrinks to a third. When no such shorter key exists it is a itself.
func separator(dst, a, b []byte) []byte {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n < len(a) && n < len(b) && a[n] < 0xff && a[n]+1 < b[n] {
		return append(append(dst, a[:n]...), a[n]+1)
	}
	return append(dst, a...)
}

// finish writes the filter, index and footer and syncs the file. It
// returns the file's size and its key range.
func (w *tableWriter) finish() (size int64, smallest, largest []byte, err error) {
	if err := w.flushBlock(); err != nil {
		return 0, nil, nil, err
	}
	if w.pendingSet { // the last block's entry: its own last key
		w.addIndex(w.lastKey)
	}
	f := buildBloom(w.hashes)
	f = binary.LittleEndian.AppendUint32(f, crc32.Checksum(f, castagnoli))
	fh, err := w.writeBlock(f)
	if err != nil {
		return 0, nil, nil, err
	}
	ih, err := w.writeBlock(w.index.finish())
	if err != nil {
		return 0, nil, nil, err
	}
	var ft [footerSize]byte
	binary.LittleEndian.PutUint64(ft[0:], uint64(ih.off))
	binary.LittleEndian.PutUint32(ft[8:], uint32(ih.n))
	binary.LittleEndian.PutUint64(ft[12:], uint64(fh.off))
	binary.LittleEndian.PutUint32(ft[20:], uint32(fh.n))
	binary.LittleEndian.PutUint64(ft[24:], w.count)
	binary.LittleEndian.PutUint32(ft[32:], crc32.Checksum(ft[:32], castagnoli))
	binary.LittleEndian.PutUint64(ft[36:], tableMagic)
	w.out = append(w.out, ft[:]...)
	w.off += footerSize
	if err := w.flushOut(); err != nil {
		return 0, nil, nil, err
	}
	if err := w.f.Sync(); err != nil {
		return 0, nil, nil, err
	}
	return w.off, w.smallest, append([]byte(nil), w.lastKey...), nil
}

// table is a table of the current version, shared by every version that
// lists it; the last one to let go of it closes its file, and removes it
// once a compaction has replaced it. Its file is open only while the
// store's bounded set of open table files (tableFiles) holds it.
type table struct {
	num      uint64
	size     int64
	smallest []byte
	largest  []byte

	refs     atomic.Int32
	obsolete atomic.Bool
	db       *DB
	// compacting is set while a compaction has it as an input
	// (guarded by db.mu).
	compacting bool

	fh atomic.Pointer[tableFile] // set while open; changed under db.files.mu

	// pinned holds the index and filter once the pinner has loaded them
	// (pin.go); pinFailed says it found them damaged or unreadable.
	pinned    atomic.Pointer[pinnedMeta]
	pinFailed atomic.Bool

	// The footer's fields, read once: loaded is set after them.
	mu     sync.Mutex
	loaded atomic.Bool
	index  handle
	filter handle
	count  uint64
}

func (t *table) ref() { t.refs.Add(1) }

func (t *table) unref() {
	if t.refs.Add(-1) != 0 {
		return
	}
	t.unpinMeta()
	t.db.files.drop(t)
	if t.obsolete.Load() {
		t.db.fs.remove(path(t.db.dir, tableName(t.num)))
	}
}

// damaged is the error for a table that fails a check.
func (t *table) damaged(what string, off int64) error {
	return fmt.Errorf("%w: table %s: %s at offset %d; run `chaind repair --datadir %s` to set it aside",
		ErrDamaged, path(t.db.dir, tableName(t.num)), what, off, t.db.dir)
}

// readAt reads from the table's file, holding it open (pinned) for the
// length of the read only.
func (t *table) readAt(p []byte, off int64) error {
	h, err := t.db.files.pin(t)
	if err != nil {
		return err
	}
	_, err = h.f.ReadAt(p, off)
	t.db.files.unpin(h)
	return err
}

// load reads and checks the footer on first use.
func (t *table) load() error {
	if t.loaded.Load() {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.loaded.Load() {
		return nil
	}
	var ft [footerSize]byte
	if t.size < footerSize {
		return t.damaged("file too short", 0)
	}
	h, err := t.db.files.pin(t)
	if err != nil {
		return err
	}
	_, err = h.f.ReadAt(ft[:], t.size-footerSize)
	t.db.files.unpin(h)
	if err != nil {
		return t.damaged(fmt.Sprintf("unreadable footer (%v)", err), t.size-footerSize)
	}
	if binary.LittleEndian.Uint64(ft[36:]) != tableMagic || crc32.Checksum(ft[:32], castagnoli) != binary.LittleEndian.Uint32(ft[32:]) {
		return t.damaged("footer checksum mismatch", t.size-footerSize)
	}
	index := handle{int64(binary.LittleEndian.Uint64(ft[0:])), int64(binary.LittleEndian.Uint32(ft[8:]))}
	filter := handle{int64(binary.LittleEndian.Uint64(ft[12:])), int64(binary.LittleEndian.Uint32(ft[20:]))}
	for _, h := range []handle{index, filter} {
		if h.off < 0 || h.n < 0 || h.off+h.n+blockTrailer > t.size-footerSize {
			return t.damaged("footer points outside the file", t.size-footerSize)
		}
	}
	t.index, t.filter, t.count = index, filter, binary.LittleEndian.Uint64(ft[24:])
	t.loaded.Store(true)
	return nil
}

// readahead serves a sequential reader (a compaction) blocks out of large
// reads.
type readahead struct {
	buf []byte
	off int64 // file offset of buf
}

const readaheadSize = 256 << 10

// readRaw reads a block and checks its checksum; ra, when given, reads
// ahead.
func (t *table) readRaw(h handle, ra *readahead) ([]byte, error) {
	if err := t.load(); err != nil {
		return nil, err
	}
	if h.off < 0 || h.n < 0 || h.off+h.n+blockTrailer > t.size {
		return nil, t.damaged("block handle outside the file", h.off)
	}
	n := h.n + blockTrailer
	var raw []byte
	if ra != nil && n <= readaheadSize {
		if h.off < ra.off || h.off+n > ra.off+int64(len(ra.buf)) {
			ra.buf = make([]byte, min(readaheadSize, t.size-h.off)) // blocks handed out keep the old one
			ra.off = h.off
			if err := t.readAt(ra.buf, h.off); err != nil {
				return nil, fmt.Errorf("store: reading table %s at offset %d: %w", tableName(t.num), h.off, err)
			}
		}
		raw = ra.buf[h.off-ra.off : h.off-ra.off+n]
	} else {
		raw = make([]byte, n)
		if err := t.readAt(raw, h.off); err != nil {
			return nil, fmt.Errorf("store: reading table %s at offset %d: %w", tableName(t.num), h.off, err)
		}
	}
	content, ok := checkBlock(raw)
	if !ok {
		return nil, t.damaged("block checksum mismatch", h.off)
	}
	return content, nil
}

// block returns a checked block, through the cache when fill is set
// (reads) and around it otherwise (compactions, which read every block
// once and would only push out the ones readers use). A compaction does
// not even look: it reads ahead in large reads anyway, and its lookups,
// one per block of gigabytes merged, took the shards' locks the readers
// take and swamped the hit rate --cache's split is judged by (1.17M
// lookups, 2.8% hits, over a 10M-account node's load while it merged a
// backlog of 2.5 GB).
func (t *table) block(h handle, fill bool, ra *readahead) (block, error) {
	k := cacheKey{t.num, h.off}
	if fill {
		if b, ok := t.db.cache.get(k); ok {
			return b, nil
		}
	}
	content, err := t.readRaw(h, ra)
	if err != nil {
		return block{}, err
	}
	b, err := parseBlock(content)
	if err != nil {
		return block{}, t.damaged("malformed block", h.off)
	}
	if fill {
		t.db.cache.put(k, b)
	}
	return b, nil
}

// filterBlock returns the bloom filter, cached as a block of no entries.
func (t *table) filterBlock() ([]byte, error) {
	if p := t.pinned.Load(); p != nil {
		return p.filter, nil
	}
	if err := t.load(); err != nil {
		return nil, err
	}
	k := cacheKey{t.num, t.filter.off}
	if b, ok := t.db.cache.get(k); ok {
		return b.data, nil
	}
	content, err := t.readRaw(t.filter, nil)
	if err != nil {
		return nil, err
	}
	t.db.cache.put(k, block{data: content})
	return content, nil
}

func (t *table) indexBlock(fill bool) (block, error) {
	if p := t.pinned.Load(); p != nil {
		return p.index, nil
	}
	if err := t.load(); err != nil {
		return block{}, err
	}
	return t.block(t.index, fill, nil)
}

// get looks key up: found is false when the table holds no entry for it.
func (t *table) get(key []byte, hash uint64) (val []byte, del, found bool, err error) {
	if bytes.Compare(key, t.smallest) < 0 || bytes.Compare(key, t.largest) > 0 {
		return nil, false, false, nil
	}
	f, err := t.filterBlock()
	if err != nil {
		return nil, false, false, err
	}
	if !bloomMayContain(f, hash) {
		return nil, false, false, nil
	}
	it := t.iter(true)
	it.seek(key)
	if it.e != nil {
		return nil, false, false, it.e
	}
	if !it.valid() || !bytes.Equal(it.key(), key) {
		return nil, false, false, nil
	}
	return it.value(), it.deleted(), true, nil
}

// decodeHandle reads an index entry's value.
func decodeHandle(v []byte) (handle, bool) {
	off, n := binary.Uvarint(v)
	if n <= 0 {
		return handle{}, false
	}
	l, m := binary.Uvarint(v[n:])
	if m <= 0 || off > 1<<62 || l > 1<<40 {
		return handle{}, false
	}
	return handle{int64(off), int64(l)}, true
}

// tableIter walks a table in key order.
type tableIter struct {
	t     *table
	fill  bool
	index block
	ii    int // position in the index
	data  block
	di    int // position in the data block
	k, v  []byte
	kind  byte
	e     error
	ra    *readahead // reads that skip the cache read ahead
}

func (t *table) iter(fill bool) *tableIter {
	it := &tableIter{t: t, fill: fill}
	if !fill {
		it.ra = &readahead{}
	}
	return it
}

func (it *tableIter) fail(err error) { it.e, it.k = err, nil }

// loadData reads the data block at index position ii and positions at
// entry di of it.
func (it *tableIter) loadData(di int) {
	for it.ii < it.index.n {
		_, _, v, err := it.index.entry(it.ii)
		if err != nil {
			it.fail(it.t.damaged("malformed index", it.t.index.off))
			return
		}
		h, ok := decodeHandle(v)
		if !ok {
			it.fail(it.t.damaged("malformed index entry", it.t.index.off))
			return
		}
		if it.data, err = it.t.block(h, it.fill, it.ra); err != nil {
			it.fail(err)
			return
		}
		if it.di = di; it.di < it.data.n {
			it.load()
			return
		}
		it.ii, di = it.ii+1, 0
	}
	it.k = nil
}

func (it *tableIter) load() {
	kind, k, v, err := it.data.entry(it.di)
	if err != nil {
		it.fail(it.t.damaged("malformed entry", 0))
		return
	}
	it.kind, it.k, it.v = kind, k, v
}

func (it *tableIter) seek(key []byte) {
	idx, err := it.t.indexBlock(it.fill)
	if err != nil {
		it.fail(err)
		return
	}
	it.index = idx
	if it.ii, err = idx.search(key); err != nil {
		it.fail(it.t.damaged("malformed index", it.t.index.off))
		return
	}
	it.loadData(0)
	if it.k == nil {
		return
	}
	di, err := it.data.search(key)
	if err != nil {
		it.fail(it.t.damaged("malformed block", 0))
		return
	}
	if it.di = di; di < it.data.n {
		it.load()
		return
	}
	// Only when the index's key for the block is not its last key.
	it.ii++
	it.loadData(0)
}

func (it *tableIter) next() {
	if it.di++; it.di < it.data.n {
		it.load()
		return
	}
	it.ii++
	it.loadData(0)
}

func (it *tableIter) valid() bool   { return it.k != nil }
func (it *tableIter) key() []byte   { return it.k }
func (it *tableIter) value() []byte { return it.v }
func (it *tableIter) deleted() bool { return it.kind == kindDel }
func (it *tableIter) err() error    { return it.e }
