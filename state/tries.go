package state

import (
	"bytes"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/trie"
)

// The account trie and storage tries are "secure": keys are keccak256 of
// the address or slot. The hashing is done here, into stack buffers, so a
// trie access allocates nothing of its own.

func secureGet(t *trie.Trie, key []byte) ([]byte, error) {
	var hk [32]byte
	crypto.HashInto(&hk, key)
	return t.Get(hk[:])
}

func secureUpdate(t *trie.Trie, key, value []byte) error {
	var hk [32]byte
	crypto.HashInto(&hk, key)
	return t.Update(hk[:], value)
}

func secureDelete(t *trie.Trie, key []byte) error {
	var hk [32]byte
	crypto.HashInto(&hk, key)
	return t.Delete(hk[:])
}

// writeCode puts the code written since the last Commit into the database.
// Code lives in the same hash-keyed space as trie nodes: its key is
// keccak256(code), just as a node's key is keccak256(node).
func (s *StateDB) writeCode() error {
	if len(s.codes) == 0 {
		return nil
	}
	set := trie.NewNodeSet()
	for h, c := range s.codes {
		set.Add(h, c)
	}
	if err := s.db.Update(set); err != nil {
		return err
	}
	clear(s.codes)
	return nil
}

func (s *StateDB) readCode(h [32]byte) ([]byte, error) {
	if s.readCache != nil {
		if c, ok := s.readCache.code.Get(h); ok {
			return c, nil
		}
	}
	c, err := s.db.Node(h)
	if err == nil && s.readCache != nil {
		c = bytes.Clone(c) // kept past this read: not the store's buffer
		s.readCache.code.Put(h, c)
	}
	return c, err
}
