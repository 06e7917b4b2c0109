package chain

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/store"
)

// The genesis state is kept for good (a development chain resets to it),
// but its nodes carry no reference counts: counting 10M accounts' nodes
// at init would double the keys init writes. They are pinned instead, by
// a Bloom filter of every node and code blob the genesis wrote, stored
// beside it. Incremental pruning (prunelive.go) neither counts nor
// deletes a pinned hash, so a genesis node that a later block makes again
// (a value set back, a contract with the same storage) survives however
// often it is replaced. A false positive only keeps a dead node: about
// one hash in 2,000 at 16 bits a key and 11 probes.
//
// The filter is stored in chunks of pinChunkWords words under
// prefixPrunePin, described by keyPrunePin: words(8) salt(4) probes(1).

var (
	keyPrunePin    = []byte("m:prune-pin")
	prefixPrunePin = []byte("Pb") // Pb + chunk(4) -> words of the genesis pin filter, little-endian
)

const (
	pinBitsPerKey = 16
	pinProbes     = 11
	pinChunkWords = 1 << 17 // 1 MiB a chunk
)

// newPinSet returns an empty pin filter sized for about keys hashes.
func newPinSet(keys int) *bloom {
	words := max((keys*pinBitsPerKey+63)/64, 1<<10)
	return &bloom{bits: make([]uint64, words), salt: 0x5eed, probes: pinProbes}
}

// pinKeysFor estimates the stored nodes and code blobs of a state of
// accounts accounts and slots storage slots: one leaf each, about a
// fifteenth more branches, and the code of the contracts among them.
func pinKeysFor(accounts, slots int) int {
	leaves := accounts + slots
	return leaves + leaves/8 + 1024
}

// stagePinSet puts the filter and the live pruning state that starts at
// the genesis into b.
func stagePinSet(b *store.Batch, pin *bloom, genesis uint64, hash [32]byte) {
	hdr := binary.LittleEndian.AppendUint64(nil, uint64(len(pin.bits)))
	hdr = binary.LittleEndian.AppendUint32(hdr, pin.salt)
	hdr = append(hdr, byte(pin.probes))
	b.Put(keyPrunePin, hdr)
	var chunk []byte
	for i := 0; i*pinChunkWords < len(pin.bits); i++ {
		words := pin.bits[i*pinChunkWords : min((i+1)*pinChunkWords, len(pin.bits))]
		chunk = chunk[:0]
		for _, w := range words {
			chunk = binary.LittleEndian.AppendUint64(chunk, w)
		}
		b.Put(binary.BigEndian.AppendUint32(append([]byte(nil), prefixPrunePin...), uint32(i)), chunk)
	}
	b.Put(keyPrune, liveState{created: genesis, createdHash: hash, applied: genesis, appliedHash: hash}.encode())
}

// errPinSet is returned for a damaged stored pin filter.
var errPinSet = errors.New("chain: damaged genesis pin filter")

// loadPinSet reads the stored filter.
func loadPinSet(kv store.KV) (*bloom, error) {
	hdr, err := kv.Get(keyPrunePin)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPinSet, err)
	}
	if len(hdr) != 13 || hdr[12] == 0 {
		return nil, errPinSet
	}
	words := binary.LittleEndian.Uint64(hdr)
	if words == 0 || words > 1<<32 {
		return nil, errPinSet
	}
	pin := &bloom{bits: make([]uint64, 0, words), salt: binary.LittleEndian.Uint32(hdr[8:]), probes: int(hdr[12])}
	for i := 0; uint64(len(pin.bits)) < words; i++ {
		chunk, err := kv.Get(binary.BigEndian.AppendUint32(append([]byte(nil), prefixPrunePin...), uint32(i)))
		if err != nil {
			return nil, fmt.Errorf("%w: chunk %d: %v", errPinSet, i, err)
		}
		want := min(uint64(pinChunkWords), words-uint64(len(pin.bits)))
		if uint64(len(chunk)) != 8*want {
			return nil, fmt.Errorf("%w: chunk %d of %d bytes", errPinSet, i, len(chunk))
		}
		for k := 0; k < len(chunk); k += 8 {
			pin.bits = append(pin.bits, binary.LittleEndian.Uint64(chunk[k:]))
		}
	}
	return pin, nil
}
