package protobuf

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// File is one .proto file as server reflection describes it: the
// messages, enums and services of one proto package.
type File struct {
	Name     string // "cosmos/bank/v1beta1/query.proto"
	Package  string // "cosmos.bank.v1beta1"
	Messages []Message
	Enums    []Enum
	Services []Service
}

// Service is a gRPC service of a File.
type Service struct {
	Name    string // unqualified ("Query"); the File's package qualifies it
	Methods []Method
}

// Method is one method of a Service.
type Method struct {
	Name            string
	In, Out         Message
	ClientStreaming bool
	ServerStreaming bool
}

// Registry holds the serialized descriptors of a set of files and knows
// which file defines each symbol, for server reflection.
type Registry struct {
	files   map[string][]byte   // file name -> FileDescriptorProto
	deps    map[string][]string // file name -> the files it imports
	symbols map[string]string   // fully-qualified symbol -> file name
	svcs    []string            // fully-qualified service names, sorted
}

// Well-known files every registry carries, for the types the codec maps
// from Go's time.Time, time.Duration and Any.
var wellKnown = []File{
	{Name: "google/protobuf/timestamp.proto", Package: "google.protobuf", Messages: []Message{wktTimestamp{}}},
	{Name: "google/protobuf/duration.proto", Package: "google.protobuf", Messages: []Message{wktDuration{}}},
	{Name: "google/protobuf/any.proto", Package: "google.protobuf", Messages: []Message{wktAny{}}},
}

type wktTimestamp struct {
	Seconds int64 `pb:"1,seconds"`
	Nanos   int32 `pb:"2,nanos"`
}

func (wktTimestamp) ProtoName() string { return "google.protobuf.Timestamp" }

type wktDuration struct {
	Seconds int64 `pb:"1,seconds"`
	Nanos   int32 `pb:"2,nanos"`
}

func (wktDuration) ProtoName() string { return "google.protobuf.Duration" }

type wktAny struct {
	TypeURL string `pb:"1,type_url"`
	Value   []byte `pb:"2,value"`
}

func (wktAny) ProtoName() string { return "google.protobuf.Any" }

// NewRegistry builds the descriptors of files (and the well-known files).
// Every message and enum a field refers to must be defined in one of
// them; a type defined twice or missing is a programming error and
// panics.
func NewRegistry(files ...File) *Registry {
	r := &Registry{files: map[string][]byte{}, deps: map[string][]string{}, symbols: map[string]string{}}
	all := append(slices.Clone(wellKnown), files...)
	define := func(sym, file string) {
		if prev, ok := r.symbols[sym]; ok {
			panic(fmt.Sprintf("protobuf: %s defined in %s and %s", sym, prev, file))
		}
		r.symbols[sym] = file
	}
	for _, f := range all {
		for _, m := range f.Messages {
			define(m.ProtoName(), f.Name)
		}
		for _, e := range f.Enums {
			name, _ := e.EnumDescriptor()
			define(name, f.Name)
		}
		for _, s := range f.Services {
			full := f.Package + "." + s.Name
			define(full, f.Name)
			r.svcs = append(r.svcs, full)
			for _, m := range s.Methods {
				define(full+"."+m.Name, f.Name)
			}
		}
	}
	slices.Sort(r.svcs)
	for _, f := range all {
		fd, deps := r.describe(f)
		r.files[f.Name] = Marshal(fd)
		r.deps[f.Name] = deps
	}
	return r
}

// Services lists the fully-qualified names of the registry's services.
func (r *Registry) Services() []string { return r.svcs }

// FileContaining names the file that defines a message, enum, service or
// method ("pkg.Service.Method"); false when none does.
func (r *Registry) FileContaining(symbol string) (string, bool) {
	f, ok := r.symbols[strings.TrimPrefix(symbol, ".")]
	return f, ok
}

// FileWithDeps returns the serialized descriptor of the named file and of
// every file it imports, directly or not, that is not in sent; it adds
// them all to sent. The file itself comes first. False when there is no
// such file.
func (r *Registry) FileWithDeps(name string, sent map[string]bool) ([][]byte, bool) {
	if _, ok := r.files[name]; !ok {
		return nil, false
	}
	var out [][]byte
	var walk func(n string, force bool)
	walk = func(n string, force bool) {
		if sent[n] && !force {
			return
		}
		sent[n] = true
		out = append(out, r.files[n])
		for _, d := range r.deps[n] {
			walk(d, false)
		}
	}
	walk(name, true)
	return out, true
}

func (r *Registry) describe(f File) (*FileDescriptorProto, []string) {
	fd := &FileDescriptorProto{Name: f.Name, Package: f.Package, Syntax: "proto3"}
	deps := map[string]bool{}
	ref := func(sym string) string {
		file, ok := r.symbols[sym]
		if !ok {
			panic(fmt.Sprintf("protobuf: %s (used in %s) is defined in no file", sym, f.Name))
		}
		if file != f.Name {
			deps[file] = true
		}
		return "." + sym
	}
	// A message named Outer.Inner is nested in Outer, which the same file
	// must define, as protoc describes nested messages.
	byName := map[string]*DescriptorProto{}
	for _, m := range f.Messages {
		if !strings.HasPrefix(m.ProtoName(), f.Package+".") {
			panic(fmt.Sprintf("protobuf: %s is not in package %s", m.ProtoName(), f.Package))
		}
		mi := info(msgValue(m).Type())
		local := m.ProtoName()[len(f.Package)+1:]
		dp := &DescriptorProto{Name: local[strings.LastIndexByte(local, '.')+1:]}
		for _, fl := range mi.fields {
			fdp := &FieldDescriptorProto{Name: fl.name, Number: int32(fl.num), Label: 1, JSONName: jsonName(fl.name)}
			if fl.repeated {
				fdp.Label = 3
			}
			fdp.Type, fdp.TypeName = r.fieldType(&fl, ref)
			dp.Field = append(dp.Field, fdp)
		}
		byName[local] = dp
	}
	for _, m := range f.Messages {
		local := m.ProtoName()[len(f.Package)+1:]
		i := strings.LastIndexByte(local, '.')
		if i < 0 {
			fd.MessageType = append(fd.MessageType, byName[local])
			continue
		}
		outer := byName[local[:i]]
		if outer == nil {
			panic(fmt.Sprintf("protobuf: %s is nested in %s.%s, which %s does not define", m.ProtoName(), f.Package, local[:i], f.Name))
		}
		outer.NestedType = append(outer.NestedType, byName[local])
	}
	for _, e := range f.Enums {
		name, values := e.EnumDescriptor()
		ed := &EnumDescriptorProto{Name: name[len(f.Package)+1:]}
		for i, v := range values {
			if v == "" {
				continue // a number the enum leaves out
			}
			num := int32(i)
			ed.Value = append(ed.Value, &EnumValueDescriptorProto{Name: v, Number: &num})
		}
		fd.EnumType = append(fd.EnumType, ed)
	}
	for _, s := range f.Services {
		sd := &ServiceDescriptorProto{Name: s.Name}
		for _, m := range s.Methods {
			sd.Method = append(sd.Method, &MethodDescriptorProto{
				Name: m.Name, InputType: ref(m.In.ProtoName()), OutputType: ref(m.Out.ProtoName()),
				ClientStreaming: m.ClientStreaming, ServerStreaming: m.ServerStreaming,
			})
		}
		fd.Service = append(fd.Service, sd)
	}
	for d := range deps {
		fd.Dependency = append(fd.Dependency, d)
	}
	slices.Sort(fd.Dependency)
	return fd, fd.Dependency
}

// Field types of descriptor.proto.
const (
	fdInt64   = 3
	fdUint64  = 4
	fdInt32   = 5
	fdBool    = 8
	fdString  = 9
	fdMessage = 11
	fdBytes   = 12
	fdUint32  = 13
	fdEnum    = 14
)

func (r *Registry) fieldType(f *field, ref func(string) string) (int32, string) {
	switch f.kind {
	case kScalar:
		if f.typ.Implements(reflect.TypeFor[BytesScalar]()) {
			return fdBytes, ""
		}
		return fdString, ""
	case kString:
		return fdString, ""
	case kBytes:
		return fdBytes, ""
	case kBool:
		return fdBool, ""
	case kInt32:
		return fdInt32, ""
	case kInt64:
		return fdInt64, ""
	case kUint32:
		return fdUint32, ""
	case kUint64:
		return fdUint64, ""
	case kEnum:
		name, _ := reflect.Zero(f.typ).Interface().(Enum).EnumDescriptor()
		return fdEnum, ref(name)
	case kTime:
		return fdMessage, ref(wktTimestamp{}.ProtoName())
	case kDuration:
		return fdMessage, ref(wktDuration{}.ProtoName())
	case kAny:
		return fdMessage, ref(wktAny{}.ProtoName())
	}
	return fdMessage, ref(reflect.New(f.typ).Interface().(Message).ProtoName())
}

// jsonName is protoc's default JSON name: lowerCamelCase of the field name.
func jsonName(s string) string {
	var b strings.Builder
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b.WriteByte(c)
	}
	return b.String()
}

// The messages of google/protobuf/descriptor.proto that describe a file,
// with the fields reflection clients read.

type FileDescriptorProto struct {
	Name        string                    `pb:"1,name"`
	Package     string                    `pb:"2,package"`
	Dependency  []string                  `pb:"3,dependency"`
	MessageType []*DescriptorProto        `pb:"4,message_type"`
	EnumType    []*EnumDescriptorProto    `pb:"5,enum_type"`
	Service     []*ServiceDescriptorProto `pb:"6,service"`
	Syntax      string                    `pb:"12,syntax"`
}

func (FileDescriptorProto) ProtoName() string { return "google.protobuf.FileDescriptorProto" }

type DescriptorProto struct {
	Name       string                  `pb:"1,name"`
	Field      []*FieldDescriptorProto `pb:"2,field"`
	NestedType []*DescriptorProto      `pb:"3,nested_type"`
}

func (DescriptorProto) ProtoName() string { return "google.protobuf.DescriptorProto" }

type FieldDescriptorProto struct {
	Name     string `pb:"1,name"`
	Number   int32  `pb:"3,number"`
	Label    int32  `pb:"4,label"`
	Type     int32  `pb:"5,type"`
	TypeName string `pb:"6,type_name"`
	JSONName string `pb:"10,json_name"`
}

func (FieldDescriptorProto) ProtoName() string { return "google.protobuf.FieldDescriptorProto" }

type EnumDescriptorProto struct {
	Name  string                      `pb:"1,name"`
	Value []*EnumValueDescriptorProto `pb:"2,value"`
}

func (EnumDescriptorProto) ProtoName() string { return "google.protobuf.EnumDescriptorProto" }

// Number is a pointer because descriptor.proto is proto2: a value
// numbered 0 must still carry its number.
type EnumValueDescriptorProto struct {
	Name   string `pb:"1,name"`
	Number *int32 `pb:"2,number"`
}

func (EnumValueDescriptorProto) ProtoName() string {
	return "google.protobuf.EnumValueDescriptorProto"
}

type ServiceDescriptorProto struct {
	Name   string                   `pb:"1,name"`
	Method []*MethodDescriptorProto `pb:"2,method"`
}

func (ServiceDescriptorProto) ProtoName() string { return "google.protobuf.ServiceDescriptorProto" }

type MethodDescriptorProto struct {
	Name            string `pb:"1,name"`
	InputType       string `pb:"2,input_type"`
	OutputType      string `pb:"3,output_type"`
	ClientStreaming bool   `pb:"5,client_streaming"`
	ServerStreaming bool   `pb:"6,server_streaming"`
}

func (MethodDescriptorProto) ProtoName() string { return "google.protobuf.MethodDescriptorProto" }
