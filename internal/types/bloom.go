package types

import (
	"encoding/hex"

	"github.com/chaind/chaind/internal/crypto"
)

// BloomLength is the size of a log bloom filter in bytes (2048 bits).
const BloomLength = 256

// Bloom is the 2048-bit filter of a receipt or block: for every log it
// holds the address and the topics, each setting three bits chosen from
// its keccak256 hash.
type Bloom [BloomLength]byte

// bloomBits returns the byte index and mask of the three bits of data.
func bloomBits(data []byte) (idx [3]int, mask [3]byte) {
	h := crypto.Keccak256(data)
	for i := 0; i < 3; i++ {
		bit := (uint(h[2*i])<<8 | uint(h[2*i+1])) & 2047
		idx[i] = BloomLength - 1 - int(bit/8)
		mask[i] = 1 << (bit % 8)
	}
	return idx, mask
}

// Add sets the bits of data.
func (b *Bloom) Add(data []byte) {
	idx, mask := bloomBits(data)
	for i := range idx {
		b[idx[i]] |= mask[i]
	}
}

// BloomKey is the three bit positions of one value, computed once so that
// testing many blooms for the same address or topic hashes it only once.
type BloomKey struct {
	idx  [3]int
	mask [3]byte
}

// NewBloomKey returns the bit positions of data.
func NewBloomKey(data []byte) BloomKey {
	idx, mask := bloomBits(data)
	return BloomKey{idx, mask}
}

// TestKey is Test for precomputed positions.
func (b *Bloom) TestKey(k *BloomKey) bool {
	return b[k.idx[0]]&k.mask[0] != 0 && b[k.idx[1]]&k.mask[1] != 0 && b[k.idx[2]]&k.mask[2] != 0
}

// Test reports whether all bits of data are set: false means data was
// certainly not added, true that it may have been.
func (b *Bloom) Test(data []byte) bool {
	idx, mask := bloomBits(data)
	for i := range idx {
		if b[idx[i]]&mask[i] == 0 {
			return false
		}
	}
	return true
}

// Or merges other into b.
func (b *Bloom) Or(other *Bloom) {
	for i := range b {
		b[i] |= other[i]
	}
}

// AddLog adds a log's address and topics.
func (b *Bloom) AddLog(l *Log) {
	b.Add(l.Address[:])
	for i := range l.Topics {
		b.Add(l.Topics[i][:])
	}
}

// Bytes returns the filter as a slice.
func (b Bloom) Bytes() []byte { return b[:] }

// Hex returns the 0x-prefixed hex form.
func (b Bloom) Hex() string { return "0x" + hex.EncodeToString(b[:]) }

// LogsBloom returns the bloom of a list of logs.
func LogsBloom(logs []*Log) Bloom {
	var b Bloom
	for _, l := range logs {
		b.AddLog(l)
	}
	return b
}

// CreateBloom returns the block's logsBloom: the union of the receipts'
// blooms. Each receipt's Bloom must already be the bloom of its logs (as
// the executor and the receipt decoder leave it), so no log is hashed a
// second time.
func CreateBloom(receipts []*Receipt) Bloom {
	var b Bloom
	for _, r := range receipts {
		b.Or(&r.Bloom)
	}
	return b
}
