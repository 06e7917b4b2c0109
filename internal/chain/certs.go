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
	return c.CommitDecided(built, cert, nil)
}

// CommitDecided is CommitCertified that also replaces, in the same batch,
// the stored certificate of the block's parent with parentCert (when not
// nil): the certificate the block commits to, which may hold precommits
// that reached its proposer after this node had stored its own. Every
// node then keeps, for each block but the head, the certificate its
// child commits to. The caller has checked that the block commits to
// parentCert; the chain keeps certificates as opaque bytes.
func (c *Chain) CommitDecided(built *Built, cert, parentCert []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b := built.Block
	if b.ParentHash() != c.head.Hash() {
		return fmt.Errorf("%w: built on %s, head is %s", ErrUnknownParent, b.ParentHash(), c.head.Hash())
	}
	c.stageParentCertificate(b, parentCert)
	c.db.stageCertificate(b.Number(), cert)
	return c.commit(built)
}

// InsertCertified is InsertBlock for a decided block this node has not
// executed yet, stored together with its commit certificate. Besides
// Ethereum's validity the engine checks the header (VerifyHeader: on a
// proof-of-stake chain, the consensus data and the commitment to the
// parent's certificate), as it does for a proposal.
func (c *Chain) InsertCertified(b *types.Block, cert []byte) (types.Receipts, error) {
	return c.InsertDecided(b, cert, nil)
}

// InsertDecided is InsertCertified that also replaces the parent's
// stored certificate, as CommitDecided does. The engine checks the header
// against parentCert, or the parent's stored certificate when it is nil.
func (c *Chain) InsertDecided(b *types.Block, cert, parentCert []byte) (types.Receipts, error) {
	return c.insertChecked(b, cert, parentCert, senders{})
}

// stageParentCertificate stages parentCert as the certificate of b's
// parent; nothing for nil or on top of the genesis block.
func (c *Chain) stageParentCertificate(b *types.Block, parentCert []byte) {
	if parentCert != nil && b.Number() > 0 {
		c.db.stageCertificate(b.Number()-1, parentCert)
	}
}

// InsertCertifiedChain inserts consecutive decided blocks with their
// certificates, as a syncing node does, recovering the senders of the
// whole run in the background while the blocks execute (as InsertChain
// does for an import). Each block's header passes the engine's check
// (VerifyHeader) before it executes. check, when set, runs before each block is
// inserted (a certificate whose validator set an earlier block of the run
// decides can only be verified then); its error stops the run. Blocks
// already stored are passed over. It returns how many blocks it went
// through, and the error that stopped it.
func (c *Chain) InsertCertifiedChain(blocks []*types.Block, certs [][]byte, check func(i int) error) (int, error) {
	if len(certs) != len(blocks) {
		return 0, fmt.Errorf("chain: %d blocks with %d certificates", len(blocks), len(certs))
	}
	r := recoverBlocks(blocks, c.Config.blockSigner)
	defer r.stop()
	off := 0
	for i, b := range blocks {
		if check != nil {
			if err := check(i); err != nil {
				return i, err
			}
		}
		// The certificate block i commits to is the one served with its
		// parent: a peer keeps, for each block but its head, the one the
		// child commits to. The first block's parent is the head, and its
		// stored certificate stands (block sync starts a run at the head,
		// so that it comes with the one its child commits to).
		var parentCert []byte
		if i > 0 && blocks[i-1].Hash() == b.ParentHash() {
			parentCert = certs[i-1]
		}
		_, err := c.insertChecked(b, certs[i], parentCert, senders{r: r, off: off})
		if err != nil && !errors.Is(err, ErrKnownBlock) {
			return i, err
		}
		off += len(b.Transactions())
	}
	return len(blocks), nil
}

// insertChecked runs the engine's header check on b, a child of the head,
// against parentCert (nil: the head's stored certificate), then inserts
// it. The check runs outside c.wmu (the engine reads the chain), so the
// chain is locked block by block and readers of the head wait for one
// block at most; a head that moved in between refuses the block rather
// than store it unchecked. A block that is not a child of the head is
// refused or passed over by the insert.
func (c *Chain) insertChecked(b *types.Block, cert, parentCert []byte, s senders) (types.Receipts, error) {
	parent := c.Head()
	if b.ParentHash() == parent.Hash() {
		checked := parentCert
		if checked == nil {
			var err error
			checked, err = c.Certificate(parent.Number())
			if errors.Is(err, ErrNotFound) {
				checked, err = nil, nil // the genesis block, or decided before certificates were kept
			}
			if err != nil {
				return nil, err
			}
		}
		if err := c.engine.VerifyHeader(c, parent.HeaderRef(), b.HeaderRef(), checked); err != nil {
			return nil, fmt.Errorf("block %d: %w", b.Number(), err)
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if b.ParentHash() == c.head.Hash() && c.head.Hash() != parent.Hash() {
		return nil, fmt.Errorf("%w: the head moved while block %d was checked", ErrUnknownParent, b.Number())
	}
	return c.insertCertified(b, cert, parentCert, s)
}

// insertCertified is InsertDecided under c.wmu, once the engine checked the
// header, with the senders' background recovery, if any.
func (c *Chain) insertCertified(b *types.Block, cert, parentCert []byte, s senders) (types.Receipts, error) {
	built, err := c.validate(b, c.head, c.GetHash, s)
	if err != nil {
		return nil, err
	}
	c.stageParentCertificate(b, parentCert)
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
