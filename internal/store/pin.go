package store

// The index and bloom filter blocks of the open tables are pinned in
// memory, outside the block cache's LRU: every read of a table consults
// both before its one data block, so a read that finds them out of the
// cache pays two more (large: tens of KiB) table reads for one lookup. On
// a store of millions of keys they are what a node that has just started
// lacks; half of its first reads each loaded a table's index and filter.
//
// A background worker (the pinner) loads them after open and for every
// table a flush or compaction adds, within a budget (half of the cache,
// Options.CacheMiB): the block cache gives up what they take, so the
// store's memory stays bounded by --cache. Tables beyond the budget read
// their index and filter through the block cache, as before. A table
// that fails its checks is left unpinned: its reads report the damage.
// A pinned table lets go of its blocks when the last version naming it
// does (table.unref).

// pinnedMeta is a table's pinned index and filter.
type pinnedMeta struct {
	index  block
	filter []byte
	cost   int64
}

// pinOverhead is what a pinned table costs beside its blocks' bytes.
const pinOverhead = 128

// pinner pins the tables of the current version until the store closes,
// again each time a flush or compaction installs a new one.
func (db *DB) pinner() {
	defer db.bg.Done()
	for {
		db.pinTables()
		select {
		case <-db.stop:
			return
		case <-db.pinWake:
		}
	}
}

// pinTables pins what the budget allows of the current version's tables,
// level 0 first (every read may look at each of them), then the levels
// below.
func (db *DB) pinTables() {
	v, _, err := db.acquire()
	if err != nil {
		return
	}
	// Holding v holds its tables: none is let go (and unpinned) while it
	// is being pinned.
	defer v.unref()
	for _, lv := range v.levels {
		for _, t := range lv {
			if db.closing.Load() {
				return
			}
			if t.pinned.Load() != nil || t.pinFailed.Load() || t.obsolete.Load() {
				continue
			}
			if !db.pin(t) {
				return // the budget is spent until tables go
			}
		}
	}
}

// pin loads and pins t's index and filter; false when the budget has no
// room for them.
func (db *DB) pin(t *table) bool {
	if err := t.load(); err != nil {
		t.pinFailed.Store(true)
		return true
	}
	cost := t.index.n + t.filter.n + 2*blockTrailer + pinOverhead
	if !db.reservePin(cost) {
		return false
	}
	filter, err := t.readRaw(t.filter, nil)
	var index []byte
	if err == nil {
		index, err = t.readRaw(t.index, nil)
	}
	var idx block
	if err == nil {
		idx, err = parseBlock(index)
	}
	if err != nil {
		db.cache.reserved.Add(-cost)
		t.pinFailed.Store(true)
		return true
	}
	t.pinned.Store(&pinnedMeta{index: idx, filter: filter, cost: cost})
	// Held twice no longer: the reads before the pin may have cached them.
	db.cache.drop(cacheKey{t.num, t.filter.off})
	db.cache.drop(cacheKey{t.num, t.index.off})
	return true
}

// reservePin takes cost bytes of the pinning budget from the block cache,
// false when the budget has no room for them.
func (db *DB) reservePin(cost int64) bool {
	limit := db.cache.capacity / 2
	if db.opts.pinBytes > 0 {
		limit = db.opts.pinBytes
	}
	for {
		cur := db.cache.reserved.Load()
		if cur+cost > limit {
			return false
		}
		if db.cache.reserved.CompareAndSwap(cur, cur+cost) {
			return true
		}
	}
}

// unpinMeta gives t's pinned blocks' budget back to the block cache; t is
// being let go.
func (t *table) unpinMeta() {
	if p := t.pinned.Swap(nil); p != nil {
		t.db.cache.reserved.Add(-p.cost)
	}
}
