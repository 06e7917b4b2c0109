package state

import (
	"bytes"

	"github.com/chaind/chaind/internal/twogen"
	"github.com/chaind/chaind/internal/types"
)

// ReadCache remembers trie reads across StateDBs: the encoded account (or
// storage value) found under a key in the trie of a given root. A root
// fixes every value below it, so an entry can never go stale; the cache
// only has to bound its size. It serves the JSON-RPC pattern of many
// short-lived StateDBs opened on the same head, where every eth_call or
// eth_getBalance would otherwise walk and decode the same trie nodes and
// hash the same keys again. It is safe for concurrent use. Both its parts
// are twogen caches (two generations per shard, bounded in bytes).
type ReadCache struct {
	reads *twogen.Cache[readKey, []byte]
	code  *twogen.Cache[types.Hash, []byte] // contract code by hash (codecache.go)
}

// readCacheCodeBytes bounds the cached code (two generations of half).
const readCacheCodeBytes = 16 << 20

const readCacheShards = 16

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

// NewReadCache returns a cache of about bytes of reads, besides the
// contract code it keeps (readCacheCodeBytes).
func NewReadCache(bytes int64) *ReadCache {
	return &ReadCache{
		reads: twogen.New[readKey, []byte](bytes, readCacheShards, func(k readKey) uint64 {
			return uint64(k.root[0] ^ k.key[0] ^ k.key[19] ^ k.key[31])
		}, twogen.Bytes),
		code: newCodeCache(readCacheCodeBytes),
	}
}

// ReadStats and CodeStats are how the cache's reads and code served.
func (c *ReadCache) ReadStats() twogen.Stats { return c.reads.Stats() }
func (c *ReadCache) CodeStats() twogen.Stats { return c.code.Stats() }

func (c *ReadCache) get(k readKey) ([]byte, bool) { return c.reads.Get(k) }

func (c *ReadCache) put(k readKey, v []byte) {
	c.reads.Put(k, bytes.Clone(v)) // the trie's buffers are not ours to keep
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
