package store

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// MemDB is an in-memory KV for nodes run without a data directory.
type MemDB struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMem returns an empty in-memory store.
func NewMem() *MemDB { return &MemDB{m: make(map[string][]byte)} }

// Get returns a copy of the value of key.
func (db *MemDB) Get(key []byte) ([]byte, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	v, ok := db.m[string(key)]
	if !ok {
		return nil, ErrNotFound
	}
	return append([]byte(nil), v...), nil
}

// Has reports whether key is present.
func (db *MemDB) Has(key []byte) (bool, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	_, ok := db.m[string(key)]
	return ok, nil
}

// Write applies the batch atomically.
func (db *MemDB) Write(b *Batch) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	return b.forEach(func(del bool, k, v []byte) {
		if _, ok := db.m[string(k)]; ok || del {
			// Replacing an entry drops the old key too: it would keep
			// the old entry's whole buffer alive (see below).
			delete(db.m, string(k))
		}
		if del {
			return
		}
		// Key and value share one allocation, the key as the head of
		// the buffer (viewed as a string, never written again) and the
		// value as its tail: an entry costs one allocation instead of
		// two, and goes away whole. Writes to a value slice cannot reach
		// the key: its capacity ends where the buffer does.
		buf := make([]byte, len(k)+len(v))
		copy(buf, k)
		copy(buf[len(k):], v)
		db.m[unsafe.String(unsafe.SliceData(buf), len(k))] = buf[len(k):len(buf):len(buf)]
	})
}

// Iterate calls fn for each key with prefix, in key order.
func (db *MemDB) Iterate(prefix []byte, fn func(key, value []byte) bool) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	var keys []string
	for k := range db.m {
		if strings.HasPrefix(k, string(prefix)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !fn([]byte(k), db.m[k]) {
			break
		}
	}
	return nil
}

// IterateKeys calls fn for each key with prefix, in no particular order.
func (db *MemDB) IterateKeys(prefix []byte, fn func(key []byte) bool) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	for k := range db.m {
		if strings.HasPrefix(k, string(prefix)) && !fn([]byte(k)) {
			break
		}
	}
	return nil
}

// IterateKeysFrom calls fn for each key with prefix not below start, in
// key order.
func (db *MemDB) IterateKeysFrom(prefix, start []byte, fn func(key []byte) bool) error {
	return db.Iterate(prefix, func(k, _ []byte) bool {
		return bytes.Compare(k, start) < 0 || fn(k)
	})
}

// Close does nothing; an in-memory store has nothing to flush.
func (db *MemDB) Close() error { return nil }
