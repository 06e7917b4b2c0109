// Package protobuf is a small protocol-buffers codec for Go structs whose
// fields carry their proto field numbers and names in `pb` tags. One
// description of each message drives the binary wire form (gRPC), the
// proto3 JSON form as the Cosmos REST gateway renders it, the parsing of
// REST query parameters, and the descriptors that server reflection
// serves, so the four can never disagree about a field.
//
// A tag reads `pb:"N,name"`: field number N, proto field name name. The
// proto type follows from the Go type:
//
//	string, []byte, bool, int32, int64, uint32, uint64  the scalar of that name
//	a named int32 implementing Enum                     an enum
//	a type implementing Scalar                          a string on the wire with its own text forms
//	time.Time, time.Duration                            google.protobuf.Timestamp, Duration
//	Any                                                 google.protobuf.Any
//	a struct implementing Message, or a pointer to one  a sub-message (a nil pointer is absent)
//	a pointer to a scalar                               a field with presence (proto3 optional, oneof)
//	a slice of any of these                             repeated (scalars packed)
package protobuf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Wire types.
const (
	WireVarint  = 0
	WireFixed64 = 1
	WireBytes   = 2
	WireFixed32 = 5
)

// Decoding errors; each error Unmarshal returns wraps ErrMalformed.
var (
	ErrMalformed = errors.New("protobuf: malformed message")
)

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
}

// AppendVarint appends v as a base-128 varint.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendTag appends a field's key.
func AppendTag(b []byte, num int, wire int) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(wire))
}

// AppendBytes appends a length-delimited field.
func AppendBytes(b []byte, num int, v []byte) []byte {
	b = AppendTag(b, num, WireBytes)
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// ConsumeVarint reads a varint from the front of b, returning the value
// and the number of bytes read.
func ConsumeVarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, malformed("varint overflows 64 bits")
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	if len(b) >= 10 {
		return 0, 0, malformed("varint longer than 10 bytes")
	}
	return 0, 0, malformed("truncated varint")
}

// Field is one field read by Next.
type Field struct {
	Num   int
	Wire  int
	Value uint64 // varint, fixed32 and fixed64 payloads
	Bytes []byte // length-delimited payload (aliases the input)
}

// Next reads the field at the front of b and returns it with the rest of
// b. Groups (wire types 3 and 4) are refused: no message here has one.
func Next(b []byte) (Field, []byte, error) {
	key, n, err := ConsumeVarint(b)
	if err != nil {
		return Field{}, nil, err
	}
	b = b[n:]
	f := Field{Wire: int(key & 7)}
	if key>>3 == 0 || key>>3 > math.MaxInt32>>2 {
		return Field{}, nil, malformed("field number %d", key>>3)
	}
	f.Num = int(key >> 3)
	switch f.Wire {
	case WireVarint:
		f.Value, n, err = ConsumeVarint(b)
		if err != nil {
			return Field{}, nil, err
		}
		return f, b[n:], nil
	case WireFixed64:
		if len(b) < 8 {
			return Field{}, nil, malformed("truncated fixed64")
		}
		f.Value = binary.LittleEndian.Uint64(b)
		return f, b[8:], nil
	case WireFixed32:
		if len(b) < 4 {
			return Field{}, nil, malformed("truncated fixed32")
		}
		f.Value = uint64(binary.LittleEndian.Uint32(b))
		return f, b[4:], nil
	case WireBytes:
		l, n, err := ConsumeVarint(b)
		if err != nil {
			return Field{}, nil, err
		}
		b = b[n:]
		if l > uint64(len(b)) {
			return Field{}, nil, malformed("length %d past the end", l)
		}
		f.Bytes = b[:l]
		return f, b[l:], nil
	}
	return Field{}, nil, malformed("wire type %d", f.Wire)
}
