package protobuf

import (
	"fmt"
	"reflect"
	"time"
	"unicode/utf8"
)

// Marshal encodes m in the proto3 binary form: fields in number order of
// their declaration, zero scalars omitted, nil pointers omitted, repeated
// numbers packed.
func Marshal(m Message) []byte {
	return appendMessage(nil, msgValue(m))
}

func appendMessage(b []byte, v reflect.Value) []byte {
	if v.Type() == typeAny {
		return appendAny(b, v.Addr().Interface().(*Any))
	}
	mi := info(v.Type())
	for i := range mi.fields {
		f := &mi.fields[i]
		fv := v.Field(f.index)
		if f.repeated {
			b = appendRepeated(b, f, fv)
			continue
		}
		if f.ptr {
			if fv.IsNil() {
				continue
			}
			b = appendValue(b, f, fv.Elem(), true)
			continue
		}
		b = appendValue(b, f, fv, false)
	}
	return b
}

func appendRepeated(b []byte, f *field, sv reflect.Value) []byte {
	n := sv.Len()
	if n == 0 {
		return b
	}
	if f.kind.varint() {
		var packed []byte
		for i := range n {
			packed = AppendVarint(packed, varintOf(f.kind, sv.Index(i)))
		}
		return AppendBytes(b, f.num, packed)
	}
	for i := range n {
		ev := sv.Index(i)
		if f.ptr {
			if ev.IsNil() {
				ev = reflect.New(f.typ)
			}
			ev = ev.Elem()
		}
		b = appendValue(b, f, ev, true)
	}
	return b
}

func varintOf(k kind, v reflect.Value) uint64 {
	switch k {
	case kBool:
		if v.Bool() {
			return 1
		}
		return 0
	case kInt32, kInt64, kEnum:
		return uint64(v.Int()) // negative numbers sign-extend to ten bytes
	}
	return v.Uint()
}

// appendValue writes one field value; force writes it even when it is the
// zero value (a repeated element or a field with presence).
func appendValue(b []byte, f *field, v reflect.Value, force bool) []byte {
	switch f.kind {
	case kString:
		if s := v.String(); s != "" || force {
			b = AppendTag(b, f.num, WireBytes)
			b = AppendVarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	case kBytes:
		if v.Len() > 0 || force {
			b = AppendBytes(b, f.num, v.Bytes())
		}
	case kScalar:
		sc := scalarOf(v)
		if a, ok := sc.(ScalarAppender); ok {
			b = appendScalar(b, f.num, a, force)
			break
		}
		if s := sc.ProtoText(); s != "" || force {
			b = AppendTag(b, f.num, WireBytes)
			b = AppendVarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	case kBool, kInt32, kInt64, kUint32, kUint64, kEnum:
		if x := varintOf(f.kind, v); x != 0 || force {
			b = AppendTag(b, f.num, WireVarint)
			b = AppendVarint(b, x)
		}
	case kTime:
		b = AppendBytes(b, f.num, appendTimestamp(nil, v.Interface().(time.Time)))
	case kDuration:
		b = AppendBytes(b, f.num, appendDuration(nil, v.Interface().(time.Duration)))
	case kMessage, kAny:
		b = AppendBytes(b, f.num, appendMessage(nil, v))
	}
	return b
}

// appendScalar writes the text of a straight after a one-byte length
// slot, widening the slot in the rare case the text is 128 bytes or more,
// so the text is never built apart.
func appendScalar(b []byte, num int, a ScalarAppender, force bool) []byte {
	tagAt := len(b)
	b = AppendTag(b, num, WireBytes)
	lenAt := len(b)
	b = append(b, 0)
	b = a.AppendProtoText(b)
	n := len(b) - lenAt - 1
	switch {
	case n == 0 && !force:
		return b[:tagAt]
	case n < 0x80:
		b[lenAt] = byte(n)
	default:
		var tmp [10]byte
		l := AppendVarint(tmp[:0], uint64(n))
		b = append(b, l[1:]...)
		copy(b[lenAt+len(l):], b[lenAt+1:lenAt+1+n])
		copy(b[lenAt:], l)
	}
	return b
}

func appendTimestamp(b []byte, t time.Time) []byte {
	if s := t.Unix(); s != 0 {
		b = AppendTag(b, 1, WireVarint)
		b = AppendVarint(b, uint64(s))
	}
	if n := t.Nanosecond(); n != 0 {
		b = AppendTag(b, 2, WireVarint)
		b = AppendVarint(b, uint64(n))
	}
	return b
}

func appendDuration(b []byte, d time.Duration) []byte {
	s, n := int64(d/time.Second), int32(d%time.Second)
	if s != 0 {
		b = AppendTag(b, 1, WireVarint)
		b = AppendVarint(b, uint64(s))
	}
	if n != 0 {
		b = AppendTag(b, 2, WireVarint)
		b = AppendVarint(b, uint64(int64(n)))
	}
	return b
}

func appendAny(b []byte, a *Any) []byte {
	if url := a.URL(); url != "" {
		b = AppendBytes(b, 1, []byte(url))
	}
	val := a.Value
	if a.Msg != nil {
		val = Marshal(a.Msg)
	}
	if len(val) > 0 {
		b = AppendBytes(b, 2, val)
	}
	return b
}

// maxDepth bounds the nesting of messages Unmarshal follows, so a hostile
// input cannot exhaust the stack.
const maxDepth = 64

// Unmarshal decodes b into m, which must be a pointer to a message.
// Unknown fields are skipped (clients may be newer than the node); a
// known field of the wrong wire type, invalid UTF-8 in a string, or a
// truncated input is an error wrapping ErrMalformed.
func Unmarshal(b []byte, m Message) error {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("protobuf: Unmarshal into %T", m)
	}
	return decodeMessage(b, v.Elem(), 0)
}

func decodeMessage(b []byte, v reflect.Value, depth int) error {
	if depth > maxDepth {
		return malformed("nested deeper than %d", maxDepth)
	}
	if v.Type() == typeAny {
		return decodeAny(b, v.Addr().Interface().(*Any))
	}
	mi := info(v.Type())
	for len(b) > 0 {
		fd, rest, err := Next(b)
		if err != nil {
			return err
		}
		b = rest
		i, ok := mi.byNum[fd.Num]
		if !ok {
			continue
		}
		f := &mi.fields[i]
		fv := v.Field(f.index)
		if f.repeated && f.kind.varint() && fd.Wire == WireBytes {
			if err := decodePacked(fd.Bytes, f, fv); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			continue
		}
		var dst reflect.Value
		switch {
		case f.repeated:
			elem := reflect.New(f.typ).Elem()
			if err := decodeValue(fd, f, elem, depth); err != nil {
				return err
			}
			if f.ptr {
				elem = elem.Addr()
			}
			fv.Set(reflect.Append(fv, elem))
			continue
		case f.ptr:
			if fv.IsNil() {
				fv.Set(reflect.New(f.typ))
			}
			dst = fv.Elem()
		default:
			dst = fv
		}
		if err := decodeValue(fd, f, dst, depth); err != nil {
			return err
		}
	}
	return nil
}

func decodePacked(b []byte, f *field, sv reflect.Value) error {
	for len(b) > 0 {
		x, n, err := ConsumeVarint(b)
		if err != nil {
			return err
		}
		b = b[n:]
		elem := reflect.New(f.typ).Elem()
		setVarint(f.kind, elem, x)
		sv.Set(reflect.Append(sv, elem))
	}
	return nil
}

func setVarint(k kind, v reflect.Value, x uint64) {
	switch k {
	case kBool:
		v.SetBool(x != 0)
	case kInt32, kEnum:
		v.SetInt(int64(int32(x)))
	case kInt64:
		v.SetInt(int64(x))
	case kUint32:
		v.SetUint(uint64(uint32(x)))
	default:
		v.SetUint(x)
	}
}

func wantWire(fd Field, f *field, w int) error {
	if fd.Wire != w {
		return malformed("field %s (%d): wire type %d, want %d", f.name, f.num, fd.Wire, w)
	}
	return nil
}

func decodeValue(fd Field, f *field, v reflect.Value, depth int) error {
	if f.kind.varint() {
		if err := wantWire(fd, f, WireVarint); err != nil {
			return err
		}
		setVarint(f.kind, v, fd.Value)
		return nil
	}
	if err := wantWire(fd, f, WireBytes); err != nil {
		return err
	}
	switch f.kind {
	case kString:
		if !utf8.Valid(fd.Bytes) {
			return malformed("field %s: invalid UTF-8", f.name)
		}
		v.SetString(string(fd.Bytes))
	case kBytes:
		v.SetBytes(append([]byte{}, fd.Bytes...))
	case kScalar:
		if !utf8.Valid(fd.Bytes) {
			return malformed("field %s: invalid UTF-8", f.name)
		}
		if err := v.Addr().Interface().(ScalarParser).ParseProtoText(string(fd.Bytes)); err != nil {
			return malformed("field %s: %v", f.name, err)
		}
	case kTime:
		s, n, err := decodeSecondsNanos(fd.Bytes)
		if err != nil {
			return err
		}
		if n < 0 || n > 999_999_999 {
			return malformed("field %s: nanos %d", f.name, n)
		}
		v.Set(reflect.ValueOf(time.Unix(s, int64(n)).UTC()))
	case kDuration:
		s, n, err := decodeSecondsNanos(fd.Bytes)
		if err != nil {
			return err
		}
		if s > int64(1<<63-1)/int64(time.Second) || s < -int64(1<<63-1)/int64(time.Second) || n > 999_999_999 || n < -999_999_999 {
			return malformed("field %s: duration out of range", f.name)
		}
		v.SetInt(s*int64(time.Second) + int64(n))
	case kMessage, kAny:
		return decodeMessage(fd.Bytes, v, depth+1)
	}
	return nil
}

func decodeSecondsNanos(b []byte) (int64, int32, error) {
	var s int64
	var n int32
	for len(b) > 0 {
		fd, rest, err := Next(b)
		if err != nil {
			return 0, 0, err
		}
		b = rest
		if fd.Wire != WireVarint {
			continue
		}
		switch fd.Num {
		case 1:
			s = int64(fd.Value)
		case 2:
			n = int32(fd.Value)
		}
	}
	return s, n, nil
}

func decodeAny(b []byte, a *Any) error {
	for len(b) > 0 {
		fd, rest, err := Next(b)
		if err != nil {
			return err
		}
		b = rest
		if fd.Wire != WireBytes {
			continue
		}
		switch fd.Num {
		case 1:
			if !utf8.Valid(fd.Bytes) {
				return malformed("Any.type_url: invalid UTF-8")
			}
			a.TypeURL = string(fd.Bytes)
		case 2:
			a.Value = append([]byte{}, fd.Bytes...)
		}
	}
	return nil
}
