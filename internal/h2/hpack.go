package h2

import (
	"errors"
	"strings"
)

// HPACK (RFC 7541): the decoder reads header blocks in full (static and
// dynamic table, every representation, Huffman-coded strings); the
// encoder writes literals without indexing, naming from the static table
// where it can, which needs no state shared with the peer.

// HeaderField is one decoded header.
type HeaderField struct {
	Name, Value string
}

// size is the field's size in the dynamic table and in header list size
// accounting: its name and value and 32 bytes of overhead.
func (f HeaderField) size() uint32 { return uint32(len(f.Name) + len(f.Value) + 32) }

// staticTable is RFC 7541 Appendix A (index 1 is element 0).
var staticTable = [...]HeaderField{
	{":authority", ""}, {":method", "GET"}, {":method", "POST"}, {":path", "/"},
	{":path", "/index.html"}, {":scheme", "http"}, {":scheme", "https"}, {":status", "200"},
	{":status", "204"}, {":status", "206"}, {":status", "304"}, {":status", "400"},
	{":status", "404"}, {":status", "500"}, {"accept-charset", ""}, {"accept-encoding", "gzip, deflate"},
	{"accept-language", ""}, {"accept-ranges", ""}, {"accept", ""}, {"access-control-allow-origin", ""},
	{"age", ""}, {"allow", ""}, {"authorization", ""}, {"cache-control", ""},
	{"content-disposition", ""}, {"content-encoding", ""}, {"content-language", ""}, {"content-length", ""},
	{"content-location", ""}, {"content-range", ""}, {"content-type", ""}, {"cookie", ""},
	{"date", ""}, {"etag", ""}, {"expect", ""}, {"expires", ""},
	{"from", ""}, {"host", ""}, {"if-match", ""}, {"if-modified-since", ""},
	{"if-none-match", ""}, {"if-range", ""}, {"if-unmodified-since", ""}, {"last-modified", ""},
	{"link", ""}, {"location", ""}, {"max-forwards", ""}, {"proxy-authenticate", ""},
	{"proxy-authorization", ""}, {"range", ""}, {"referer", ""}, {"refresh", ""},
	{"retry-after", ""}, {"server", ""}, {"set-cookie", ""}, {"strict-transport-security", ""},
	{"transfer-encoding", ""}, {"user-agent", ""}, {"vary", ""}, {"via", ""},
	{"www-authenticate", ""},
}

// staticNames maps a name to its first static index, for the encoder.
var staticNames = func() map[string]int {
	m := map[string]int{}
	for i := len(staticTable) - 1; i >= 0; i-- {
		m[staticTable[i].Name] = i + 1
	}
	return m
}()

// errCompression is any malformed header block; the connection's
// decoding state is then lost, so it is a connection error.
func errCompression(reason string) error { return connErr(ErrCompression, "hpack: %s", reason) }

// Decoder decodes the header blocks of one connection, in order.
type Decoder struct {
	dyn     []HeaderField // oldest first
	size    uint32        // of dyn
	maxSize uint32        // the table size the encoder chose
	limit   uint32        // the most it may choose (our SETTINGS_HEADER_TABLE_SIZE)
	// MaxString bounds one decoded string (0: no bound).
	MaxString int
}

// NewDecoder returns a decoder whose dynamic table may grow to limit bytes.
func NewDecoder(limit uint32) *Decoder { return &Decoder{maxSize: limit, limit: limit} }

// Decode reads a complete header block, calling emit for each field in
// order. A block that breaks RFC 7541 is a *ConnError COMPRESSION_ERROR;
// an error from emit is returned as it is, after which the decoder must
// not be used again.
func (d *Decoder) Decode(block []byte, emit func(HeaderField) error) error {
	fieldSeen := false
	for len(block) > 0 {
		b := block[0]
		var f HeaderField
		var err error
		switch {
		case b&0x80 != 0: // indexed field
			var idx uint64
			if idx, block, err = readInt(block, 7); err != nil {
				return err
			}
			if f, err = d.at(idx); err != nil {
				return err
			}
		case b&0xc0 == 0x40: // literal with incremental indexing
			if f, block, err = d.literal(block, 6); err != nil {
				return err
			}
			d.add(f)
		case b&0xe0 == 0x20: // dynamic table size update
			if fieldSeen {
				return errCompression("table size update after a header field")
			}
			var n uint64
			if n, block, err = readInt(block, 5); err != nil {
				return err
			}
			if n > uint64(d.limit) {
				return errCompression("table size update over the limit")
			}
			d.maxSize = uint32(n)
			d.evict(0)
			continue
		default: // literal without indexing (0000) or never indexed (0001)
			if f, block, err = d.literal(block, 4); err != nil {
				return err
			}
		}
		fieldSeen = true
		if err := emit(f); err != nil {
			return err
		}
	}
	return nil
}

// at returns the field at a (1-based) index of the combined tables.
func (d *Decoder) at(idx uint64) (HeaderField, error) {
	if idx == 0 {
		return HeaderField{}, errCompression("index 0")
	}
	if idx <= uint64(len(staticTable)) {
		return staticTable[idx-1], nil
	}
	idx -= uint64(len(staticTable))
	if idx > uint64(len(d.dyn)) {
		return HeaderField{}, errCompression("index past the dynamic table")
	}
	return d.dyn[len(d.dyn)-int(idx)], nil
}

// literal reads a literal field whose name index has an n-bit prefix.
func (d *Decoder) literal(p []byte, n uint8) (HeaderField, []byte, error) {
	idx, p, err := readInt(p, n)
	if err != nil {
		return HeaderField{}, nil, err
	}
	var f HeaderField
	if idx > 0 {
		nf, err := d.at(idx)
		if err != nil {
			return f, nil, err
		}
		f.Name = nf.Name
	} else if f.Name, p, err = d.readString(p); err != nil {
		return f, nil, err
	}
	f.Value, p, err = d.readString(p)
	return f, p, err
}

// add inserts f at the head of the dynamic table, evicting the oldest
// entries to make room; a field larger than the table empties it.
func (d *Decoder) add(f HeaderField) {
	if f.size() > d.maxSize {
		d.dyn, d.size = d.dyn[:0], 0
		return
	}
	d.evict(f.size())
	d.dyn = append(d.dyn, f)
	d.size += f.size()
}

// evict drops the oldest entries until room more bytes fit.
func (d *Decoder) evict(room uint32) {
	n := 0
	for d.size+room > d.maxSize && n < len(d.dyn) {
		d.size -= d.dyn[n].size()
		n++
	}
	if n > 0 {
		d.dyn = append(d.dyn[:0], d.dyn[n:]...)
	}
}

// readInt reads an integer with an n-bit prefix (RFC 7541 §5.1). Values
// over 2^32 are refused: nothing in a header block needs them.
func readInt(p []byte, n uint8) (uint64, []byte, error) {
	if len(p) == 0 {
		return 0, nil, errCompression("truncated integer")
	}
	mask := uint64(1)<<n - 1
	v := uint64(p[0]) & mask
	p = p[1:]
	if v < mask {
		return v, p, nil
	}
	for shift := uint(0); ; shift += 7 {
		if len(p) == 0 {
			return 0, nil, errCompression("truncated integer")
		}
		b := p[0]
		p = p[1:]
		v += uint64(b&0x7f) << shift
		if v > 1<<32 {
			return 0, nil, errCompression("integer too large")
		}
		if b&0x80 == 0 {
			return v, p, nil
		}
	}
}

// readString reads a string literal, Huffman-coded or raw.
func (d *Decoder) readString(p []byte) (string, []byte, error) {
	if len(p) == 0 {
		return "", nil, errCompression("truncated string")
	}
	huff := p[0]&0x80 != 0
	n, p, err := readInt(p, 7)
	if err != nil {
		return "", nil, err
	}
	if n > uint64(len(p)) {
		return "", nil, errCompression("string past the end of the block")
	}
	raw := p[:n]
	p = p[n:]
	if !huff {
		if d.MaxString > 0 && len(raw) > d.MaxString {
			return "", nil, errStringTooLong
		}
		return string(raw), p, nil
	}
	s, err := huffmanDecode(raw)
	if err == nil && d.MaxString > 0 && len(s) > d.MaxString {
		err = errStringTooLong
	}
	return s, p, err
}

// errStringTooLong is a header string over Decoder.MaxString.
var errStringTooLong = errors.New("hpack: string too long")

// huffNode is a node of the decoding tree: each of the 256 entries is
// the next 8 bits read at this node, and holds either a child (the code
// goes on) or a symbol and how many of the 8 bits its code uses.
type huffNode struct {
	next [256]huffEntry
}

type huffEntry struct {
	child *huffNode
	sym   byte
	bits  uint8 // 0: no code starts with these bits here
}

var huffRoot = buildHuffTree()

func buildHuffTree() *huffNode {
	root := new(huffNode)
	for sym, c := range huffCode {
		n, code, bits := root, c.code, c.bits
		for bits > 8 {
			bits -= 8
			e := &n.next[byte(code>>bits)]
			if e.child == nil {
				e.child = new(huffNode)
			}
			n = e.child
		}
		shift := 8 - bits
		start := int(code<<shift) & 0xff
		for i := start; i < start+1<<shift; i++ {
			n.next[i] = huffEntry{sym: byte(sym), bits: bits}
		}
	}
	return root
}

// huffmanDecode decodes a Huffman-coded string. Padding must be under 8
// bits and a prefix of the end-of-string code (all ones); the
// end-of-string symbol itself may not appear.
func huffmanDecode(p []byte) (string, error) {
	var out strings.Builder
	out.Grow(len(p) * 8 / 5)
	var cur uint64
	var nbits uint8
	n := huffRoot
	for _, b := range p {
		cur = cur<<8 | uint64(b)
		nbits += 8
		for nbits >= 8 {
			e := n.next[byte(cur>>(nbits-8))]
			switch {
			case e.child != nil:
				n = e.child
				nbits -= 8
			case e.bits == 0:
				return "", errCompression("invalid Huffman code")
			default:
				out.WriteByte(e.sym)
				nbits -= e.bits
				n = huffRoot
			}
		}
	}
	for nbits > 0 {
		e := n.next[byte(cur<<(8-nbits))]
		if e.child != nil || e.bits == 0 || e.bits > nbits {
			break
		}
		out.WriteByte(e.sym)
		nbits -= e.bits
		n = huffRoot
	}
	if n != huffRoot {
		return "", errCompression("Huffman padding of 8 bits or more")
	}
	if mask := uint64(1)<<nbits - 1; cur&mask != mask {
		return "", errCompression("Huffman padding not all ones")
	}
	return out.String(), nil
}

// appendHuffman appends s Huffman-coded (used by tests and by strings
// that shrink with it).
func appendHuffman(dst []byte, s string) []byte {
	var cur uint64
	var nbits uint8
	for i := 0; i < len(s); i++ {
		c := huffCode[s[i]]
		cur = cur<<c.bits | uint64(c.code)
		nbits += c.bits
		for nbits >= 8 {
			nbits -= 8
			dst = append(dst, byte(cur>>nbits))
		}
	}
	if nbits > 0 {
		dst = append(dst, byte(cur<<(8-nbits))|byte(0xff>>nbits))
	}
	return dst
}

// appendInt appends v with an n-bit prefix; first holds the bits above
// the prefix.
func appendInt(dst []byte, first byte, n uint8, v uint64) []byte {
	mask := uint64(1)<<n - 1
	if v < mask {
		return append(dst, first|byte(v))
	}
	dst = append(dst, first|byte(mask))
	v -= mask
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func appendString(dst []byte, s string) []byte {
	dst = appendInt(dst, 0, 7, uint64(len(s)))
	return append(dst, s...)
}

// appendField encodes one field: a fully matching static entry by index,
// anything else as a literal without indexing, naming from the static
// table when the name is there. name must be lower case.
func appendField(dst []byte, name, value string) []byte {
	if i, ok := staticNames[name]; ok {
		for j := i; j <= len(staticTable) && staticTable[j-1].Name == name; j++ {
			if staticTable[j-1].Value == value {
				return appendInt(dst, 0x80, 7, uint64(j))
			}
		}
		return appendString(appendInt(dst, 0, 4, uint64(i)), value)
	}
	return appendString(appendString(append(dst, 0), name), value)
}
