// Package store is chaind's durable key-value storage, built on the standard
// library alone.
//
// Data lives in one append-only log file. Every write is a batch framed as
// one record: length, CRC-32C and payload. A batch is durable once Write
// returns (the file is fsync'd), and it is atomic: after a crash a batch is
// either wholly present or wholly absent. On open the log is replayed; a
// record whose checksum or length does not hold marks the end of the valid
// data, and everything from there on is cut off and reported, so a torn or
// bit-flipped tail is never served.
//
// Values are kept on disk and read with ReadAt through an in-memory index,
// so memory grows with the number of keys, not with the data. Compact
// rewrites only the live entries once garbage dominates.
package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
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

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	opPut byte = 1
	opDel byte = 2

	recordHeader = 8 // uint32 payload length, uint32 CRC-32C of the payload
	maxRecord    = 1 << 30
	logName      = "data.log"
)

// Batch collects puts and deletes applied by one Write.
type Batch struct {
	ops  []byte
	n    int
	size int
}

// Put records key = value.
func (b *Batch) Put(key, value []byte) {
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
	b.ops = append(b.ops, opDel)
	b.ops = binary.AppendUvarint(b.ops, uint64(len(key)))
	b.ops = append(b.ops, key...)
	b.n++
}

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

// entry locates a value inside the log file.
type entry struct {
	off int64
	n   uint32
}

// DB is a durable key-value store in a directory.
type DB struct {
	mu     sync.RWMutex
	dir    string
	f      *os.File
	lock   *dirLock         // held while open: one process per directory
	tip    *tipFile         // where the last write began; nil when read-only
	size   int64            // end of valid data
	last   int64            // start of the last record
	index  map[string]entry // live keys
	live   int64            // bytes of live values
	NoSync bool             // skip fsync (tests and benchmarks only)
	closed bool
	ro     bool
	// compacting is set while Compact copies outside the lock.
	compacting bool
	Recover    RecoverInfo // what Open found and cut, if anything
}

// RecoverInfo describes what Open did with a damaged log.
type RecoverInfo struct {
	CutBytes int64  // bytes removed (or, read-only, left) at the end of the log
	Reason   string // why the valid data ended there
	Batches  int    // batches replayed
	// Committed is set (read-only opens only) when the damage lies before
	// the last write: a writable Open refuses such a file.
	Committed bool
}

// Open opens (creating if needed) the store in dir and locks the directory
// against other processes. A torn last write is cut and reported in
// Recover; damage before it makes Open fail with a *DamageError, since
// cutting there would drop committed data (see Repair).
func Open(dir string) (*DB, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir, true)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, logName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		lock.release()
		return nil, err
	}
	tip, err := openTip(dir)
	if err != nil {
		f.Close()
		lock.release()
		return nil, err
	}
	return open(dir, f, lock, tip, false)
}

// OpenReadOnly opens an existing store for reading without repairing it: a
// damaged tail is left on disk (and reported in Recover) for the next Open
// to cut and report, so peeking at a data directory never hides damage. It
// shares the directory with other readers but not with a writer.
func OpenReadOnly(dir string) (*DB, error) {
	f, err := os.Open(filepath.Join(dir, logName))
	if err != nil {
		return nil, err
	}
	lock, err := lockDir(dir, false)
	if err != nil {
		f.Close()
		return nil, err
	}
	return open(dir, f, lock, nil, true)
}

func open(dir string, f *os.File, lock *dirLock, tip *tipFile, ro bool) (*DB, error) {
	db := &DB{dir: dir, f: f, lock: lock, tip: tip, index: make(map[string]entry), ro: ro}
	if err := db.replay(); err != nil {
		f.Close()
		tip.close(false)
		lock.release()
		return nil, err
	}
	return db, nil
}

// scanResult is where a replay of the log stopped and why.
type scanResult struct {
	end     int64  // end of the valid records
	last    int64  // start of the last valid record
	total   int64  // file size
	reason  string // empty when the whole file is valid
	batches int
	// followed is set when a valid record sits right after the bad one:
	// the damage is then inside the file, not a torn end.
	followed bool
}

// scan replays the log from the start, calling apply for every valid
// record, and stops at the first record that does not hold.
func scan(f *os.File, apply func(payload []byte, base int64) error) (scanResult, error) {
	st, err := f.Stat()
	if err != nil {
		return scanResult{}, err
	}
	res := scanResult{total: st.Size()}
	total := res.total
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, total), 1<<20)
	var (
		off     int64
		hdr     [recordHeader]byte
		payload []byte
	)
	for off < total {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			res.reason = fmt.Sprintf("torn record header at offset %d", off)
			break
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		sum := binary.LittleEndian.Uint32(hdr[4:8])
		if n == 0 || n > maxRecord || int64(n) > total-off-recordHeader {
			res.reason = fmt.Sprintf("bad record length %d at offset %d", n, off)
			break
		}
		if cap(payload) < int(n) {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(r, payload); err != nil {
			res.reason = fmt.Sprintf("torn record payload at offset %d", off)
			break
		}
		if crc32.Checksum(payload, castagnoli) != sum {
			res.reason = fmt.Sprintf("checksum mismatch at offset %d", off)
			res.followed = validRecordAt(f, off+recordHeader+int64(n), total)
			break
		}
		if err := apply(payload, off+recordHeader); err != nil {
			res.reason = fmt.Sprintf("malformed batch at offset %d: %v", off, err)
			res.followed = validRecordAt(f, off+recordHeader+int64(n), total)
			break
		}
		res.last = off
		off += recordHeader + int64(n)
		res.batches++
	}
	res.end = off
	return res, nil
}

// validRecordAt reports whether a whole record with a good checksum starts
// at off.
func validRecordAt(f *os.File, off, total int64) bool {
	var hdr [recordHeader]byte
	if off+recordHeader > total {
		return false
	}
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return false
	}
	n := binary.LittleEndian.Uint32(hdr[0:4])
	if n == 0 || n > maxRecord || int64(n) > total-off-recordHeader {
		return false
	}
	p := make([]byte, n)
	if _, err := f.ReadAt(p, off+recordHeader); err != nil {
		return false
	}
	return crc32.Checksum(p, castagnoli) == binary.LittleEndian.Uint32(hdr[4:8])
}

// replay rebuilds the index from the log. Damage in the last write is cut;
// damage before it is refused.
func (db *DB) replay() error {
	res, err := scan(db.f, db.apply)
	if err != nil {
		return err
	}
	db.Recover.Batches = res.batches
	db.size, db.last = res.end, res.last
	synced := readTip(db.dir)
	if res.end == res.total && synced <= res.total {
		return nil
	}
	reason := res.reason
	if reason == "" {
		reason = fmt.Sprintf("the file ends at offset %d, before its last write began at offset %d", res.total, synced)
	}
	db.Recover.CutBytes = res.total - res.end
	db.Recover.Reason = reason
	if res.end < synced || res.followed {
		if db.ro {
			db.Recover.Committed = true
			return nil
		}
		return &DamageError{Path: db.f.Name(), Offset: res.end, Size: res.total, LastWrite: synced, Reason: reason}
	}
	if db.ro {
		return nil
	}
	if err := db.f.Truncate(res.end); err != nil {
		return err
	}
	if err := db.f.Sync(); err != nil {
		return err
	}
	return db.tip.set(db.last)
}

// apply updates the index with a batch whose payload starts at base in the
// file. The whole batch is checked before the index changes, so a
// malformed batch leaves no partial effect.
func (db *DB) apply(p []byte, base int64) error {
	b := Batch{ops: p}
	if err := b.forEach(func(bool, []byte, []byte) {}); err != nil {
		return err
	}
	return b.forEach(func(del bool, key, value []byte) {
		k := string(key)
		if old, ok := db.index[k]; ok {
			db.live -= int64(old.n)
		}
		if del {
			delete(db.index, k)
			return
		}
		// value aliases p, so its offset within p locates it in the file.
		off := int64(cap(p) - cap(value))
		db.index[k] = entry{off: base + off, n: uint32(len(value))}
		db.live += int64(len(value))
	})
}

// Write appends the batch and makes it durable before returning.
func (db *DB) Write(b *Batch) error {
	if b.n == 0 {
		return nil
	}
	if len(b.ops) > maxRecord {
		return fmt.Errorf("store: batch of %d bytes exceeds the %d-byte record limit", len(b.ops), maxRecord)
	}
	rec := make([]byte, recordHeader, recordHeader+len(b.ops))
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(b.ops)))
	binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(b.ops, castagnoli))
	rec = append(rec, b.ops...)

	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return ErrClosed
	}
	if db.ro {
		return ErrReadOnly
	}
	// The tip moves first, so it never points past the one record a crash
	// can tear.
	if err := db.tip.set(db.size); err != nil {
		return err
	}
	if _, err := db.f.WriteAt(rec, db.size); err != nil {
		// A partial write is cut on the next open; keep serving what we had.
		return err
	}
	if !db.NoSync {
		if err := db.f.Sync(); err != nil {
			return err
		}
	}
	if err := db.apply(b.ops, db.size+recordHeader); err != nil {
		return err // cannot happen: we encoded the batch ourselves
	}
	db.last = db.size
	db.size += int64(len(rec))
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

// Get returns a copy of the value of key.
func (db *DB) Get(key []byte) ([]byte, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return nil, ErrClosed
	}
	e, ok := db.index[string(key)]
	if !ok {
		return nil, ErrNotFound
	}
	v := make([]byte, e.n)
	if _, err := db.f.ReadAt(v, e.off); err != nil {
		return nil, err
	}
	return v, nil
}

// Has reports whether key is present.
func (db *DB) Has(key []byte) (bool, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return false, ErrClosed
	}
	_, ok := db.index[string(key)]
	return ok, nil
}

// Iterate calls fn for each key with prefix in key order. The store is
// read-locked meanwhile, so fn must not write to it.
func (db *DB) Iterate(prefix []byte, fn func(key, value []byte) bool) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	p := string(prefix)
	keys := make([]string, 0)
	for k := range db.index {
		if strings.HasPrefix(k, p) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := db.index[k]
		v := make([]byte, e.n)
		if _, err := db.f.ReadAt(v, e.off); err != nil {
			return err
		}
		if !fn([]byte(k), v) {
			return nil
		}
	}
	return nil
}

// IterateKeys calls fn for each key with prefix, in no particular order,
// reading no values. The store is read-locked meanwhile.
func (db *DB) IterateKeys(prefix []byte, fn func(key []byte) bool) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	p := string(prefix)
	for k := range db.index {
		if strings.HasPrefix(k, p) && !fn([]byte(k)) {
			return nil
		}
	}
	return nil
}

// Len is the number of live keys.
func (db *DB) Len() int {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return len(db.index)
}

// Garbage is the fraction of the log that no live value uses (0..1).
func (db *DB) Garbage() float64 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.size == 0 {
		return 0
	}
	return 1 - float64(db.live)/float64(db.size)
}

// Compact rewrites the live entries into a fresh log and swaps it in
// atomically (write, fsync, rename, fsync the directory), so a crash at any
// point leaves either the old or the new log whole.
//
// Readers and writers are not held up while the live entries are copied:
// Compact copies what was live when it began, then, locked, replays onto
// the new log the records written since (usually a few) and swaps the
// files. One compaction runs at a time; a second call meanwhile returns
// ErrCompacting.
func (db *DB) Compact() error {
	db.mu.Lock()
	if err := db.writable(); err != nil {
		db.mu.Unlock()
		return err
	}
	if db.compacting {
		db.mu.Unlock()
		return ErrCompacting
	}
	db.compacting = true
	old, from := db.f, db.size
	live := make([]liveEntry, 0, len(db.index))
	for k, e := range db.index {
		live = append(live, liveEntry{k, e})
	}
	db.mu.Unlock()
	defer func() {
		db.mu.Lock()
		db.compacting = false
		db.mu.Unlock()
	}()

	tmpPath := filepath.Join(db.dir, logName+".compact")
	tmp, err := os.Create(tmpPath)
	if err != nil {
		return err
	}
	fresh := &DB{dir: db.dir, f: tmp, index: make(map[string]entry, len(live)), NoSync: true}
	swapped := false
	defer func() {
		if !swapped {
			tmp.Close()
			os.Remove(tmpPath)
		}
	}()
	// The old file is only appended to meanwhile, and only Compact and
	// Close (which waits for no one) replace or close it: reading the
	// snapshot's values from it without the lock is safe, and a Close
	// meanwhile ends the copy with an error.
	if err := copyLive(fresh, old, live); err != nil {
		return err
	}
	if compactCopied != nil {
		compactCopied()
	}

	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.writable(); err != nil {
		return err
	}
	if db.size > from {
		tail := make([]byte, db.size-from)
		if _, err := db.f.ReadAt(tail, from); err != nil {
			return err
		}
		if err := fresh.appendRecords(tail); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	// Until the rename lands either file may be the log after a crash:
	// point the tip at a record start valid for both (no further than
	// either's last write), then at the new log's own.
	if err := db.tip.set(min(db.last, fresh.last)); err != nil {
		return err
	}
	if err := os.Rename(tmpPath, filepath.Join(db.dir, logName)); err != nil {
		return err
	}
	swapped = true
	if d, err := os.Open(db.dir); err == nil {
		d.Sync()
		d.Close()
	}
	db.f.Close()
	db.f, db.index, db.size, db.last, db.live = tmp, fresh.index, fresh.size, fresh.last, fresh.live
	return db.tip.set(db.last)
}

// compactCopied, when set (by tests), runs after Compact copied its
// snapshot and before it takes the lock again.
var compactCopied func()

// ErrCompacting is returned by Compact while another compaction runs.
var ErrCompacting = errors.New("store: a compaction is already running")

// liveEntry is one key of a compaction's snapshot of the index.
type liveEntry struct {
	key string
	e   entry
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

// copyLive writes the values of live, read from old, into fresh in the
// order they lie in old, in batches of a few MiB. Reading follows the
// file through a window of 1 MiB: one read per window, not one per key.
func copyLive(fresh *DB, old *os.File, live []liveEntry) error {
	sort.Slice(live, func(i, j int) bool { return live[i].e.off < live[j].e.off })
	var b Batch
	var window []byte
	var wOff int64
	for _, le := range live {
		end := le.e.off + int64(le.e.n)
		if le.e.off < wOff || end > wOff+int64(len(window)) {
			wOff = le.e.off
			need := max(copyWindow, int(le.e.n))
			if cap(window) < need {
				window = make([]byte, need)
			}
			window = window[:need]
			n, err := old.ReadAt(window, wOff)
			if n < int(le.e.n) {
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			window = window[:n] // the file may end inside the window
		}
		b.Put([]byte(le.key), window[le.e.off-wOff:end-wOff])
		if len(b.ops) > 4<<20 {
			if err := fresh.Write(&b); err != nil {
				return err
			}
			b.Reset()
		}
	}
	return fresh.Write(&b)
}

// copyWindow is how much of the old log Compact reads at once.
const copyWindow = 1 << 20

// appendRecords appends whole framed records, as they lie in another log,
// and indexes them. Each is checked again: the bytes were read back from
// disk.
func (db *DB) appendRecords(p []byte) error {
	for len(p) > 0 {
		if len(p) < recordHeader {
			return errors.New("store: torn record while compacting")
		}
		n := binary.LittleEndian.Uint32(p[0:4])
		if n == 0 || int64(n) > int64(len(p)-recordHeader) {
			return fmt.Errorf("store: bad record length %d while compacting", n)
		}
		rec := p[:recordHeader+int(n)]
		if crc32.Checksum(rec[recordHeader:], castagnoli) != binary.LittleEndian.Uint32(rec[4:8]) {
			return errors.New("store: checksum mismatch while compacting")
		}
		if _, err := db.f.WriteAt(rec, db.size); err != nil {
			return err
		}
		if err := db.apply(rec[recordHeader:len(rec):len(rec)], db.size+recordHeader); err != nil {
			return err
		}
		db.last = db.size
		db.size += int64(len(rec))
		p = p[len(rec):]
	}
	return nil
}

// Close syncs and closes the store.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	defer db.lock.release()
	if db.ro {
		return db.f.Close()
	}
	if err := db.f.Sync(); err != nil {
		db.f.Close()
		db.tip.close(false)
		return err
	}
	return errors.Join(db.f.Close(), db.tip.close(true))
}

// Size is the number of bytes of the log, garbage included.
func (db *DB) Size() int64 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.size
}
