package protobuf

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// ErrUnknownField is returned by SetField for a name the message does not
// have; the REST gateway ignores such query parameters.
var ErrUnknownField = errors.New("protobuf: unknown field")

// SetField sets the field named by a dotted path of proto field names
// ("pagination.limit") in the message m points to, parsing text as a REST
// query or path parameter: numbers in decimal, bools as true/false,
// enums by name or number, bytes as standard or URL-safe base64. A
// repeated field gets text appended. Errors other than ErrUnknownField
// say what did not parse.
func SetField(m Message, path, text string) error {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("protobuf: SetField on %T", m)
	}
	v = v.Elem()
	names := strings.Split(path, ".")
	for i, name := range names {
		if v.Type() == typeAny {
			return fmt.Errorf("%w: %s", ErrUnknownField, path)
		}
		mi := info(v.Type())
		j, ok := mi.byName[name]
		if !ok {
			return fmt.Errorf("%w: %s", ErrUnknownField, path)
		}
		f := &mi.fields[j]
		fv := v.Field(f.index)
		last := i == len(names)-1
		if f.repeated {
			if !last || f.kind == kMessage || f.kind == kAny {
				return fmt.Errorf("%w: %s", ErrUnknownField, path)
			}
			elem := reflect.New(f.typ).Elem()
			if err := parseText(f, elem, text); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			fv.Set(reflect.Append(fv, elem))
			return nil
		}
		if f.ptr {
			if fv.IsNil() {
				fv.Set(reflect.New(f.typ))
			}
			fv = fv.Elem()
		}
		if last {
			if f.kind == kMessage || f.kind == kAny {
				return fmt.Errorf("%s: a message cannot be set from text", path)
			}
			if err := parseText(f, fv, text); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return nil
		}
		if f.kind != kMessage {
			return fmt.Errorf("%w: %s", ErrUnknownField, path)
		}
		v = fv
	}
	return nil
}

func parseText(f *field, v reflect.Value, text string) error {
	switch f.kind {
	case kString:
		v.SetString(text)
	case kBytes:
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			b, err = base64.URLEncoding.DecodeString(text)
		}
		if err != nil {
			b, err = base64.RawURLEncoding.DecodeString(text)
		}
		if err != nil {
			return errors.New("not base64")
		}
		v.SetBytes(b)
	case kScalar:
		return v.Addr().Interface().(ScalarParser).ParseJSONText(text)
	case kBool:
		x, err := strconv.ParseBool(text)
		if err != nil {
			return errors.New("not a bool")
		}
		v.SetBool(x)
	case kInt32:
		x, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			return errors.New("not a 32-bit integer")
		}
		v.SetInt(x)
	case kInt64:
		x, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return errors.New("not a 64-bit integer")
		}
		v.SetInt(x)
	case kUint32:
		x, err := strconv.ParseUint(text, 10, 32)
		if err != nil {
			return errors.New("not an unsigned 32-bit integer")
		}
		v.SetUint(x)
	case kUint64:
		x, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return errors.New("not an unsigned 64-bit integer")
		}
		v.SetUint(x)
	case kEnum:
		full, names := reflect.Zero(f.typ).Interface().(Enum).EnumDescriptor()
		for i, n := range names {
			if n != "" && n == text {
				v.SetInt(int64(i))
				return nil
			}
		}
		x, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			return fmt.Errorf("%q is not a value of %s", text, full)
		}
		v.SetInt(x)
	case kTime:
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return errors.New("not an RFC 3339 time")
		}
		v.Set(reflect.ValueOf(t.UTC()))
	case kDuration:
		s, ok := strings.CutSuffix(text, "s")
		if !ok {
			return errors.New(`a duration ends in "s"`)
		}
		d, err := time.ParseDuration(s + "s")
		if err != nil {
			return errors.New("not a duration")
		}
		v.SetInt(int64(d))
	}
	return nil
}
