package types

import (
	"fmt"

	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// This file holds the small encoding and decoding helpers every structure
// in the package is built from. Encoders are two-pass: a Size function that
// is exact, then an append into a buffer of that size, so each object is
// encoded with one allocation and no copying of nested lists.

const (
	addressSize = 21 // 0x94 + 20 bytes
	hashSize    = 33 // 0xa0 + 32 bytes
)

func appendAddress(dst []byte, a *Address) []byte {
	dst = append(dst, 0x80+20)
	return append(dst, a[:]...)
}

func appendHash(dst []byte, h *Hash) []byte {
	dst = append(dst, 0x80+32)
	return append(dst, h[:]...)
}

// optAddressSize is the size of an optional recipient: the empty string
// stands for contract creation.
func optAddressSize(a *Address) int {
	if a == nil {
		return 1
	}
	return addressSize
}

func appendOptAddress(dst []byte, a *Address) []byte {
	if a == nil {
		return append(dst, 0x80)
	}
	return appendAddress(dst, a)
}

func hashesSize(hs []Hash) int { return rlp.ListSize(len(hs) * hashSize) }

func appendHashes(dst []byte, hs []Hash) []byte {
	dst = rlp.AppendListHeader(dst, len(hs)*hashSize)
	for i := range hs {
		dst = appendHash(dst, &hs[i])
	}
	return dst
}

func accessTupleContentSize(t *AccessTuple) int {
	return addressSize + hashesSize(t.StorageKeys)
}

func accessListContentSize(al AccessList) int {
	n := 0
	for i := range al {
		n += rlp.ListSize(accessTupleContentSize(&al[i]))
	}
	return n
}

func accessListSize(al AccessList) int { return rlp.ListSize(accessListContentSize(al)) }

func appendAccessList(dst []byte, al AccessList) []byte {
	dst = rlp.AppendListHeader(dst, accessListContentSize(al))
	for i := range al {
		t := &al[i]
		dst = rlp.AppendListHeader(dst, accessTupleContentSize(t))
		dst = appendAddress(dst, &t.Address)
		dst = appendHashes(dst, t.StorageKeys)
	}
	return dst
}

// decoder reads the items of one RLP list content in order. The first
// error sticks; later reads are no-ops, so decoding code reads like the
// field list and checks the error once.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// more reports whether items remain and no error happened.
func (d *decoder) more() bool { return d.err == nil && len(d.b) > 0 }

// need is called before each mandatory item.
func (d *decoder) need() bool {
	if d.err != nil {
		return false
	}
	if len(d.b) == 0 {
		d.err = ErrTooFewFields
		return false
	}
	return true
}

func (d *decoder) uint64() uint64 {
	if !d.need() {
		return 0
	}
	x, rest, err := rlp.SplitUint64(d.b)
	if err != nil {
		d.fail(err)
		return 0
	}
	d.b = rest
	return x
}

func (d *decoder) uint8() uint8 {
	x := d.uint64()
	if x > 0xff {
		d.fail(rlp.ErrUintOverflow)
		return 0
	}
	return uint8(x)
}

func (d *decoder) u256(z *uint256.Int) {
	if !d.need() {
		return
	}
	rest, err := rlp.SplitUint256(d.b, z)
	if err != nil {
		d.fail(err)
		return
	}
	d.b = rest
}

// optU256 decodes an integer into a new value.
func (d *decoder) optU256() *uint256.Int {
	z := new(uint256.Int)
	d.u256(z)
	return z
}

func (d *decoder) bytes() []byte {
	if !d.need() {
		return nil
	}
	s, rest, err := rlp.SplitString(d.b)
	if err != nil {
		d.fail(err)
		return nil
	}
	d.b = rest
	return s
}

func (d *decoder) fixed(out []byte, lenErr error) {
	s := d.bytes()
	if d.err != nil {
		return
	}
	if len(s) != len(out) {
		d.fail(lenErr)
		return
	}
	copy(out, s)
}

func (d *decoder) address(a *Address) { d.fixed(a[:], ErrAddressLength) }
func (d *decoder) hash(h *Hash)       { d.fixed(h[:], ErrHashLength) }

// optAddress decodes a recipient: empty means none.
func (d *decoder) optAddress() *Address {
	s := d.bytes()
	if d.err != nil || len(s) == 0 {
		return nil
	}
	if len(s) != 20 {
		d.fail(ErrAddressLength)
		return nil
	}
	// Decoders work on private copies of their input that nothing
	// modifies, so the address may point into it (To() and Inner() hand
	// out copies).
	return (*Address)(s)
}

// list returns the content of a list item.
func (d *decoder) list() []byte {
	if !d.need() {
		return nil
	}
	c, rest, err := rlp.SplitList(d.b)
	if err != nil {
		d.fail(err)
		return nil
	}
	d.b = rest
	return c
}

func (d *decoder) hashes() []Hash {
	c := d.list()
	if d.err != nil || len(c) == 0 {
		return nil
	}
	// Every element is exactly 33 bytes when well-formed; a wrong guess
	// only costs a reallocation.
	hs := make([]Hash, 0, len(c)/hashSize)
	ld := decoder{b: c}
	for ld.more() {
		var h Hash
		ld.hash(&h)
		hs = append(hs, h)
	}
	d.fail(ld.err)
	return hs
}

func (d *decoder) accessList() AccessList {
	c := d.list()
	if d.err != nil {
		return nil
	}
	al := AccessList{}
	ld := decoder{b: c}
	for ld.more() {
		tc := ld.list()
		if ld.err != nil {
			break
		}
		td := decoder{b: tc}
		var t AccessTuple
		td.address(&t.Address)
		t.StorageKeys = td.hashes()
		if t.StorageKeys == nil {
			t.StorageKeys = []Hash{}
		}
		td.end()
		ld.fail(td.err)
		al = append(al, t)
	}
	d.fail(ld.err)
	return al
}

// end checks that the list held no further items.
func (d *decoder) end() {
	if d.err == nil && len(d.b) != 0 {
		d.err = ErrTooManyFields
	}
}

// decodeErr annotates a decoding error with what was being decoded while
// keeping it matchable with errors.Is.
func decodeErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("types: decode %s: %w", what, err)
}

// splitOneList returns the content of the single list item that must make
// up all of b.
func splitOneList(b []byte) ([]byte, error) {
	c, rest, err := rlp.SplitList(b)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, rlp.ErrTrailingBytes
	}
	return c, nil
}
