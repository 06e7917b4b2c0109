package flat

import (
	"encoding/binary"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// record is one move of the copy: from one state root to another, made by
// a block (hash, num) or by a state committed outside a block (zero hash).
// fwd is what the move writes (nil in a journal record: the copy holds
// it); rev, once the move is made, what it replaced (nil for a side
// block's record, never applied).
type record struct {
	from, to types.Hash
	num      uint64
	hash     types.Hash
	fwd      *state.Diff
	rev      *layer
}

// Entry kinds of an encoded diff.
const (
	entryAccount byte = 'a'
	entrySlot    byte = 's'
	entryWipe    byte = 'w'
)

// encode writes from, to, num, hash, then the forward entries and the
// reverse ones, each list led by its length (a nil fwd or rev is an empty
// list). A value of length 0 is a deletion: no account or slot encodes to
// nothing. The buffer is sized exactly first: a block's record is its
// whole diff, and growing it by doubling would copy it several times.
func (r *record) encode() []byte {
	var fwd state.Diff
	if r.fwd != nil {
		fwd = *r.fwd
	}
	var rev layer
	if r.rev != nil {
		rev.accounts, rev.slots = r.rev.accounts, r.rev.slots
	}
	n, size := len(fwd.Accounts)+len(fwd.Wiped), 104+2*binary.MaxVarintLen64+33*len(fwd.Wiped)
	for _, v := range fwd.Accounts {
		size += 33 + valueSize(v)
	}
	for _, m := range fwd.Storage {
		n += len(m)
		for _, v := range m {
			size += 65 + valueSize(v)
		}
	}
	for _, v := range rev.accounts {
		size += 33 + valueSize(v)
	}
	for _, v := range rev.slots {
		size += 65 + valueSize(v)
	}
	out := make([]byte, 0, size)
	out = append(out, r.from[:]...)
	out = append(out, r.to[:]...)
	out = binary.BigEndian.AppendUint64(out, r.num)
	out = append(out, r.hash[:]...)
	out = binary.AppendUvarint(out, uint64(n))
	for ah := range fwd.Wiped {
		out = append(append(out, entryWipe), ah[:]...)
	}
	for ah, v := range fwd.Accounts {
		out = appendValue(append(append(out, entryAccount), ah[:]...), v)
	}
	for ah, m := range fwd.Storage {
		for sh, v := range m {
			out = appendValue(append(append(append(out, entrySlot), ah[:]...), sh[:]...), v)
		}
	}
	out = binary.AppendUvarint(out, uint64(len(rev.accounts)+len(rev.slots)))
	for ah, v := range rev.accounts {
		out = appendValue(append(append(out, entryAccount), ah[:]...), v)
	}
	for k, v := range rev.slots {
		out = appendValue(append(append(out, entrySlot), k[:]...), v)
	}
	return out
}

// valueSize is the encoded size of a length-prefixed value.
func valueSize(v []byte) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], uint64(len(v)))) + len(v)
}

func appendValue(out, v []byte) []byte {
	return append(binary.AppendUvarint(out, uint64(len(v))), v...)
}

// decodeRecord parses what encode wrote.
func decodeRecord(b []byte) (*record, error) {
	if len(b) < 104 {
		return nil, fmt.Errorf("%w: %d bytes", ErrCorrupt, len(b))
	}
	r := &record{from: types.Hash(b[:32]), to: types.Hash(b[32:64]), num: binary.BigEndian.Uint64(b[64:]), hash: types.Hash(b[72:104])}
	d := &dec{b: b[104:]}
	r.fwd = &state.Diff{Accounts: map[types.Hash][]byte{}, Wiped: map[types.Hash]struct{}{}, Storage: map[types.Hash]map[types.Hash][]byte{}}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		switch kind := d.byte(); kind {
		case entryWipe:
			r.fwd.Wiped[d.hash()] = struct{}{}
		case entryAccount:
			ah := d.hash()
			r.fwd.Accounts[ah] = d.value()
		case entrySlot:
			ah, sh := d.hash(), d.hash()
			m := r.fwd.Storage[ah]
			if m == nil {
				m = map[types.Hash][]byte{}
				r.fwd.Storage[ah] = m
			}
			m[sh] = d.value()
		default:
			d.fail("entry kind %d", kind)
		}
	}
	if n := d.count(); n > 0 {
		r.rev = newLayer()
		for ; n > 0 && d.err == nil; n-- {
			switch kind := d.byte(); kind {
			case entryAccount:
				ah := d.hash()
				r.rev.accounts[ah] = d.value()
			case entrySlot:
				var k [64]byte
				ah, sh := d.hash(), d.hash()
				copy(k[:], ah[:])
				copy(k[32:], sh[:])
				r.rev.slots[k] = d.value()
			default:
				d.fail("reverse entry kind %d", kind)
			}
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}

// layer returns the record's reverse diff as a journal layer (an empty one
// for a move that replaced nothing).
func (r *record) layer() *layer {
	lay := r.rev
	if lay == nil {
		lay = newLayer()
	}
	lay.from, lay.to, lay.num, lay.hash = r.from, r.to, r.num, r.hash
	return lay
}

func newLayer() *layer {
	return &layer{accounts: map[types.Hash][]byte{}, slots: map[[64]byte][]byte{}}
}

// dec reads an encoded record; the first error sticks.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
	d.b = nil
}

func (d *dec) byte() byte {
	if len(d.b) < 1 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *dec) hash() (h types.Hash) {
	if len(d.b) < 32 {
		d.fail("truncated")
		return h
	}
	copy(h[:], d.b)
	d.b = d.b[32:]
	return h
}

func (d *dec) count() uint64 {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)) {
		d.fail("bad count")
		return 0
	}
	d.b = d.b[k:]
	return n
}

// value returns a length-prefixed value; nil for length 0 (a deletion).
func (d *dec) value() []byte {
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > uint64(len(d.b)-k) {
		d.fail("bad value length")
		return nil
	}
	if n == 0 {
		d.b = d.b[k:]
		return nil
	}
	v := append([]byte(nil), d.b[k:k+int(n)]...)
	d.b = d.b[k+int(n):]
	return v
}
