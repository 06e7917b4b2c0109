package store

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// Background work: the flusher writes the full memtable to a level-0
// table; the compactors (see compactor) merge tables down the levels.
// Each builds its output without the store's lock and takes it only to
// name the result in the manifest and install it, so reads and writes go
// on meanwhile. A
// failure (a full disk) is kept and retried after retryDelay; writes that
// would need its result fail with it until then.

const retryDelay = 500 * time.Millisecond

// A write gives way to the compactions once level 0 holds l0SlowWrites
// tables: before it joins the queue (so only its own writer waits, not
// the writers it would have written for), for as long as its bytes take
// at slowRate, halved for every level-0 table over l0SlowWrites, and at
// least slowWrite. A bulk loader is held back in proportion to what it
// adds, long before level 0 reaches l0StopWrites and every write stops;
// a block's small commit waits a millisecond or so.
const (
	slowWrite = time.Millisecond
	slowRate  = 16 << 20 // bytes a second
)

// slowDelay is how long a write of n bytes gives way with l0 tables in
// level 0.
func slowDelay(l0, n int) time.Duration {
	if l0 < l0SlowWrites {
		return 0
	}
	rate := slowRate >> min(l0-l0SlowWrites, 16)
	return max(slowWrite, time.Duration(int64(n)*int64(time.Second)/int64(rate)))
}

var errClosing = errors.New("store: closing")

// makeRoom makes sure the memtable can take a write, rotating it to the
// flusher when full; db.mu is held and may be released while waiting.
func (db *DB) makeRoom() error {
	var triedFlush, triedCompact bool
	for {
		if err := db.writable(); err != nil {
			return err
		}
		v := db.cur
		switch {
		case len(v.levels[0]) >= l0StopWrites:
			if db.compErr != nil {
				if triedCompact {
					return fmt.Errorf("store: %d level-0 tables wait for a compaction, which failed: %w", len(v.levels[0]), db.compErr)
				}
				triedCompact = true
				db.retry(db.compWake[0], &db.compTries)
				continue
			}
			t := time.Now()
			db.changed.Wait()
			db.stallL0 += time.Since(t)
		case v.mem.bytes.Load() < db.opts.MemtableBytes:
			return nil
		case len(v.imms) >= maxImmutable:
			if db.flushErr != nil {
				if triedFlush {
					return fmt.Errorf("store: the memtable is full and writing the previous one to a table failed: %w", db.flushErr)
				}
				triedFlush = true
				db.retry(db.flushWake, &db.flushTries)
				continue
			}
			t := time.Now()
			db.changed.Wait()
			db.stallFlush += time.Since(t)
		default:
			// The new log is created (and the directory synced) without
			// db.mu, so readers and the background work go on meanwhile;
			// this writer's turn keeps other writers out, and the
			// version is taken again once the lock is back.
			num := db.nextFile
			db.nextFile++
			db.mu.Unlock()
			log, err := db.createLog(num)
			db.mu.Lock()
			if err != nil {
				return fmt.Errorf("store: starting a new log: %w", err)
			}
			if err := db.writable(); err != nil {
				log.f.Close()
				db.fs.remove(path(db.dir, logFileName(num)))
				return err
			}
			// The old log is finished (its zeros cut) by the flusher,
			// not here in a writer's time.
			v := db.cur
			v.mem.log, db.log = db.log, log
			nv := v.clone()
			nv.imms, nv.mem = append(nv.imms, v.mem), newMemtable(num, db.opts.MemtableBytes)
			db.install(nv)
			wake(db.flushWake)
		}
	}
}

// retry wakes a background worker whose last attempt failed and waits for
// its next attempt to end; db.mu is held.
func (db *DB) retry(c chan struct{}, tries *uint64) {
	n := *tries
	wake(c)
	for *tries == n && !db.closed {
		db.changed.Wait()
	}
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// pause waits after a failure: retryDelay, or less when a writer needs
// the work done (c); false when the store closes.
func (db *DB) pause(c chan struct{}) bool {
	select {
	case <-db.stop:
		return false
	case <-c:
		return true
	case <-time.After(retryDelay):
		return true
	}
}

func (db *DB) flusher() {
	defer db.bg.Done()
	for {
		var imm *memtable
		db.mu.RLock()
		if len(db.cur.imms) > 0 {
			imm = db.cur.imms[0]
		}
		db.mu.RUnlock()
		if imm == nil {
			select {
			case <-db.stop:
				return
			case <-db.flushWake:
				continue
			}
		}
		err := db.flush(imm)
		db.mu.Lock()
		db.flushErr = err
		db.flushTries++
		db.changed.Broadcast()
		db.mu.Unlock()
		if err != nil && !db.pause(db.flushWake) {
			return
		}
	}
}

// flush writes the oldest immutable memtable to a level-0 table and
// drops the logs it came from.
func (db *DB) flush(imm *memtable) error {
	if imm.log != nil {
		// The log is whole: cut its zeros; a failure leaves only zeros,
		// which replay reads as the end.
		imm.log.finish()
		imm.log.f.Close()
		imm.log = nil
	}
	it := &memIter{m: imm, seq: math.MaxUint64}
	it.seek(nil)
	metas, err := db.writeTables(it, false, false)
	if err != nil {
		return err
	}
	db.commitMu.Lock()
	defer db.commitMu.Unlock()
	nv := db.current()
	for _, m := range metas {
		nv.levels[0] = append([]*table{db.newTable(m)}, nv.levels[0]...)
	}
	logNum := imm.walNum + 1
	if err := db.commit(nv, logNum, imm); err != nil {
		db.removeTables(metas)
		return err
	}
	db.dropLogs(logNum)
	db.wakeCompactors()
	return nil
}

// current returns a copy of the current version's lists to edit.
func (db *DB) current() *version {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.cur.clone()
}

// commit names nv's levels in the manifest, with logNum the oldest log
// still needed, and installs them with the current memtables, less
// flushed (the oldest immutable one, which a flush has written) when not
// nil. db.commitMu is held, and nv was built on the version current under
// it; db.mu is not held.
//
// The manifest is written and synced without db.mu, so readers and
// writers go on meanwhile (they take db.mu to pick the version and the
// memtable, and a writer to rotate it): only commits change the levels,
// and commitMu makes them take turns, so the levels nv was built on are
// still the current ones when it is installed; the memtables may have
// rotated, and are taken as they are then.
func (db *DB) commit(nv *version, logNum uint64, flushed *memtable) error {
	m := &manifest{logNum: logNum}
	for i, lv := range nv.levels {
		for _, t := range lv {
			m.levels[i] = append(m.levels[i], tableMeta{t.num, t.size, t.smallest, t.largest})
		}
	}
	db.mu.RLock()
	m.nextFile = db.nextFile
	db.mu.RUnlock()
	if err := writeManifest(db.fs, db.dir, m); err != nil {
		return fmt.Errorf("store: writing the manifest: %w", err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	nv.mem, nv.imms = db.cur.mem, db.cur.imms
	if flushed != nil {
		if len(nv.imms) == 0 || nv.imms[0] != flushed {
			panic("store: flushed a memtable that is not the oldest immutable one")
		}
		nv.imms = nv.imms[1:len(nv.imms):len(nv.imms)]
	}
	db.logNum = logNum
	db.install(nv)
	wake(db.pinWake)
	return nil
}

// dropLogs removes the logs wholly in tables, those before logNum.
func (db *DB) dropLogs(logNum uint64) {
	names, err := db.fs.list(db.dir)
	if err != nil {
		return
	}
	for _, name := range names {
		if num, kind, ok := parseFileName(name); ok && kind == logSuffix && num < logNum {
			db.fs.remove(path(db.dir, name))
		}
	}
}

func (db *DB) removeTables(metas []tableMeta) {
	for _, m := range metas {
		db.fs.remove(path(db.dir, tableName(m.num)))
	}
}

// writeTables writes the entries of it, already positioned, into new
// tables (cut at TableBytes when split is set), leaving out deletions when
// dropDeletes is set. The files are synced; on error none is left.
func (db *DB) writeTables(it iterator, dropDeletes, split bool) (metas []tableMeta, err error) {
	var (
		w   *tableWriter
		f   file
		num uint64
	)
	defer func() {
		if err != nil {
			if f != nil {
				f.Close()
				db.fs.remove(path(db.dir, tableName(num)))
			}
			db.removeTables(metas)
			metas = nil
		}
	}()
	finish := func() error {
		size, lo, hi, err := w.finish()
		if err != nil {
			return err
		}
		metas = append(metas, tableMeta{num, size, lo, hi})
		err = f.Close()
		f, w = nil, nil
		return err
	}
	for n := 0; it.valid(); it.next() {
		if n++; n%1024 == 0 && db.closing.Load() {
			return nil, errClosing
		}
		if it.deleted() && dropDeletes {
			continue
		}
		if w == nil {
			db.mu.Lock()
			num = db.nextFile
			db.nextFile++
			db.mu.Unlock()
			if f, err = db.fs.open(path(db.dir, tableName(num)), true, true); err != nil {
				f = nil
				return nil, err
			}
			w = newTableWriter(f)
		}
		if err := w.add(it.key(), it.value(), it.deleted()); err != nil {
			return nil, err
		}
		if split && w.size() >= db.opts.TableBytes {
			if err := finish(); err != nil {
				return nil, err
			}
		}
	}
	if err := it.err(); err != nil {
		return nil, err
	}
	if w != nil {
		if err := finish(); err != nil {
			return nil, err
		}
	}
	if len(metas) > 0 {
		if err := db.fs.syncDir(db.dir); err != nil {
			return nil, err
		}
	}
	return metas, nil
}

// compaction is a merge of tables of level into level+1, or (intra) of
// all of level 0's tables into one level-0 table.
type compaction struct {
	v      *version
	level  int
	intra  bool
	inputs [2][]*table
}

// Two compactors run: one for level 0 and one for the levels below, so
// that a long merge of level 1 into 2 (or deeper) never leaves level 0
// filling behind it until writes stop. Each marks the tables it works on
// (table.compacting), and neither takes a table the other holds. When
// level 0 would merge into level-1 tables a deeper compaction holds, it
// merges its own tables into one instead once there are l0IntraTrigger
// of them (reads then look at one table, not many, and writes keep going).
const l0IntraTrigger = 8

// l1Yield is how many times its size level 1 holds before level 0's
// compactor leaves it to the deeper one (see pickLocked).
const l1Yield = 2

func (db *DB) wakeCompactors() {
	wake(db.compWake[0])
	wake(db.compWake[1])
}

func (db *DB) compactor(level0 bool) {
	defer db.bg.Done()
	c := db.compWake[1]
	if level0 {
		c = db.compWake[0]
	}
	for {
		select {
		case <-db.stop:
			return
		case <-c:
		}
		if !db.quiet(c) {
			return
		}
		for !db.closing.Load() {
			comp := db.pick(level0)
			if comp == nil {
				break
			}
			err := db.compact(comp)
			db.release(comp)
			if errors.Is(err, errClosing) {
				return
			}
			db.mu.Lock()
			db.compErr = err
			db.compTries++
			db.changed.Broadcast()
			db.mu.Unlock()
			if err != nil && !db.pause(c) {
				return
			}
			// The other compactor may have waited for these tables.
			db.wakeCompactors()
		}
	}
}

// quiet waits out the quiet start (Options.QuietStart) unless writers
// need the compactions: level 0 has reached l0SlowWrites tables, where
// they begin to give way. c is the compactor's wake-up, which a flush
// sends; false when the store closes.
func (db *DB) quiet(c chan struct{}) bool {
	for {
		left := time.Until(db.quietUntil)
		if left <= 0 || db.l0Tables.Load() >= l0SlowWrites {
			return true
		}
		t := time.NewTimer(left)
		select {
		case <-db.stop:
			t.Stop()
			return false
		case <-c:
			t.Stop()
		case <-t.C:
		}
	}
}

// settle runs the compactions due until none is, level 0 due at a single
// table, in the caller's goroutine: Close with CompactOnClose, once the
// background workers have stopped.
func (db *DB) settle() error {
	for {
		db.mu.Lock()
		c := db.pickLocked(true, 1)
		if c == nil {
			c = db.pickLocked(false, 1)
		}
		db.mu.Unlock()
		if c == nil {
			return nil
		}
		err := db.compact(c)
		db.release(c)
		if err != nil {
			return fmt.Errorf("store: compacting on close: %w", err)
		}
	}
}

// Level is one level of the tree as Levels reports it.
type Level struct {
	Tables int
	Bytes  int64
	// Max is the size past which the level is compacted (0 for level
	// 0, which is compacted by its count of tables).
	Max int64
}

// Levels reports the tables of each level.
func (db *DB) Levels() []Level {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make([]Level, numLevels)
	for lv, ts := range db.cur.levels {
		out[lv] = Level{Tables: len(ts), Bytes: tablesSize(ts)}
		if lv > 0 {
			out[lv].Max = int64(db.levelMax(lv))
		}
	}
	return out
}

// Settled reports whether levels owe no compaction: level 0 is empty and
// no level is over its size.
func Settled(levels []Level) bool {
	for lv, l := range levels {
		if lv == 0 && l.Tables > 0 || lv > 0 && lv < len(levels)-1 && l.Bytes > l.Max {
			return false
		}
	}
	return true
}

// release lets go of a compaction's tables and version.
func (db *DB) release(c *compaction) {
	db.mu.Lock()
	for _, in := range c.inputs {
		for _, t := range in {
			t.compacting = false
		}
	}
	db.mu.Unlock()
	c.v.unref()
}

// levelMax is the size level lv (1+) may reach before it is compacted.
func (db *DB) levelMax(lv int) float64 {
	return float64(db.opts.L1Bytes) * math.Pow(10, float64(lv-1))
}

func tablesSize(ts []*table) (n int64) {
	for _, t := range ts {
		n += t.size
	}
	return n
}

// keyRange is the smallest and largest key of tables.
func keyRange(ts ...[]*table) (lo, hi []byte) {
	for _, l := range ts {
		for _, t := range l {
			if lo == nil || bytes.Compare(t.smallest, lo) < 0 {
				lo = t.smallest
			}
			if hi == nil || bytes.Compare(t.largest, hi) > 0 {
				hi = t.largest
			}
		}
	}
	return lo, hi
}

func overlapping(lv []*table, lo, hi []byte) []*table {
	var out []*table
	for _, t := range lv {
		if bytes.Compare(t.largest, lo) >= 0 && bytes.Compare(t.smallest, hi) <= 0 {
			out = append(out, t)
		}
	}
	return out
}

func anyCompacting(ts []*table) bool {
	return slices.ContainsFunc(ts, func(t *table) bool { return t.compacting })
}

// pick chooses the most needed compaction of level 0 (level0) or of the
// levels below, or nil, and marks its tables: level 0 once it holds
// l0CompactTrigger tables; else the level most over its size, one table
// at a time, round robin through its keys.
func (db *DB) pick(level0 bool) *compaction {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.pickLocked(level0, l0CompactTrigger)
}

// pickLocked is pick with level 0 due at l0Due tables; db.mu is held.
//
// Level 0 gives level 1 up to the deeper compactor while level 1 is
// twice its size (where pickDeeper takes it) and writers do not wait for
// level 0: the keys are hashes, so every level-0 table overlaps all of
// level 1, and a merge into it rewrites the whole level. Left to take
// level 1 whenever it had l0CompactTrigger tables, level 0's compactor
// held every level-1 table nearly all the time, the deeper one never got
// one, and level 1 only grew: a 10M-account chaind init ended with
// 2.3 GB in level 1 (its size 64 MiB), each merge into it rewriting it
// all, and the node's first merge after its quiet start rewrote those
// 2.3 GB beside its blocks.
func (db *DB) pickLocked(level0 bool, l0Due int) *compaction {
	v := db.cur
	c := &compaction{v: v}
	if level0 {
		n := len(v.levels[0])
		if n < l0Due {
			return nil
		}
		c.inputs[0] = v.levels[0]
		lo, hi := keyRange(c.inputs[0])
		c.inputs[1] = overlapping(v.levels[1], lo, hi)
		yield := n < l0SlowWrites && float64(tablesSize(v.levels[1])) >= l1Yield*db.levelMax(1)
		if anyCompacting(c.inputs[1]) || yield {
			if n < l0IntraTrigger {
				return nil // woken again when the deeper one ends
			}
			c.intra, c.inputs[1] = true, nil
		}
	} else if !db.pickDeeper(c) {
		return nil
	}
	for _, in := range c.inputs {
		for _, t := range in {
			t.compacting = true
		}
	}
	v.refs.Add(1)
	return c
}

// pickDeeper fills c with a compaction of a level 1+ over its size, the
// most over first, of a table neither it nor its overlap in the next
// level is being compacted; db.mu is held. Level 1 is left to level 0's
// compaction while that one is due, unless level 1 is twice its size:
// the two would otherwise take turns on its tables.
func (db *DB) pickDeeper(c *compaction) bool {
	v := c.v
	type cand struct {
		lv    int
		score float64
	}
	var cands []cand
	for lv := 1; lv < numLevels-1; lv++ {
		s := float64(tablesSize(v.levels[lv])) / db.levelMax(lv)
		if s <= 1 || lv == 1 && s < l1Yield && len(v.levels[0]) >= l0CompactTrigger {
			continue
		}
		cands = append(cands, cand{lv, s})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	for _, cd := range cands {
		ts := v.levels[cd.lv]
		// Round robin: the first table after where the last compaction
		// of the level ended, wrapping around.
		start := sort.Search(len(ts), func(i int) bool { return bytes.Compare(ts[i].smallest, db.compPtr[cd.lv]) > 0 })
		for k := range ts {
			t := ts[(start+k)%len(ts)]
			if t.compacting {
				continue
			}
			next := overlapping(v.levels[cd.lv+1], t.smallest, t.largest)
			if anyCompacting(next) {
				continue
			}
			c.level = cd.lv
			c.inputs[0] = []*table{t}
			c.inputs[1] = next
			return true
		}
	}
	return false
}

// compact runs c and installs its result.
func (db *DB) compact(c *compaction) error {
	if h := db.opts.compactHook; h != nil {
		h(c)
	}
	out := c.level + 1
	if c.intra {
		out = 0
	}
	var metas []tableMeta
	if len(c.inputs[1]) > 0 || c.level == 0 {
		var srcs []iterator
		for _, t := range c.inputs[0] {
			srcs = append(srcs, t.iter(false))
		}
		if len(c.inputs[1]) > 0 {
			srcs = append(srcs, &levelIter{tables: c.inputs[1]})
		}
		it := newMergeIter(srcs)
		it.seek(nil)
		// Deletions can go once no deeper level may hold what they
		// delete (never from level 0). A compaction running beside
		// this one puts nothing deeper within lo..hi that c.v did not
		// hold there: it takes no table this one does, and writes only
		// the keys of its own.
		lo, hi := keyRange(c.inputs[0], c.inputs[1])
		bottom := !c.intra
		for lv := out + 1; lv < numLevels; lv++ {
			if len(overlapping(c.v.levels[lv], lo, hi)) > 0 {
				bottom = false
			}
		}
		var err error
		if metas, err = db.writeTables(it, bottom, !c.intra); err != nil {
			return err
		}
	}
	db.commitMu.Lock()
	defer db.commitMu.Unlock()
	gone := map[*table]bool{}
	for _, in := range c.inputs {
		for _, t := range in {
			gone[t] = true
		}
	}
	nv := db.current()
	for _, lv := range []int{c.level, out} {
		kept := nv.levels[lv][:0]
		for _, t := range nv.levels[lv] {
			if !gone[t] {
				kept = append(kept, t)
			}
		}
		nv.levels[lv] = kept
	}
	if metas == nil { // a move: the table goes down as it is
		nv.levels[out] = append(nv.levels[out], c.inputs[0]...)
		gone = nil
	}
	// Level 0 is ordered newest first: an intra-level-0 merge took all
	// its tables, so only flushes since are newer, and its table goes
	// last. The other levels are ordered by key.
	for _, m := range metas {
		nv.levels[out] = append(nv.levels[out], db.newTable(m))
	}
	if out > 0 {
		sort.Slice(nv.levels[out], func(i, j int) bool {
			return bytes.Compare(nv.levels[out][i].smallest, nv.levels[out][j].smallest) < 0
		})
	}
	db.mu.RLock()
	logNum := db.logNum
	db.mu.RUnlock()
	if err := db.commit(nv, logNum, nil); err != nil {
		db.removeTables(metas)
		return err
	}
	for t := range gone {
		t.obsolete.Store(true)
	}
	_, db.compPtr[c.level] = keyRange(c.inputs[0])
	return nil
}
