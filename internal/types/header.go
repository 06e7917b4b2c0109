package types

import (
	"bytes"
	"encoding/hex"
	"errors"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// Well-known roots and hashes of empty structures.
var (
	// EmptyRootHash is the root of an empty trie: keccak256(rlp("")).
	EmptyRootHash = MustHash("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
	// EmptyUncleHash is keccak256(rlp([])), the uncle hash of every
	// proof-of-stake block.
	EmptyUncleHash = MustHash("0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347")
	// EmptyCodeHash is keccak256 of empty code.
	EmptyCodeHash = MustHash("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
	// EmptyRequestsHash is sha256 of nothing: the EIP-7685 requests hash of
	// a block without requests.
	EmptyRequestsHash = MustHash("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
)

// BlockNonce is the 8-byte proof-of-work nonce (always zero after the merge).
type BlockNonce [8]byte

// EncodeNonce returns n as a big-endian BlockNonce.
func EncodeNonce(n uint64) BlockNonce {
	var b BlockNonce
	for i := 7; i >= 0; i-- {
		b[i] = byte(n)
		n >>= 8
	}
	return b
}

// Uint64 returns the nonce as a number.
func (n BlockNonce) Uint64() uint64 {
	var x uint64
	for _, c := range n {
		x = x<<8 | uint64(c)
	}
	return x
}

// Hex returns the 0x-prefixed 16-digit hex form.
func (n BlockNonce) Hex() string { return "0x" + hex.EncodeToString(n[:]) }

// Header is a block header with every field up to Prague/Osaka. The fields
// added by later forks are pointers: nil means absent, and the RLP encoding
// stops at the last present one, exactly as Ethereum does.
type Header struct {
	ParentHash  Hash
	UncleHash   Hash
	Coinbase    Address
	Root        Hash
	TxHash      Hash
	ReceiptHash Hash
	Bloom       Bloom
	Difficulty  uint256.Int
	Number      uint64
	GasLimit    uint64
	GasUsed     uint64
	Time        uint64
	Extra       []byte
	MixDigest   Hash // prevRandao after the merge
	Nonce       BlockNonce

	BaseFee          *uint256.Int // London (EIP-1559)
	WithdrawalsHash  *Hash        // Shanghai (EIP-4895)
	BlobGasUsed      *uint64      // Cancun (EIP-4844)
	ExcessBlobGas    *uint64      // Cancun (EIP-4844)
	ParentBeaconRoot *Hash        // Cancun (EIP-4788)
	RequestsHash     *Hash        // Prague (EIP-7685)
}

// optionalCount returns how many of the optional trailing fields the
// encoding carries: up to the last non-nil one.
func (h *Header) optionalCount() int {
	switch {
	case h.RequestsHash != nil:
		return 6
	case h.ParentBeaconRoot != nil:
		return 5
	case h.ExcessBlobGas != nil:
		return 4
	case h.BlobGasUsed != nil:
		return 3
	case h.WithdrawalsHash != nil:
		return 2
	case h.BaseFee != nil:
		return 1
	}
	return 0
}

func (h *Header) contentSize() int {
	n := 5*hashSize + addressSize +
		3 + BloomLength + // bloom: 0xb9 0x01 0x00 + 256 bytes
		rlp.Uint256Size(&h.Difficulty) + rlp.Uint64Size(h.Number) + rlp.Uint64Size(h.GasLimit) +
		rlp.Uint64Size(h.GasUsed) + rlp.Uint64Size(h.Time) + rlp.StringSize(h.Extra) +
		hashSize + 9
	opt := h.optionalCount()
	if opt >= 1 {
		n += optU256Size(h.BaseFee)
	}
	if opt >= 2 {
		n += optHashSize(h.WithdrawalsHash)
	}
	if opt >= 3 {
		n += optU64Size(h.BlobGasUsed)
	}
	if opt >= 4 {
		n += optU64Size(h.ExcessBlobGas)
	}
	if opt >= 5 {
		n += optHashSize(h.ParentBeaconRoot)
	}
	if opt >= 6 {
		n += optHashSize(h.RequestsHash)
	}
	return n
}

// A nil optional field that precedes a present one is written as the
// empty string, as go-ethereum does; such headers do not occur on a real
// chain.
func optU256Size(x *uint256.Int) int {
	if x == nil {
		return 1
	}
	return rlp.Uint256Size(x)
}

func optHashSize(h *Hash) int {
	if h == nil {
		return 1
	}
	return hashSize
}

func optU64Size(x *uint64) int {
	if x == nil {
		return 1
	}
	return rlp.Uint64Size(*x)
}

// EncodedSize is the size of the header's RLP encoding.
func (h *Header) EncodedSize() int { return rlp.ListSize(h.contentSize()) }

// AppendRLP appends the RLP encoding of the header.
func (h *Header) AppendRLP(dst []byte) []byte {
	opt := h.optionalCount()
	dst = rlp.AppendListHeader(dst, h.contentSize())
	dst = appendHash(dst, &h.ParentHash)
	dst = appendHash(dst, &h.UncleHash)
	dst = appendAddress(dst, &h.Coinbase)
	dst = appendHash(dst, &h.Root)
	dst = appendHash(dst, &h.TxHash)
	dst = appendHash(dst, &h.ReceiptHash)
	dst = append(dst, 0xb9, 0x01, 0x00)
	dst = append(dst, h.Bloom[:]...)
	dst = rlp.AppendUint256(dst, &h.Difficulty)
	dst = rlp.AppendUint64(dst, h.Number)
	dst = rlp.AppendUint64(dst, h.GasLimit)
	dst = rlp.AppendUint64(dst, h.GasUsed)
	dst = rlp.AppendUint64(dst, h.Time)
	dst = rlp.AppendString(dst, h.Extra)
	dst = appendHash(dst, &h.MixDigest)
	dst = append(dst, 0x88)
	dst = append(dst, h.Nonce[:]...)
	if opt >= 1 {
		if h.BaseFee == nil {
			dst = append(dst, 0x80)
		} else {
			dst = rlp.AppendUint256(dst, h.BaseFee)
		}
	}
	if opt >= 2 {
		dst = appendOptHash(dst, h.WithdrawalsHash)
	}
	if opt >= 3 {
		dst = appendOptU64(dst, h.BlobGasUsed)
	}
	if opt >= 4 {
		dst = appendOptU64(dst, h.ExcessBlobGas)
	}
	if opt >= 5 {
		dst = appendOptHash(dst, h.ParentBeaconRoot)
	}
	if opt >= 6 {
		dst = appendOptHash(dst, h.RequestsHash)
	}
	return dst
}

func appendOptHash(dst []byte, h *Hash) []byte {
	if h == nil {
		return append(dst, 0x80)
	}
	return appendHash(dst, h)
}

func appendOptU64(dst []byte, x *uint64) []byte {
	if x == nil {
		return append(dst, 0x80)
	}
	return rlp.AppendUint64(dst, *x)
}

// EncodeRLP returns the RLP encoding of the header.
func (h *Header) EncodeRLP() []byte { return h.AppendRLP(make([]byte, 0, h.EncodedSize())) }

// DecodeRLP decodes a header from exactly one RLP item. The header does not
// alias b.
func (h *Header) DecodeRLP(b []byte) error {
	content, err := splitOneList(b)
	if err != nil {
		return decodeErr("header", err)
	}
	if err := h.decodeContent(content); err != nil {
		return err
	}
	h.Extra = bytes.Clone(h.Extra)
	return nil
}

// DecodeHeader decodes the RLP encoding of a header.
func DecodeHeader(b []byte) (*Header, error) {
	h := new(Header)
	if err := h.DecodeRLP(b); err != nil {
		return nil, err
	}
	return h, nil
}

// decodeContent decodes the content of a header list; Extra aliases it.
func (h *Header) decodeContent(content []byte) error {
	*h = Header{}
	d := decoder{b: content}
	d.hash(&h.ParentHash)
	d.hash(&h.UncleHash)
	d.address(&h.Coinbase)
	d.hash(&h.Root)
	d.hash(&h.TxHash)
	d.hash(&h.ReceiptHash)
	d.fixed(h.Bloom[:], ErrBloomLength)
	d.u256(&h.Difficulty)
	h.Number = d.uint64()
	h.GasLimit = d.uint64()
	h.GasUsed = d.uint64()
	h.Time = d.uint64()
	h.Extra = d.bytes()
	d.hash(&h.MixDigest)
	d.fixed(h.Nonce[:], ErrNonceLength)
	if d.more() {
		h.BaseFee = d.optU256()
	}
	if d.more() {
		h.WithdrawalsHash = new(Hash)
		d.hash(h.WithdrawalsHash)
	}
	if d.more() {
		x := d.uint64()
		h.BlobGasUsed = &x
	}
	if d.more() {
		x := d.uint64()
		h.ExcessBlobGas = &x
	}
	if d.more() {
		h.ParentBeaconRoot = new(Hash)
		d.hash(h.ParentBeaconRoot)
	}
	if d.more() {
		h.RequestsHash = new(Hash)
		d.hash(h.RequestsHash)
	}
	d.end()
	return decodeErr("header", d.err)
}

// Errors of header decoding beyond the generic ones.
var (
	ErrBloomLength = errors.New("types: bloom must be 256 bytes")
	ErrNonceLength = errors.New("types: block nonce must be 8 bytes")
)

// Hash returns the block hash: keccak256 of the header's RLP.
func (h *Header) Hash() Hash {
	var buf [768]byte
	enc := h.AppendRLP(buf[:0])
	return Hash(crypto.Keccak256(enc))
}

// Copy returns a deep copy of h.
func (h *Header) Copy() *Header {
	c := *h
	c.Extra = bytes.Clone(h.Extra)
	if h.BaseFee != nil {
		c.BaseFee = new(uint256.Int).Set(h.BaseFee)
	}
	c.WithdrawalsHash = copyPtr(h.WithdrawalsHash)
	c.BlobGasUsed = copyPtr(h.BlobGasUsed)
	c.ExcessBlobGas = copyPtr(h.ExcessBlobGas)
	c.ParentBeaconRoot = copyPtr(h.ParentBeaconRoot)
	c.RequestsHash = copyPtr(h.RequestsHash)
	return &c
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
