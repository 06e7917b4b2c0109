package chain

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// maxBlockSize bounds one block read from a chain file, so a corrupt
// length prefix cannot make the reader allocate gigabytes.
const maxBlockSize = 256 << 20

// ReadBlocks decodes a file of concatenated RLP blocks (as `chaind export`
// writes and the execution-apis vectors ship) and calls fn for each block
// in order. It streams: memory use is one block.
func ReadBlocks(r io.Reader, fn func(*types.Block) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 0; ; n++ {
		head, err := br.Peek(9)
		if len(head) == 0 {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		size, err := itemSize(head)
		if err != nil {
			return fmt.Errorf("block %d in file: %w", n, err)
		}
		buf := make([]byte, size)
		if _, err := io.ReadFull(br, buf); err != nil {
			return fmt.Errorf("block %d in file: truncated: %w", n, err)
		}
		b, err := types.DecodeBlock(buf)
		if err != nil {
			return fmt.Errorf("block %d in file: %w", n, err)
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}

// itemSize returns the total encoded size of the list item whose first
// bytes are head.
func itemSize(head []byte) (int, error) {
	b := head[0]
	switch {
	case b < 0xC0:
		return 0, rlp.ErrExpectedList
	case b < 0xF8:
		return 1 + int(b-0xC0), nil
	}
	n := int(b - 0xF7)
	if len(head) < 1+n {
		return 0, rlp.ErrValueTooLarge
	}
	size := 0
	for _, c := range head[1 : 1+n] {
		size = size<<8 | int(c)
		if size > maxBlockSize {
			return 0, fmt.Errorf("block larger than %d bytes", maxBlockSize)
		}
	}
	return 1 + n + size, nil
}

// CountBlocks counts the blocks of a chain file by their length prefixes,
// without decoding them, so an import can say how far along it is. Errors
// are those ReadBlocks would report for the same item.
func CountBlocks(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 0; ; n++ {
		head, err := br.Peek(9)
		if len(head) == 0 {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		size, err := itemSize(head)
		if err != nil {
			return n, fmt.Errorf("block %d in file: %w", n, err)
		}
		if d, err := br.Discard(size); err != nil {
			return n, fmt.Errorf("block %d in file: truncated after %d of %d bytes: %w", n, d, size, err)
		}
	}
}

// ImportBlocks inserts the blocks of a file of concatenated RLP blocks in
// order, validating each fully, calling inserted (if not nil) for each
// block stored. Blocks go in in batches (InsertChain), so that the senders
// of a batch's later blocks are recovered while its earlier ones execute.
func (c *Chain) ImportBlocks(r io.Reader, inserted func(*types.Block)) error {
	const batchBlocks, batchTxs = 128, 50_000
	var batch []*types.Block
	txs := 0
	flush := func() error {
		i, err := c.InsertChain(batch, inserted)
		if err != nil {
			b := batch[i]
			return fmt.Errorf("block %d (%s): %w", b.Number(), b.Hash(), err)
		}
		batch, txs = batch[:0], 0
		return nil
	}
	err := ReadBlocks(r, func(b *types.Block) error {
		batch = append(batch, b)
		if txs += len(b.Transactions()); len(batch) >= batchBlocks || txs >= batchTxs {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	return err
}
