// Package types defines Ethereum's core data structures (addresses, hashes,
// blocks, transactions, receipts, logs), their RLP encodings and hashes, and
// the JSON forms the JSON-RPC interface renders them in.
package types

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
)

// Hash is a 32-byte keccak256 digest.
type Hash [32]byte

// Address is a 20-byte account address.
type Address [20]byte

// BytesToHash returns b as a Hash, keeping its last 32 bytes or left-padding.
func BytesToHash(b []byte) (h Hash) {
	if len(b) > len(h) {
		b = b[len(b)-len(h):]
	}
	copy(h[len(h)-len(b):], b)
	return h
}

// BytesToAddress returns b as an Address, keeping its last 20 bytes or
// left-padding.
func BytesToAddress(b []byte) (a Address) {
	if len(b) > len(a) {
		b = b[len(b)-len(a):]
	}
	copy(a[len(a)-len(b):], b)
	return a
}

var errHexLength = errors.New("types: wrong hex length")

// HexToHash parses a 0x-prefixed (or bare) 64-digit hex string.
func HexToHash(s string) (Hash, error) {
	var h Hash
	return h, decodeFixedHex(s, h[:])
}

// HexToAddress parses a 0x-prefixed (or bare) 40-digit hex string. It does
// not check an EIP-55 checksum; see ParseAddress for that.
func HexToAddress(s string) (Address, error) {
	var a Address
	return a, decodeFixedHex(s, a[:])
}

// MustHash is HexToHash for constants; it panics on bad input.
func MustHash(s string) Hash {
	h, err := HexToHash(s)
	if err != nil {
		panic(err)
	}
	return h
}

// MustAddress is HexToAddress for constants; it panics on bad input.
func MustAddress(s string) Address {
	a, err := HexToAddress(s)
	if err != nil {
		panic(err)
	}
	return a
}

func decodeFixedHex(s string, out []byte) error {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 2*len(out) {
		return errHexLength
	}
	_, err := hex.Decode(out, []byte(s))
	return err
}

// Hex returns the 0x-prefixed lower-case hex form.
func (h Hash) Hex() string { return "0x" + hex.EncodeToString(h[:]) }

// String implements fmt.Stringer.
func (h Hash) String() string { return h.Hex() }

// Bytes returns the hash as a slice.
func (h Hash) Bytes() []byte { return h[:] }

// IsZero reports whether every byte is zero.
func (h Hash) IsZero() bool {
	le := binary.LittleEndian
	return le.Uint64(h[0:])|le.Uint64(h[8:])|le.Uint64(h[16:])|le.Uint64(h[24:]) == 0
}

// SameHash is *a == *b in four word loads each: == on the arrays calls the
// runtime's general memory comparison, which showed as 3-5% of token
// contract runs, whose storage paths compare slot keys and values.
func SameHash(a, b *Hash) bool {
	le := binary.LittleEndian
	// ^ and | bind alike in Go: each difference needs its parentheses.
	return (le.Uint64(a[0:])^le.Uint64(b[0:]))|(le.Uint64(a[8:])^le.Uint64(b[8:]))|
		(le.Uint64(a[16:])^le.Uint64(b[16:]))|(le.Uint64(a[24:])^le.Uint64(b[24:])) == 0
}

// SameAddress is *a == *b, as SameHash. It reads bytes 0-3, 4-11 and
// 12-19: the compiler copies an address (into a call's arguments, say) as
// 16 bytes at 0 and 16 bytes at 4, and a word read across the two copies
// (bytes 0-7) cannot be forwarded from them, which stalled the read until
// the copies reached the cache — every getObject in a token contract's
// storage loop compares an address that was just copied.
func SameAddress(a, b *Address) bool {
	le := binary.LittleEndian
	return uint64(le.Uint32(a[0:])^le.Uint32(b[0:]))|(le.Uint64(a[4:])^le.Uint64(b[4:]))|
		(le.Uint64(a[12:])^le.Uint64(b[12:])) == 0
}

// Bytes returns the address as a slice.
func (a Address) Bytes() []byte { return a[:] }

// IsZero reports whether every byte is zero.
func (a Address) IsZero() bool { return a == Address{} }

// Log is an event emitted by a contract. The consensus fields are Address,
// Topics and Data; the rest is filled in when the log is looked up.
type Log struct {
	Address Address
	Topics  []Hash
	Data    []byte

	BlockNumber    uint64
	BlockHash      Hash
	BlockTimestamp uint64
	TxHash         Hash
	TxIndex        uint
	Index          uint // position in the block
	Removed        bool
}

// AccessTuple is one entry of an EIP-2930 access list.
type AccessTuple struct {
	Address     Address
	StorageKeys []Hash
}

// AccessList is an EIP-2930 access list.
type AccessList []AccessTuple

// StorageKeys counts the storage keys over all entries.
func (al AccessList) StorageKeys() int {
	n := 0
	for _, t := range al {
		n += len(t.StorageKeys)
	}
	return n
}
