package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/chaind/chaind/internal/store"
	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	bolt "go.etcd.io/bbolt"
)

// engine is what the workloads need of a key-value store.
type engine interface {
	write(keys, vals [][]byte, sync bool) error
	get(k []byte) ([]byte, error)
	// scan reads every entry whose key starts with prefix, in key order,
	// each key and value copied out (as chaind's Iterate hands them).
	scan(prefix []byte) (int, error)
	close() error
}

type chaindEngine struct{ db *store.DB }

func openChaind(dir string, cacheMiB int) (engine, error) {
	db, err := store.OpenWith(dir, store.Options{CacheMiB: cacheMiB})
	return &chaindEngine{db}, err
}

func (e *chaindEngine) write(keys, vals [][]byte, sync bool) error {
	var b store.Batch
	for i := range keys {
		b.Put(keys[i], vals[i])
	}
	e.db.NoSync = !sync
	return e.db.Write(&b)
}

func (e *chaindEngine) get(k []byte) ([]byte, error) { return e.db.Get(k) }

func (e *chaindEngine) scan(prefix []byte) (int, error) {
	got := 0
	err := e.db.Iterate(prefix, func(k, v []byte) bool {
		got++
		return true
	})
	return got, err
}

func (e *chaindEngine) close() error { return e.db.Close() }

type pebbleEngine struct {
	db    *pebble.DB
	cache *pebble.Cache
}

func openPebble(dir string, cacheMiB int) (engine, error) {
	c := pebble.NewCache(int64(cacheMiB) << 20)
	o := &pebble.Options{Cache: c}
	// Bloom filters of 10 bits per key, as chaind's tables have (Pebble
	// has none by default).
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, o)
	return &pebbleEngine{db, c}, err
}

func (e *pebbleEngine) write(keys, vals [][]byte, sync bool) error {
	b := e.db.NewBatch()
	for i := range keys {
		b.Set(keys[i], vals[i], nil)
	}
	o := pebble.NoSync
	if sync {
		o = pebble.Sync
	}
	return b.Commit(o)
}

func (e *pebbleEngine) get(k []byte) ([]byte, error) {
	v, closer, err := e.db.Get(k)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...) // as the others return a copy
	closer.Close()
	return out, nil
}

func (e *pebbleEngine) scan(prefix []byte) (int, error) {
	it, err := e.db.NewIter(nil)
	if err != nil {
		return 0, err
	}
	got := 0
	for ok := it.SeekGE(prefix); ok && bytes.HasPrefix(it.Key(), prefix); ok = it.Next() {
		_, _ = append([]byte(nil), it.Key()...), append([]byte(nil), it.Value()...)
		got++
	}
	return got, errors.Join(it.Error(), it.Close())
}

func (e *pebbleEngine) close() error {
	err := e.db.Close()
	e.cache.Unref()
	return err
}

type boltEngine struct{ db *bolt.DB }

var bucket = []byte("b")

func openBolt(dir string, _ int) (engine, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	db, err := bolt.Open(filepath.Join(dir, "bolt.db"), 0o600, nil)
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	})
	return &boltEngine{db}, err
}

func (e *boltEngine) write(keys, vals [][]byte, sync bool) error {
	e.db.NoSync = !sync
	return e.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		for i := range keys {
			if err := b.Put(keys[i], vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *boltEngine) get(k []byte) ([]byte, error) {
	var out []byte
	err := e.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get(k)
		if v == nil {
			return errors.New("not found")
		}
		out = append([]byte(nil), v...)
		return nil
	})
	return out, err
}

func (e *boltEngine) scan(prefix []byte) (int, error) {
	got := 0
	err := e.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			_, _ = append([]byte(nil), k...), append([]byte(nil), v...)
			got++
		}
		return nil
	})
	return got, err
}

func (e *boltEngine) close() error { return e.db.Close() }
