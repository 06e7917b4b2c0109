package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// A block is the unit a table is read in: entries, each
//
//	kind byte | uvarint key length | key | uvarint value length | value
//
// in key order, then the uint32 offset of every entry and the uint32
// entry count, so a lookup binary-searches it without decoding it. On disk
// a block is followed by the CRC-32C of its bytes; a block whose checksum
// fails is never decoded.

const (
	kindPut byte = 1
	kindDel byte = 2

	blockTrailer = 4
)

var errBadBlock = errors.New("store: malformed block")

// block is a checked block's bytes.
type block struct {
	data     []byte // the entries
	restarts []byte // n uint32 entry offsets
	n        int
}

// parseBlock checks a block's layout: its entry count and offsets fit in
// it. The entries themselves are checked as they are read.
func parseBlock(b []byte) (block, error) {
	if len(b) < 4 {
		return block{}, errBadBlock
	}
	n := binary.LittleEndian.Uint32(b[len(b)-4:])
	if uint64(n)*4+4 > uint64(len(b)) {
		return block{}, errBadBlock
	}
	end := len(b) - 4 - int(n)*4
	blk := block{data: b[:end], restarts: b[end : len(b)-4], n: int(n)}
	prev := -1
	for i := 0; i < blk.n; i++ {
		o := int(binary.LittleEndian.Uint32(blk.restarts[4*i:]))
		if o <= prev || o >= end {
			return block{}, errBadBlock
		}
		prev = o
	}
	return blk, nil
}

// entry decodes entry i.
func (b block) entry(i int) (kind byte, key, val []byte, err error) {
	p := b.data[binary.LittleEndian.Uint32(b.restarts[4*i:]):]
	if len(p) < 1 {
		return 0, nil, nil, errBadBlock
	}
	kind, p = p[0], p[1:]
	if kind != kindPut && kind != kindDel {
		return 0, nil, nil, errBadBlock
	}
	kl, m := binary.Uvarint(p)
	if m <= 0 || kl > uint64(len(p)-m) {
		return 0, nil, nil, errBadBlock
	}
	key, p = p[m:m+int(kl)], p[m+int(kl):]
	vl, m := binary.Uvarint(p)
	if m <= 0 || vl > uint64(len(p)-m) {
		return 0, nil, nil, errBadBlock
	}
	return kind, key, p[m : m+int(vl) : m+int(vl)], nil
}

// search returns the index of the first entry whose key is at or after
// key (n when none is).
func (b block) search(key []byte) (int, error) {
	lo, hi := 0, b.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		_, k, _, err := b.entry(mid)
		if err != nil {
			return 0, err
		}
		if bytes.Compare(k, key) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// blockBuilder accumulates entries into a block.
type blockBuilder struct {
	buf      []byte
	restarts []uint32
}

func (bb *blockBuilder) add(kind byte, key, val []byte) {
	bb.restarts = append(bb.restarts, uint32(len(bb.buf)))
	bb.buf = append(bb.buf, kind)
	bb.buf = binary.AppendUvarint(bb.buf, uint64(len(key)))
	bb.buf = append(bb.buf, key...)
	bb.buf = binary.AppendUvarint(bb.buf, uint64(len(val)))
	bb.buf = append(bb.buf, val...)
}

func (bb *blockBuilder) empty() bool { return len(bb.restarts) == 0 }

// size is the block's size once finished.
func (bb *blockBuilder) size() int { return len(bb.buf) + 4*len(bb.restarts) + 4 }

// finish appends the offsets, count and checksum and returns the block as
// it goes on disk, valid until the builder's next add (the builder keeps
// its memory for the next block).
func (bb *blockBuilder) finish() []byte {
	for _, r := range bb.restarts {
		bb.buf = binary.LittleEndian.AppendUint32(bb.buf, r)
	}
	bb.buf = binary.LittleEndian.AppendUint32(bb.buf, uint32(len(bb.restarts)))
	bb.buf = binary.LittleEndian.AppendUint32(bb.buf, crc32.Checksum(bb.buf, castagnoli))
	out := bb.buf
	bb.buf, bb.restarts = bb.buf[:0], bb.restarts[:0]
	return out
}

// checkBlock verifies a block read from disk (content then checksum) and
// returns its content.
func checkBlock(raw []byte) ([]byte, bool) {
	if len(raw) < blockTrailer {
		return nil, false
	}
	content := raw[:len(raw)-blockTrailer]
	return content, crc32.Checksum(content, castagnoli) == binary.LittleEndian.Uint32(raw[len(content):])
}
