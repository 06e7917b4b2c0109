package crypto

import "sync"

// pooledKeccak is a recycled hasher with its own output buffer. Hashers are
// recycled because a keccak state is a 200-byte sponge plus buffers:
// allocating one per hash dominates the cost of hashing a trie node or a
// 32-byte EVM word. Reading into the pooled buffer (not the caller's) keeps
// the caller's destination from escaping through the interface call.
type pooledKeccak struct {
	h   KeccakState
	out [32]byte
}

var keccakPool = sync.Pool{New: func() any { return &pooledKeccak{h: NewKeccak()} }}

// HashInto writes keccak256 of the concatenated inputs into dst without
// allocating. Hot callers (trie hashing, the KECCAK256 opcode, sender
// recovery) should prefer it over Keccak256.
func HashInto(dst *[32]byte, data ...[]byte) {
	p := keccakPool.Get().(*pooledKeccak)
	p.h.Reset()
	for _, b := range data {
		p.h.Write(b)
	}
	p.h.Read(p.out[:])
	*dst = p.out
	keccakPool.Put(p)
}

// Keccak256Slice is Keccak256 returning a freshly allocated slice, for
// callers that need a []byte.
func Keccak256Slice(data ...[]byte) []byte {
	var h [32]byte
	HashInto(&h, data...)
	return h[:]
}
