package state

import (
	"bytes"
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// ReadCache remembers trie reads across StateDBs: the encoded account (or
// storage value) found under a key in the trie of a given root. A root
// fixes every value below it, so an entry can never go stale; the cache
// only has to bound its size. It serves the JSON-RPC pattern of many
// short-lived StateDBs opened on the same head, where every eth_call or
// eth_getBalance would otherwise walk and decode the same trie nodes and
// hash the same keys again. It is safe for concurrent use.
type ReadCache struct {
	perShard int
	shards   [readCacheShards]readShard
	code     codeCache // contract code by hash (codecache.go)
}

// readCacheCodeBytes bounds a generation of cached code (two are kept).
const readCacheCodeBytes = 8 << 20

const readCacheShards = 16

type readShard struct {
	mu       sync.Mutex
	cur, old map[readKey][]byte
}

// readKey names one read. The kind keeps an account read and a slot read
// of equal bytes apart even in the (theoretical) case of an account trie
// and a storage trie with the same root.
type readKey struct {
	root types.Hash
	key  types.Hash // address (left-aligned) or slot
	kind uint8
}

const (
	readAccount uint8 = iota + 1
	readSlot
)

// NewReadCache returns a cache of about entries reads (at most twice that
// many are held: it keeps two generations and drops the older one when the
// newer fills up, an LRU approximation without per-read bookkeeping).
func NewReadCache(entries int) *ReadCache {
	per := max(entries/readCacheShards, 16)
	return &ReadCache{perShard: per, code: codeCache{limit: readCacheCodeBytes}}
}

func (c *ReadCache) shard(k *readKey) *readShard {
	return &c.shards[(k.root[0]^k.key[0]^k.key[19]^k.key[31])%readCacheShards]
}

func (c *ReadCache) get(k readKey) ([]byte, bool) {
	sh := c.shard(&k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if v, ok := sh.cur[k]; ok {
		return v, true
	}
	if v, ok := sh.old[k]; ok {
		sh.insert(k, v, c.perShard)
		return v, true
	}
	return nil, false
}

func (c *ReadCache) put(k readKey, v []byte) {
	v = bytes.Clone(v) // the trie's buffers are not ours to keep
	sh := c.shard(&k)
	sh.mu.Lock()
	sh.insert(k, v, c.perShard)
	sh.mu.Unlock()
}

func (sh *readShard) insert(k readKey, v []byte, limit int) {
	if sh.cur == nil {
		// Grown as reads come: sized for the limit up front, the 16
		// shards' maps cost a node's start (--dev) milliseconds of
		// zeroed pages for the few reads it makes.
		sh.cur = map[readKey][]byte{}
	}
	if len(sh.cur) >= limit {
		sh.old, sh.cur = sh.cur, make(map[readKey][]byte, limit)
	}
	sh.cur[k] = v
}

// SetReadCache makes s consult and fill c for reads of accounts and slots
// from tries it has not modified. Tries a StateDB has changed are read
// directly: their content no longer matches any root the cache knows.
func (s *StateDB) SetReadCache(c *ReadCache) { s.readCache = c }

// readAccountEnc is secureGet on the account trie, through the read cache
// while the trie still holds exactly origRoot.
func (s *StateDB) readAccountEnc(addr types.Address) ([]byte, error) {
	if s.readCache == nil || s.trieChanged {
		return s.accountFromTrie(addr)
	}
	k := readKey{root: s.origRoot, kind: readAccount}
	copy(k.key[:], addr[:])
	if enc, ok := s.readCache.get(k); ok {
		return enc, nil
	}
	enc, err := s.accountFromTrie(addr)
	if err == nil {
		s.readCache.put(k, enc)
	}
	return enc, err
}

func (s *StateDB) accountFromTrie(addr types.Address) ([]byte, error) {
	if enc, ok, err := s.flatReadAccount(addr); ok || err != nil {
		return enc, err
	}
	if s.remote == nil {
		return secureGet(s.trie, addr[:])
	}
	var enc []byte
	err := s.withRemote(addr, nil, func() (err error) {
		enc, err = secureGet(s.trie, addr[:])
		return err
	})
	return enc, err
}

// readSlotEnc reads a slot from o's storage trie, through the read cache
// while that trie still is (or, not opened yet, will be) the one its
// storage root names. A hit does not even open the trie.
func (s *StateDB) readSlotEnc(o *stateObject, key types.Hash) ([]byte, error) {
	origin, clean := o.data.Root, true
	if o.storage != nil {
		origin, clean = o.storageOrigin, o.storageClean
	}
	if s.readCache == nil || !clean {
		return s.slotFromTrie(o, key)
	}
	k := readKey{root: origin, key: key, kind: readSlot}
	if enc, ok := s.readCache.get(k); ok {
		return enc, nil
	}
	enc, err := s.slotFromTrie(o, key)
	if err == nil {
		s.readCache.put(k, enc)
	}
	return enc, err
}

func (s *StateDB) slotFromTrie(o *stateObject, key types.Hash) ([]byte, error) {
	if s.remote != nil {
		var enc []byte
		err := s.withRemote(o.addr, &key, func() error {
			t, err := s.openStorage(o)
			if err != nil {
				return err
			}
			enc, err = secureGet(t, key[:])
			return err
		})
		return enc, err
	}
	if enc, ok, err := s.flatReadSlot(o, key); ok || err != nil {
		return enc, err
	}
	t := s.storageTrie(o)
	if t == nil {
		return nil, s.err // storageTrie recorded why
	}
	return secureGet(t, key[:])
}
