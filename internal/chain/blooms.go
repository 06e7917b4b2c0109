package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// Log queries over long ranges test every block's bloom first. Reading a
// whole block (or even a header) per block costs a decode each; instead
// every block's bloom is also stored on its own, and each run of 64
// consecutive blooms is packed into one value once complete, so a scan of
// 100,000 blocks is about 1,600 reads.
const bloomGroup = 64

var (
	prefixBloom      = []byte("B") // B + number(8) -> bloom of one block (until its group is packed)
	prefixBloomGroup = []byte("G") // G + group(8) -> 64 blooms of blocks 64g .. 64g+63
)

// putBloom stages the bloom of block n, packing its group when n
// completes one.
func (w *indexBatch) putBloom(n uint64, bloom *types.Bloom) error {
	if n%bloomGroup != bloomGroup-1 {
		w.putKey(prefixBloom, numKey(n), bloom[:])
		return nil
	}
	packed := make([]byte, bloomGroup*types.BloomLength)
	first := n - (bloomGroup - 1)
	for i := uint64(0); i < bloomGroup-1; i++ {
		k := key(prefixBloom, numKey(first+i))
		v, err := w.get(k)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // a block with no stored bloom (written before this table existed) tests as empty
		case err != nil:
			return err
		case len(v) != types.BloomLength:
			return fmt.Errorf("stored bloom of block %d has %d bytes", first+i, len(v))
		}
		copy(packed[i*types.BloomLength:], v)
		w.del(k)
	}
	copy(packed[(bloomGroup-1)*types.BloomLength:], bloom[:])
	w.put(key(prefixBloomGroup, numKey(n/bloomGroup)), packed)
	return nil
}

// unpackBlooms stages the packed bloom groups that blocks first..last
// reach as one bloom per block, so that every later write or deletion of
// a block's bloom lands where the reader looks.
func (w *indexBatch) unpackBlooms(first, last uint64) error {
	for g := first / bloomGroup; g <= last/bloomGroup; g++ {
		packed, err := w.get(key(prefixBloomGroup, numKey(g)))
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if len(packed) != bloomGroup*types.BloomLength {
			return fmt.Errorf("stored bloom group %d has %d bytes", g, len(packed))
		}
		for i := uint64(0); i < bloomGroup; i++ {
			w.put(key(prefixBloom, numKey(g*bloomGroup+i)), packed[i*types.BloomLength:(i+1)*types.BloomLength])
		}
		w.del(key(prefixBloomGroup, numKey(g)))
	}
	return nil
}

// BloomReader reads block blooms by number, keeping the last packed group
// it read so that a sequential scan reads each group once. It is not safe
// for concurrent use; make one per query.
type BloomReader struct {
	db    *DB
	group uint64
	data  []byte
}

// NewBloomReader returns a reader over the store's blooms.
func (db *DB) NewBloomReader() *BloomReader { return &BloomReader{db: db, group: ^uint64(0)} }

// Bloom returns the bloom of canonical block n; ok is false when the store
// has none for it (then the caller must read the block).
func (r *BloomReader) Bloom(n uint64) (bloom types.Bloom, ok bool, err error) {
	g := n / bloomGroup
	if g != r.group {
		v, err := r.db.kv.Get(key(prefixBloomGroup, numKey(g)))
		switch {
		case errors.Is(err, store.ErrNotFound):
			r.data = nil
		case err != nil:
			return bloom, false, err
		default:
			r.data = v
		}
		r.group = g
	}
	if r.data != nil {
		i := (n % bloomGroup) * types.BloomLength
		copy(bloom[:], r.data[i:i+types.BloomLength])
		return bloom, true, nil
	}
	v, err := r.db.kv.Get(key(prefixBloom, numKey(n)))
	if errors.Is(err, store.ErrNotFound) {
		return bloom, false, nil
	}
	if err != nil || len(v) != types.BloomLength {
		return bloom, false, err
	}
	copy(bloom[:], v)
	return bloom, true, nil
}
