package fork

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// Store is where a fork keeps the fork block's contents it read from the
// upstream (the node's store); the state it read is kept by the chain's
// database (state.Keeper).
type Store interface {
	store.Reader
	store.Writer
}

// keptBlock is the fork block's contents as read once.
type keptBlock struct {
	hash    types.Hash
	blk     *types.Block
	rs      types.Receipts
	chainID uint64
}

// prefixContents keys the kept contents of fork blocks by block hash:
// m:fork-block: + hash -> RLP [block, receipts (consensus forms), chain ID].
var prefixContents = []byte("m:fork-block:")

// BlockContents returns the fork block of the upstream followed now whole,
// its receipts and the upstream's chain ID (Client.BlockContents): from
// memory, else from the store, else from the upstream, and then kept in
// the store, so a fork restarted with its upstream down still shows the
// block it started from. A nil block: the chain is no fork.
func (s *State) BlockContents(ctx context.Context) (*types.Block, types.Receipts, uint64, error) {
	up := s.up.Load()
	if up == nil {
		return nil, nil, 0, nil
	}
	h := up.Block.Hash
	if k := s.kept.Load(); k != nil && k.hash == h {
		return k.blk, k.rs, k.chainID, nil
	}
	if s.store != nil {
		k, err := loadContents(s.store, h)
		if err == nil {
			s.kept.Store(k)
			return k.blk, k.rs, k.chainID, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, nil, 0, err
		}
	}
	blk, rs, id, err := up.BlockContents(ctx)
	if err != nil {
		return nil, nil, 0, err
	}
	k := &keptBlock{hash: h, blk: blk, rs: rs, chainID: id}
	if s.store != nil {
		var b store.Batch
		b.Put(append(append([]byte(nil), prefixContents...), h[:]...), encodeContents(k))
		if err := s.store.Write(&b); err != nil {
			return nil, nil, 0, fmt.Errorf("fork: keep block %d: %w", blk.Number(), err)
		}
	}
	s.kept.Store(k)
	return blk, rs, id, nil
}

func encodeContents(k *keptBlock) []byte {
	var buf rlp.Buffer
	l := buf.List()
	buf.WriteRaw(k.blk.EncodeRLP())
	buf.WriteRaw(types.AppendReceiptsRLP(nil, k.rs))
	buf.WriteUint64(k.chainID)
	buf.ListEnd(l)
	return buf.Bytes()
}

// loadContents reads the kept contents of fork block h (store.ErrNotFound:
// none kept).
func loadContents(kv store.Reader, h types.Hash) (*keptBlock, error) {
	enc, err := kv.Get(append(append([]byte(nil), prefixContents...), h[:]...))
	if err != nil {
		return nil, err
	}
	k, err := decodeContents(enc)
	if err != nil {
		return nil, fmt.Errorf("fork: kept block %s: %w", h, err)
	}
	if k.blk.Hash() != h || len(k.rs) != len(k.blk.Transactions()) {
		return nil, fmt.Errorf("fork: kept block %s is another block", h)
	}
	k.hash = h
	return k, nil
}

func decodeContents(enc []byte) (*keptBlock, error) {
	content, rest, err := rlp.SplitList(enc)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errors.New("trailing data")
	}
	blkEnc, rest, err := rlp.SplitRaw(content)
	if err != nil {
		return nil, err
	}
	rsEnc, rest, err := rlp.SplitRaw(rest)
	if err != nil {
		return nil, err
	}
	id, rest, err := rlp.SplitUint64(rest)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, errors.New("trailing data")
	}
	blk, err := types.DecodeBlock(blkEnc)
	if err != nil {
		return nil, err
	}
	rs, err := types.DecodeReceiptsRLP(rsEnc)
	if err != nil {
		return nil, err
	}
	return &keptBlock{blk: blk, rs: rs, chainID: id}, nil
}

// keptState is what State adds for keeping (see BlockContents).
type keptState struct {
	store Store
	kept  atomic.Pointer[keptBlock]
}
