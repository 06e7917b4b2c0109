// Package store is chaind's durable key-value storage, built on the standard
// library alone: a log-structured merge tree.
//
// A batch is appended to the write-ahead log as one checksummed record and
// fsync'd before Write returns, then applied to the memtable, a sorted
// in-memory skip list. A full memtable is written in the background as an
// immutable sorted table (checksummed blocks, a block index and a bloom
// filter), and the tables are merged level by level in the background
// (levelled compaction), so reads touch a bounded number of tables. The
// manifest names the live tables and the oldest log still needed; opening
// reads it and replays only the logs written since the last flush, so
// open time and memory depend on configuration (memtable size, block
// cache), not on how much the store holds.
//
// A torn last log record is cut and reported; damage anywhere else in a
// log, in a table block or in the manifest is refused (ErrDamaged) and
// never served, and Repair sets the damaged bytes aside.
package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Errors callers can test for.
var (
	ErrNotFound = errors.New("store: not found")
	ErrClosed   = errors.New("store: closed")
	ErrReadOnly = errors.New("store: opened read-only")
)

// Reader reads keys.
type Reader interface {
	Get(key []byte) ([]byte, error) // ErrNotFound when absent
	Has(key []byte) (bool, error)
}

// Writer applies batches atomically.
type Writer interface {
	Write(b *Batch) error
}

// KV is what chaind's chain store needs from a key-value store.
type KV interface {
	Reader
	Writer
	// Iterate calls fn for every key with the given prefix, in key order,
	// until fn returns false.
	Iterate(prefix []byte, fn func(key, value []byte) bool) error
	// IterateKeys calls fn for every key with the given prefix, in no
	// particular order, without reading values.
	IterateKeys(prefix []byte, fn func(key []byte) bool) error
	Close() error
}

const (
	opPut byte = 1
	opDel byte = 2
)

// Batch collects puts and deletes applied by one Write.
type Batch struct {
	ops  []byte
	n    int
	size int
}

// grow makes room for n more bytes of operations, doubling: append
// grows a large slice by a quarter at a time, and a large batch whose
// size its writer does not know ahead (see Grow) was copied and its new
// room cleared some twenty times over as it grew (a block's at 10M
// accounts: tens of MB, Batch.Put's growth 7% of a loaded node's CPU).
func (b *Batch) grow(n int) {
	if cap(b.ops)-len(b.ops) >= n {
		return
	}
	ops := make([]byte, len(b.ops), max(2*cap(b.ops), len(b.ops)+n, 4096))
	copy(ops, b.ops)
	b.ops = ops
}

// Put records key = value.
func (b *Batch) Put(key, value []byte) {
	b.grow(1 + 2*binary.MaxVarintLen64 + len(key) + len(value))
	b.ops = append(b.ops, opPut)
	b.ops = binary.AppendUvarint(b.ops, uint64(len(key)))
	b.ops = append(b.ops, key...)
	b.ops = binary.AppendUvarint(b.ops, uint64(len(value)))
	b.ops = append(b.ops, value...)
	b.n++
	b.size += len(key) + len(value)
}

// Delete records the removal of key.
func (b *Batch) Delete(key []byte) {
	b.grow(1 + binary.MaxVarintLen64 + len(key))
	b.ops = append(b.ops, opDel)
	b.ops = binary.AppendUvarint(b.ops, uint64(len(key)))
	b.ops = append(b.ops, key...)
	b.n++
}

// Grow makes room for about n more bytes of keys and values (with their
// framing), so that a caller staging a large batch whose size it knows
// (a block's trie nodes: tens of megabytes at 10,000 transfers) grows it
// once rather than in the many copies appending would make.
func (b *Batch) Grow(n int) { b.ops = slices.Grow(b.ops, n) }

// Len is the number of operations in the batch.
func (b *Batch) Len() int { return b.n }

// Size is the number of key and value bytes the batch writes.
func (b *Batch) Size() int { return b.size }

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() { b.ops, b.n, b.size = b.ops[:0], 0, 0 }

// forEach decodes the batch's operations in order.
func (b *Batch) forEach(fn func(del bool, key, value []byte)) error {
	p := b.ops
	i := 0
	for i < len(p) {
		kind := p[i]
		i++
		kl, n := binary.Uvarint(p[i:])
		if n <= 0 || kl > uint64(len(p)-i-n) {
			return errors.New("store: bad key length")
		}
		i += n
		key := p[i : i+int(kl)]
		i += int(kl)
		switch kind {
		case opPut:
			vl, n := binary.Uvarint(p[i:])
			if n <= 0 || vl > uint64(len(p)-i-n) {
				return errors.New("store: bad value length")
			}
			i += n
			fn(false, key, p[i:i+int(vl)])
			i += int(vl)
		case opDel:
			fn(true, key, nil)
		default:
			return fmt.Errorf("store: unknown op %d", kind)
		}
	}
	return nil
}

// Options size the store. Zero fields take the defaults.
type Options struct {
	// CacheMiB is the block cache in MiB (default 64): with the
	// memtables, the bound on the memory the store holds.
	CacheMiB int
	// FlushOnClose makes a clean Close write a large memtable to a table
	// (chaind init: its genesis would otherwise be replayed from the log
	// by the first start).
	FlushOnClose bool
	// MemtableBytes is how much a memtable holds before it is flushed
	// (default 8 MiB); at most 1+maxImmutable exist, and open replays at
	// most their logs.
	MemtableBytes int64
	// TableBytes is the size tables are cut at (default 4 MiB).
	TableBytes int64
	// L1Bytes is level 1's size; each level below is ten times the one
	// above (default 64 MiB).
	L1Bytes int64
	// MaxOpenTables is how many table files the store holds open at
	// once (default DefaultMaxOpenTables); the least recently read is
	// closed to open another. A node passes the descriptors it reserved
	// for its store.
	MaxOpenTables int
	// QuietStart is how long after open the compactions that no writer
	// waits for (level 0 below l0SlowWrites tables) are held back, so a
	// backlog of merges does not compete with a node's first reads; 0:
	// none are.
	QuietStart time.Duration
	// CompactOnClose makes a clean Close, after FlushOnClose's flush,
	// merge the tables until no compaction is due: level 0 empty and
	// every level within its size (chaind init: a bulk load leaves a
	// backlog of merges the node would otherwise run beside its first
	// blocks).
	CompactOnClose bool
	// NoSync skips fsync (tests and benchmarks only).
	NoSync bool

	fs vfs // the file system; the operating system's when nil
	// compactHook, when set, runs as a compaction begins (tests).
	compactHook func(c *compaction)
	// pinBytes, when set, is the pinning budget (tests; see pin.go).
	pinBytes int64
}

func (o Options) withDefaults() Options {
	if o.CacheMiB <= 0 {
		o.CacheMiB = 64
	}
	if o.MemtableBytes <= 0 {
		o.MemtableBytes = 8 << 20
	}
	if o.TableBytes <= 0 {
		o.TableBytes = 4 << 20
	}
	if o.L1Bytes <= 0 {
		o.L1Bytes = 64 << 20
	}
	if o.MaxOpenTables <= 0 {
		o.MaxOpenTables = DefaultMaxOpenTables
	}
	if o.fs == nil {
		o.fs = osFS{}
	}
	return o
}

// NodeQuietStart is a node's Options.QuietStart: a data directory left
// with a backlog of merges (a large `chaind init`, a node stopped under
// load) would otherwise spend its first minute compacting beside the
// first reads and blocks, on a machine of two cores half of it.
const NodeQuietStart = 30 * time.Second

// DefaultMaxOpenTables is the table files a store holds open unless told
// otherwise: with the log, manifest, lock and tip files it fits in the
// 1024 descriptors a shell's default limit allows.
const DefaultMaxOpenTables = 960

const (
	l0CompactTrigger = 4 // L0 tables that start a compaction into L1
	// l0SlowWrites is where writes begin to give way (slowWrite each)
	// to the compactions: a long stop at l0StopWrites becomes many
	// short delays before it.
	l0SlowWrites = 12
	l0StopWrites = 20 // L0 tables that hold writes until one ends
	// maxImmutable is how many full memtables may wait for the flusher
	// before writes wait for it: with one, every flush that took longer
	// than filling a memtable stopped the writers (a block commit) until
	// it ended.
	maxImmutable = 2
)

// version is one state of the tree: the memtables and the tables of each
// level. A reader holds a version for as long as it reads; its tables
// stay open (and on disk) until the last version naming them is let go.
type version struct {
	mem    *memtable
	imms   []*memtable // full, oldest first, waiting to be flushed
	levels [numLevels][]*table
	refs   atomic.Int32
}

func (v *version) unref() {
	if v.refs.Add(-1) != 0 {
		return
	}
	for _, lv := range v.levels {
		for _, t := range lv {
			t.unref()
		}
	}
}

// clone copies v's lists for a successor; install takes the references.
func (v *version) clone() *version {
	nv := &version{mem: v.mem, imms: append([]*memtable(nil), v.imms...)}
	for i, lv := range v.levels {
		nv.levels[i] = append([]*table(nil), lv...)
	}
	return nv
}

// DB is a durable key-value store in a directory.
type DB struct {
	fs    vfs
	dir   string
	opts  Options
	lock  *dirLock
	tip   *tipFile // nil when read-only
	cache *blockCache
	files *tableFiles // the table files open

	// mu guards everything below; writers hold it, readers hold it only
	// to take the current version.
	mu      sync.RWMutex
	writeMu sync.Mutex // serialises writers; taken before mu
	// commitMu makes flushes and compactions take turns naming their
	// result in the manifest (see commit); taken before mu.
	commitMu sync.Mutex
	changed  *sync.Cond // a flush or compaction ended
	cur      *version
	seq      atomic.Uint64 // last applied operation
	log      *wal          // nil when read-only
	nextFile uint64
	logNum   uint64 // oldest log still needed
	flushErr error  // why the last flush failed
	compErr  error  // why the last compaction failed
	// flushTries and compTries count attempts, so a writer waiting on a
	// failed one can wait for the next.
	flushTries, compTries uint64
	// stallL0 and stallFlush are how long writers have waited for a
	// compaction (too many level-0 tables) and for a flush (too many
	// full memtables), stallSlow how long they gave way to compactions
	// (l0SlowWrites): what the background work cost the commits.
	stallL0, stallFlush time.Duration
	stallSlow           atomic.Int64 // nanoseconds
	// l0Tables is len(cur.levels[0]), for writers to read without db.mu.
	l0Tables atomic.Int32
	closed   bool
	ro       bool

	NoSync  bool        // skip fsync (tests and benchmarks only)
	Recover RecoverInfo // what Open found and cut, if anything

	// The batches waiting to be written (see Write), guarded by qmu.
	qmu    sync.Mutex
	qcond  sync.Cond
	queue  []*writeReq
	recBuf []byte // the group's log record, reused (writer's turn)

	closing   atomic.Bool
	flushWake chan struct{}
	// compWake wakes the compactors: [0] level 0's, [1] the deeper
	// levels' (see compactor).
	compWake [2]chan struct{}
	pinWake  chan struct{} // wakes the pinner (pin.go)
	// quietUntil ends the quiet start (Options.QuietStart).
	quietUntil time.Time
	stop       chan struct{}
	bg         sync.WaitGroup
	compPtr    [numLevels][]byte // where the last compaction of a level ended
}

// RecoverInfo describes what Open did with a damaged log.
type RecoverInfo struct {
	CutBytes int64  // bytes removed (or, read-only, left) at the end of the log
	Reason   string // why the valid data ended there
	Batches  int    // batches replayed
	// Committed is set (read-only opens only) when the damage lies before
	// the last write: a writable Open refuses such a log.
	Committed bool
	// Migrated is set when Open converted a single-log data directory.
	Migrated bool
}

// Open opens (creating if needed) the store in dir with the default
// options and locks the directory against other processes.
func Open(dir string) (*DB, error) { return OpenWith(dir, Options{}) }

// OpenWith opens (creating if needed) the store in dir and locks the
// directory against other processes. A data directory of the single-log
// format is converted first (see Migrate). A torn last write is cut and
// reported in Recover; damage before it makes Open fail with a
// *DamageError, since cutting there would drop committed data (see Repair).
func OpenWith(dir string, o Options) (*DB, error) {
	o = o.withDefaults()
	if err := o.fs.mkdirAll(dir); err != nil {
		return nil, err
	}
	lock, err := lockFS(o.fs, dir, true)
	if err != nil {
		return nil, err
	}
	db, err := open(dir, o, lock, false)
	if err != nil {
		lock.release()
		return nil, err
	}
	return db, nil
}

// OpenReadOnly opens an existing store for reading without repairing it: a
// damaged log tail is left on disk (and reported in Recover) for the next
// Open to cut and report, so peeking at a data directory never hides
// damage. It shares the directory with other readers but not with a
// writer. A directory of the single-log format is refused with
// ErrNeedsMigration: reading it would mean converting it.
func OpenReadOnly(dir string) (*DB, error) {
	o := Options{}.withDefaults()
	if _, err := o.fs.open(path(dir, manifestName), false, false); err != nil {
		if legacy(o.fs, dir) {
			return nil, fmt.Errorf("%w: %s", ErrNeedsMigration, dir)
		}
		return nil, err
	}
	lock, err := lockFS(o.fs, dir, false)
	if err != nil {
		return nil, err
	}
	db, err := open(dir, o, lock, true)
	if err != nil {
		lock.release()
		return nil, err
	}
	return db, nil
}

// Exists reports whether dir holds a store (of either format).
func Exists(dir string) bool {
	fs := osFS{}
	if f, err := fs.open(path(dir, manifestName), false, false); err == nil {
		f.Close()
		return true
	}
	return legacy(fs, dir)
}

func open(dir string, o Options, lock *dirLock, ro bool) (*DB, error) {
	db := &DB{
		fs: o.fs, dir: dir, opts: o, lock: lock, ro: ro, NoSync: o.NoSync,
		cache:     newBlockCache(int64(o.CacheMiB) << 20),
		files:     newTableFiles(o.fs, o.MaxOpenTables),
		flushWake: make(chan struct{}, 1), pinWake: make(chan struct{}, 1), stop: make(chan struct{}),
		quietUntil: time.Now().Add(o.QuietStart),
		compWake:   [2]chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)},
	}
	db.changed = sync.NewCond(&db.mu)
	db.qcond.L = &db.qmu
	m, ok, err := readManifest(db.fs, dir)
	if err != nil {
		return nil, err
	}
	if !ok {
		if ro {
			return nil, fmt.Errorf("store: no store in %s", dir)
		}
		if m, err = db.create(); err != nil {
			return nil, err
		}
	}
	if err := db.load(m); err != nil {
		db.cur.unref()
		return nil, err
	}
	if !ro {
		db.bg.Add(4)
		go db.flusher()
		go db.compactor(true)
		go db.compactor(false)
		go db.pinner()
		db.wakeCompactors()
	}
	return db, nil
}

// create starts a new store, converting a single-log directory if there is
// one.
func (db *DB) create() (*manifest, error) {
	if legacy(db.fs, db.dir) {
		return db.migrate()
	}
	m := &manifest{nextFile: 2, logNum: 1}
	if err := writeManifest(db.fs, db.dir, m); err != nil {
		return nil, err
	}
	return m, nil
}

// load opens the tables the manifest names and replays the logs it still
// needs.
func (db *DB) load(m *manifest) error {
	db.nextFile, db.logNum = m.nextFile, m.logNum
	v := &version{}
	v.refs.Store(1)
	for lv, metas := range m.levels {
		for _, tm := range metas {
			t := db.newTable(tm)
			t.ref()
			v.levels[lv] = append(v.levels[lv], t)
		}
	}
	db.cur = v
	db.l0Tables.Store(int32(len(v.levels[0])))
	names, err := db.fs.list(db.dir)
	if err != nil {
		return err
	}
	live := map[uint64]bool{}
	for _, lv := range m.levels {
		for _, t := range lv {
			live[t.num] = true
		}
	}
	var logs []uint64
	for _, name := range names {
		num, kind, ok := parseFileName(name)
		if !ok {
			continue
		}
		db.nextFile = max(db.nextFile, num+1)
		switch {
		case kind == logSuffix && num >= m.logNum:
			logs = append(logs, num)
		case db.ro:
		case kind == logSuffix, kind == tableSuffix && !live[num]:
			// A log already in tables, or a table a crash left before
			// the manifest named it.
			db.fs.remove(path(db.dir, name))
		}
	}
	if !db.ro {
		db.fs.remove(path(db.dir, manifestName+".tmp"))
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i] < logs[j] })
	return db.replay(logs)
}

// parseFileName splits "000012.sst" into 12 and ".sst".
func parseFileName(name string) (uint64, string, bool) {
	for _, suf := range []string{logSuffix, tableSuffix} {
		if len(name) > len(suf) && name[len(name)-len(suf):] == suf {
			var n uint64
			for _, c := range name[:len(name)-len(suf)] {
				if c < '0' || c > '9' {
					return 0, "", false
				}
				n = n*10 + uint64(c-'0')
			}
			return n, suf, true
		}
	}
	return 0, "", false
}

func (db *DB) newTable(tm tableMeta) *table {
	return &table{num: tm.num, size: tm.size, smallest: tm.smallest, largest: tm.largest, db: db}
}

// acquire returns the current version, held, and the sequence number a
// reader reads at.
func (db *DB) acquire() (*version, uint64, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return nil, 0, ErrClosed
	}
	db.cur.refs.Add(1)
	return db.cur, db.seq.Load(), nil
}

// install makes nv the current version; db.mu is held.
func (db *DB) install(nv *version) {
	nv.refs.Store(1)
	for _, lv := range nv.levels {
		for _, t := range lv {
			t.ref()
		}
	}
	old := db.cur
	db.cur = nv
	db.l0Tables.Store(int32(len(nv.levels[0])))
	old.unref()
	db.changed.Broadcast()
}

// writable is nil when the store may be written; db.mu is held.
func (db *DB) writable() error {
	if db.closed {
		return ErrClosed
	}
	if db.ro {
		return ErrReadOnly
	}
	return nil
}

// Put writes one key durably.
func (db *DB) Put(key, value []byte) error {
	var b Batch
	b.Put(key, value)
	return db.Write(&b)
}

// Delete removes one key durably.
func (db *DB) Delete(key []byte) error {
	var b Batch
	b.Delete(key)
	return db.Write(&b)
}

// get finds key in version v at sequence seq; the value is shared.
func (v *version) get(key []byte, seq uint64) ([]byte, error) {
	h := keyHash(key)
	for i := len(v.imms); i >= 0; i-- { // newest first
		m := v.mem
		if i < len(v.imms) {
			m = v.imms[i]
		}
		if val, del, ok := m.get(key, h, seq); ok {
			if del {
				return nil, ErrNotFound
			}
			return val, nil
		}
	}
	for _, t := range v.levels[0] {
		val, del, ok, err := t.get(key, h)
		if err != nil {
			return nil, err
		}
		if ok {
			if del {
				return nil, ErrNotFound
			}
			return val, nil
		}
	}
	for _, lv := range v.levels[1:] {
		i := sort.Search(len(lv), func(i int) bool { return bytes.Compare(lv[i].largest, key) >= 0 })
		if i == len(lv) {
			continue
		}
		val, del, ok, err := lv[i].get(key, h)
		if err != nil {
			return nil, err
		}
		if ok {
			if del {
				return nil, ErrNotFound
			}
			return val, nil
		}
	}
	return nil, ErrNotFound
}

// Get returns a copy of the value of key.
func (db *DB) Get(key []byte) ([]byte, error) {
	v, seq, err := db.acquire()
	if err != nil {
		return nil, err
	}
	defer v.unref()
	val, err := v.get(key, seq)
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(val)), val...), nil
}

// Has reports whether key is present.
func (db *DB) Has(key []byte) (bool, error) {
	v, seq, err := db.acquire()
	if err != nil {
		return false, err
	}
	defer v.unref()
	_, err = v.get(key, seq)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// iter returns a merging iterator over everything v holds at seq.
func (v *version) iter(seq uint64, fill bool) *mergeIter {
	var srcs []iterator
	srcs = append(srcs, &memIter{m: v.mem, seq: seq})
	for i := len(v.imms) - 1; i >= 0; i-- {
		srcs = append(srcs, &memIter{m: v.imms[i], seq: seq})
	}
	for _, t := range v.levels[0] {
		srcs = append(srcs, t.iter(fill))
	}
	for _, lv := range v.levels[1:] {
		if len(lv) > 0 {
			srcs = append(srcs, &levelIter{tables: lv, fill: fill})
		}
	}
	return newMergeIter(srcs)
}

// Iterate calls fn for each key with prefix in key order, as the store was
// when Iterate began: writes meanwhile (fn may write) are not seen. The key
// and value are fn's to keep.
func (db *DB) Iterate(prefix []byte, fn func(key, value []byte) bool) error {
	return db.iterate(prefix, nil, func(k, v []byte) bool {
		return fn(append([]byte(nil), k...), append(make([]byte, 0, len(v)), v...))
	})
}

// IterateKeys calls fn for each key with prefix (in key order, as it
// happens), as the store was when it began.
func (db *DB) IterateKeys(prefix []byte, fn func(key []byte) bool) error {
	return db.iterate(prefix, nil, func(k, _ []byte) bool { return fn(append([]byte(nil), k...)) })
}

// IterateKeysFrom calls fn for each key with prefix that is not below
// start, in key order, as the store was when it began: a range scan that
// seeks to start rather than walking the keys before it (paging through
// an index).
func (db *DB) IterateKeysFrom(prefix, start []byte, fn func(key []byte) bool) error {
	return db.iterate(prefix, start, func(k, _ []byte) bool { return fn(append([]byte(nil), k...)) })
}

// iterate walks the keys with prefix from start (the prefix itself when
// start is below it).
func (db *DB) iterate(prefix, start []byte, fn func(k, v []byte) bool) error {
	v, seq, err := db.acquire()
	if err != nil {
		return err
	}
	defer v.unref()
	it := v.iter(seq, true)
	from := prefix
	if bytes.Compare(start, prefix) > 0 {
		from = start
	}
	for it.seek(from); it.valid() && bytes.HasPrefix(it.key(), prefix); it.next() {
		if it.deleted() {
			continue
		}
		if !fn(it.key(), it.value()) {
			return nil
		}
	}
	return it.err()
}

// Size is the number of bytes the store's tables and logs take on disk.
func (db *DB) Size() int64 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	var n int64
	for _, lv := range db.cur.levels {
		for _, t := range lv {
			n += t.size
		}
	}
	if db.log != nil {
		n += db.log.written.Load()
	}
	return n
}

// Close stops the background work and closes the store. With
// Options.FlushOnClose a clean close writes a memtable of more than
// closeFlushBytes, or one the flusher had not written yet, to a table, so
// that the next open replays no more than that of the log; a smaller one,
// or one whose table cannot be written, is left in its log.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.closed = true
	db.closing.Store(true)
	db.changed.Broadcast()
	db.mu.Unlock()
	close(db.stop)
	db.bg.Wait()
	db.writeMu.Lock() // a write under way ends first
	defer db.writeMu.Unlock()

	flushed := false
	var err error
	if !db.ro && (db.opts.FlushOnClose || db.opts.CompactOnClose) {
		// The workers have stopped: the table writes need not give way.
		db.closing.Store(false)
		flushed = db.flushOnClose()
		if db.opts.CompactOnClose {
			err = db.settle()
		}
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	defer db.lock.release()
	switch {
	case db.log == nil:
	case flushed:
		// Its writes are in a table and the manifest no longer needs it
		// (flush removed it).
		err = db.log.f.Close()
	default:
		err = errors.Join(db.log.finish(), db.log.f.Close())
	}
	for _, m := range db.cur.imms { // logs the flusher had not finished
		if m.log != nil {
			err = errors.Join(err, m.log.finish(), m.log.f.Close())
			m.log = nil
		}
	}
	err = errors.Join(err, db.tip.close(err == nil))
	db.cur.unref()
	return err
}

// closeFlushBytes is the memtable size above which Close writes it to a
// table: replaying less costs a start a few milliseconds.
const closeFlushBytes = 1 << 20

// flushOnClose writes the memtables to tables when the current one holds
// more than closeFlushBytes or the flusher left an immutable one,
// reporting whether the log is no longer needed. The background workers
// have stopped and writers are shut out. A flush the close itself cut
// short (errClosing) is no failure: chaind init's close used to stop the
// flusher mid-table and then keep its 17 MiB memtable in the log, which
// every first start replayed, twice.
func (db *DB) flushOnClose() bool {
	db.mu.RLock()
	failed := db.flushErr != nil && !errors.Is(db.flushErr, errClosing)
	ok := !failed && db.log != nil && (len(db.cur.imms) > 0 || db.cur.mem.bytes.Load() > closeFlushBytes)
	imms := db.cur.imms
	db.mu.RUnlock()
	if !ok {
		return false
	}
	// The immutable memtables the flusher left go first, oldest first:
	// level 0 is ordered by age.
	for _, imm := range imms {
		if err := db.flush(imm); err != nil {
			return false
		}
	}
	db.mu.Lock()
	mem := db.cur.mem
	nv := db.cur.clone()
	nv.imms, nv.mem = append(nv.imms, mem), newMemtable(0, db.opts.MemtableBytes)
	db.install(nv)
	db.mu.Unlock()
	return db.flush(mem) == nil
}
