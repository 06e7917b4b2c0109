package protobuf

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
)

// MarshalJSON renders m as the Cosmos REST gateway does (proto3 JSON with
// the proto field names and every field emitted): 64-bit integers as
// strings, enums by name, bytes as standard base64 (nil as null), times
// as RFC 3339 in UTC, durations as seconds with "s", Any as an object
// with "@type" beside the packed message's fields, absent messages as
// null and empty lists as [].
func MarshalJSON(m Message) []byte {
	return appendJSONMessage(nil, msgValue(m))
}

func appendJSONMessage(b []byte, v reflect.Value) []byte {
	if v.Type() == typeAny {
		return appendJSONAny(b, v.Addr().Interface().(*Any))
	}
	b = append(b, '{')
	b = appendJSONFields(b, v)
	return append(b, '}')
}

func appendJSONFields(b []byte, v reflect.Value) []byte {
	mi := info(v.Type())
	for i := range mi.fields {
		f := &mi.fields[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f.jsonKey...)
		fv := v.Field(f.index)
		switch {
		case f.repeated:
			b = append(b, '[')
			for j := range fv.Len() {
				if j > 0 {
					b = append(b, ',')
				}
				ev := fv.Index(j)
				if f.ptr {
					if ev.IsNil() {
						b = append(b, "null"...)
						continue
					}
					ev = ev.Elem()
				}
				b = appendJSONValue(b, f, ev)
			}
			b = append(b, ']')
		case f.ptr:
			if fv.IsNil() {
				b = append(b, "null"...)
				continue
			}
			b = appendJSONValue(b, f, fv.Elem())
		default:
			b = appendJSONValue(b, f, fv)
		}
	}
	return b
}

func appendJSONValue(b []byte, f *field, v reflect.Value) []byte {
	switch f.kind {
	case kString:
		return appendJSONString(b, v.String())
	case kBytes:
		if v.IsNil() {
			return append(b, "null"...)
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes())
		return append(b, '"')
	case kScalar:
		if a, ok := scalarOf(v).(ScalarAppender); ok {
			b = append(b, '"')
			b = a.AppendJSONText(b)
			return append(b, '"')
		}
		return appendJSONString(b, scalarOf(v).JSONText())
	case kBool:
		return strconv.AppendBool(b, v.Bool())
	case kInt32:
		return strconv.AppendInt(b, v.Int(), 10)
	case kUint32:
		return strconv.AppendUint(b, v.Uint(), 10)
	case kInt64:
		b = append(b, '"')
		b = strconv.AppendInt(b, v.Int(), 10)
		return append(b, '"')
	case kUint64:
		b = append(b, '"')
		b = strconv.AppendUint(b, v.Uint(), 10)
		return append(b, '"')
	case kEnum:
		if n := v.Int(); n >= 0 && n < int64(len(f.enumNames)) && f.enumNames[n] != "" {
			return appendJSONString(b, f.enumNames[n])
		}
		return appendJSONString(b, strconv.FormatInt(v.Int(), 10))
	case kTime:
		return appendJSONString(b, FormatTimestamp(v.Interface().(time.Time)))
	case kDuration:
		return appendJSONString(b, FormatDuration(v.Interface().(time.Duration)))
	}
	return appendJSONMessage(b, v)
}

// EnumName is the name of value n of e's enum, or its number as text
// when the enum has no such value (as proto3 JSON renders unknown values).
func EnumName(e Enum, n int64) string {
	_, names := e.EnumDescriptor()
	if n >= 0 && n < int64(len(names)) && names[n] != "" {
		return names[n]
	}
	return strconv.FormatInt(n, 10)
}

// appendJSONString appends s as a JSON string, escaping what JSON
// requires and, as encoding/json does, the HTML-significant <, > and &
// and the line separators U+2028 and U+2029. Invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&15])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendJSONAny(b []byte, a *Any) []byte {
	if a.Msg == nil && a.TypeURL == "" {
		return append(b, "null"...)
	}
	b = append(b, `{"@type":`...)
	b = appendJSONString(b, a.URL())
	if a.Msg != nil {
		if v := msgValue(a.Msg); len(info(v.Type()).fields) > 0 {
			b = append(b, ',')
			b = appendJSONFields(b, v)
		}
	} else {
		// A packed message of a type the node does not know: its bytes.
		b = append(b, `,"value":"`...)
		b = base64.StdEncoding.AppendEncode(b, a.Value)
		b = append(b, '"')
	}
	return append(b, '}')
}

// FormatTimestamp writes t as proto3 JSON does: RFC 3339 in UTC with a
// fraction of 0, 3, 6 or 9 digits, whichever shows every non-zero digit.
func FormatTimestamp(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	ns := t.Nanosecond()
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += "." + strconv.Itoa(ns/1_000_000 + 1000)[1:]
	case ns%1000 == 0:
		s += "." + strconv.Itoa(ns/1000 + 1_000_000)[1:]
	default:
		s += "." + strconv.Itoa(ns + 1_000_000_000)[1:]
	}
	return s + "Z"
}

// FormatDuration writes d as proto3 JSON does: seconds, a fraction of 3, 6
// or 9 digits when not whole, and "s".
func FormatDuration(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	s := strconv.FormatInt(int64(d/time.Second), 10)
	ns := int(d % time.Second)
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += "." + strconv.Itoa(ns/1_000_000 + 1000)[1:]
	case ns%1000 == 0:
		s += "." + strconv.Itoa(ns/1000 + 1_000_000)[1:]
	default:
		s += "." + strconv.Itoa(ns + 1_000_000_000)[1:]
	}
	if neg {
		s = "-" + s
	}
	return s + "s"
}
