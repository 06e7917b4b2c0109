package protobuf

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Message is a struct type the codec can encode: its fields carry `pb`
// tags and ProtoName gives its fully-qualified proto name
// ("cosmos.bank.v1beta1.QueryBalanceRequest").
type Message interface {
	ProtoName() string
}

// Enum is a named int32 type that is a proto enum. EnumDescriptor gives
// the enum's fully-qualified name and its value names, indexed by number;
// an empty name is a number the enum leaves out (an enum whose values are
// not consecutive, such as cosmos.tx.signing.v1beta1.SignMode's 127 and
// 191).
type Enum interface {
	EnumDescriptor() (fullName string, names []string)
}

// Scalar is a type carried on the wire as a proto string whose text
// differs between the wire and JSON (Cosmos' decimals travel as the
// unscaled integer on the wire and with 18 fractional digits in JSON).
// Its pointer must implement ScalarParser.
type Scalar interface {
	ProtoText() string
	JSONText() string
}

// ScalarAppender is a Scalar that can append its texts without
// allocating; the codec uses it when present.
type ScalarAppender interface {
	AppendProtoText([]byte) []byte
	AppendJSONText([]byte) []byte
}

// scalarOf returns the Scalar in v, through its address when it has one
// so that no copy is boxed.
func scalarOf(v reflect.Value) Scalar {
	if v.CanAddr() {
		if s, ok := v.Addr().Interface().(Scalar); ok {
			return s
		}
	}
	return v.Interface().(Scalar)
}

// BytesScalar is a Scalar declared as proto bytes rather than string (the
// two travel alike; only descriptors tell them apart).
type BytesScalar interface {
	Scalar
	ScalarIsBytes()
}

// ScalarParser parses a Scalar's two text forms.
type ScalarParser interface {
	ParseProtoText(string) error
	ParseJSONText(string) error
}

// Any is a google.protobuf.Any. To encode, set Msg; decoding fills
// TypeURL and Value (the packed message's bytes).
type Any struct {
	Msg     Message
	TypeURL string
	Value   []byte
}

// URL is the Cosmos type URL of the packed message: "/" and its name.
func (a *Any) URL() string {
	if a.Msg != nil {
		return "/" + a.Msg.ProtoName()
	}
	return a.TypeURL
}

type kind uint8

const (
	kString kind = iota + 1
	kBytes
	kBool
	kInt32
	kInt64
	kUint32
	kUint64
	kEnum
	kScalar
	kTime
	kDuration
	kAny
	kMessage
)

// varintKind reports whether the kind travels as a varint (and so is
// packed when repeated).
func (k kind) varint() bool {
	switch k {
	case kBool, kInt32, kInt64, kUint32, kUint64, kEnum:
		return true
	}
	return false
}

type field struct {
	num      int
	name     string
	index    int
	kind     kind
	repeated bool
	ptr      bool         // presence: a nil pointer is absent
	typ      reflect.Type // the element type (after slice and pointer)

	enumNames []string // an enum's value names, by number
	jsonKey   string   // `"name":`, as the JSON form writes it
}

type msgInfo struct {
	typ    reflect.Type
	name   string
	fields []field
	byNum  map[int]int // field number -> index in fields
	byName map[string]int
}

var (
	typeMessage      = reflect.TypeFor[Message]()
	typeEnum         = reflect.TypeFor[Enum]()
	typeScalar       = reflect.TypeFor[Scalar]()
	typeScalarParser = reflect.TypeFor[ScalarParser]()
	typeTime         = reflect.TypeFor[time.Time]()
	typeDuration     = reflect.TypeFor[time.Duration]()
	typeAny          = reflect.TypeFor[Any]()
	typeBytes        = reflect.TypeFor[[]byte]()
)

var infos sync.Map // reflect.Type -> *msgInfo

// info describes the struct type t, compiling its tags once. A type with
// a tag the codec cannot serve panics: that is a programming error found
// by the first test that touches the type.
func info(t reflect.Type) *msgInfo {
	if mi, ok := infos.Load(t); ok {
		return mi.(*msgInfo)
	}
	mi := &msgInfo{typ: t, byNum: map[int]int{}, byName: map[string]int{}}
	if m, ok := reflect.New(t).Interface().(Message); ok {
		mi.name = m.ProtoName()
	} else if t != typeAny {
		panic(fmt.Sprintf("protobuf: %v does not implement Message", t))
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("pb")
		if !ok {
			continue
		}
		numText, name, _ := strings.Cut(tag, ",")
		num, err := strconv.Atoi(numText)
		if err != nil || num <= 0 || name == "" {
			panic(fmt.Sprintf("protobuf: %v.%s: bad tag %q", t, sf.Name, tag))
		}
		f := field{num: num, name: name, index: i, jsonKey: strconv.Quote(name) + ":"}
		ft := sf.Type
		if ft.Kind() == reflect.Slice && ft != typeBytes {
			f.repeated = true
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Pointer {
			f.ptr = true
			ft = ft.Elem()
		}
		f.typ = ft
		f.kind = kindOf(ft)
		if f.kind == 0 {
			panic(fmt.Sprintf("protobuf: %v.%s: no proto type for %v", t, sf.Name, sf.Type))
		}
		if f.kind == kEnum {
			_, f.enumNames = reflect.Zero(ft).Interface().(Enum).EnumDescriptor()
		}
		if f.repeated && f.ptr && f.kind != kMessage && f.kind != kAny {
			panic(fmt.Sprintf("protobuf: %v.%s: repeated pointers to scalars", t, sf.Name))
		}
		mi.byNum[num] = len(mi.fields)
		mi.byName[name] = len(mi.fields)
		mi.fields = append(mi.fields, f)
	}
	got, _ := infos.LoadOrStore(t, mi)
	return got.(*msgInfo)
}

func kindOf(t reflect.Type) kind {
	switch {
	case t == typeTime:
		return kTime
	case t == typeDuration:
		return kDuration
	case t == typeAny:
		return kAny
	case t.Implements(typeScalar) && reflect.PointerTo(t).Implements(typeScalarParser):
		return kScalar
	case t.Kind() == reflect.Int32 && t.Implements(typeEnum):
		return kEnum
	case t == typeBytes:
		return kBytes
	case t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(typeMessage):
		return kMessage
	}
	switch t.Kind() {
	case reflect.String:
		return kString
	case reflect.Bool:
		return kBool
	case reflect.Int32:
		return kInt32
	case reflect.Int64:
		return kInt64
	case reflect.Uint32:
		return kUint32
	case reflect.Uint64:
		return kUint64
	}
	return 0
}

// msgValue returns the struct behind m, which must be a pointer to a
// struct implementing Message or such a struct.
func msgValue(m Message) reflect.Value {
	v := reflect.ValueOf(m)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return v
}
