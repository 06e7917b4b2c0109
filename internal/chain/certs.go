package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// The chain keeps each decided block's commit certificate, the proof that
// validators holding more than two thirds of the stake precommitted it. It
// stores the certificate as opaque bytes: the consensus package encodes and
// verifies it, and the chain does not depend on consensus.

// CommitCertified is CommitBuilt for a block decided by consensus: the
// commit certificate is written in the same atomic batch as the block, so
// after a crash either both are stored or neither is.
func (c *Chain) CommitCertified(built *Built, cert []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := built.Block
	if b.ParentHash() != c.head.Hash() {
		return fmt.Errorf("%w: built on %s, head is %s", ErrUnknownParent, b.ParentHash(), c.head.Hash())
	}
	c.db.stageCertificate(b.Number(), cert)
	return c.commit(built)
}

// InsertCertified is InsertBlock for a decided block this node has not
// executed yet, stored together with its commit certificate.
func (c *Chain) InsertCertified(b *types.Block, cert []byte) (types.Receipts, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	built, err := c.validate(b, c.head, c.GetHash, senders{})
	if err != nil {
		return nil, err
	}
	c.db.stageCertificate(b.Number(), cert)
	return built.Receipts, c.commit(built)
}

// Certificate returns the stored commit certificate of canonical block n;
// ErrNotFound for the genesis block, which has none, and for blocks stored
// without one.
func (c *Chain) Certificate(n uint64) ([]byte, error) {
	return c.db.Certificate(n)
}

// stageCertificate adds a certificate to the pending batch, which the next
// WriteBlock writes with its block (and Discard drops with it).
func (db *DB) stageCertificate(n uint64, cert []byte) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.pending.Put(key(prefixCert, numKey(n)), append([]byte(nil), cert...))
}

// Certificate returns the stored commit certificate of block n.
func (db *DB) Certificate(n uint64) ([]byte, error) {
	v, err := db.kv.Get(key(prefixCert, numKey(n)))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	return v, err
}
