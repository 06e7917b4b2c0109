package query_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// sdk050Omitted are the SDK's fields chaind leaves out of its messages on
// purpose, and why.
var sdk050Omitted = map[string]string{
	"tendermint.types.Evidence/2": "light_client_attack_evidence: chaind serves no light clients, so the only evidence it records is a double sign (duplicate_vote_evidence)",
}

// descriptor type numbers (google.protobuf.FieldDescriptorProto.Type) by
// the names .proto files use.
var protoTypes = map[int32]string{1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
	8: "bool", 9: "string", 11: "message", 12: "bytes", 13: "uint32", 14: "enum", 15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64"}

// Every method chaind serves of a Cosmos SDK v0.50 (or CometBFT v0.38)
// service is a method of it, with the same request and answer types and
// the same REST route, and every message those reach has, in chaind's
// descriptors (the ones reflection serves and the codec follows), exactly
// the SDK's fields: numbers, names, types, repetition. The SDK's side is
// testdata/sdk050/protos.json, read from the .proto files of those
// releases by internal/tools/sdkprotos.
func TestSDK050Definitions(t *testing.T) {
	var defs querytest.ProtoDefs
	path := filepath.Join(querytest.SDKGoldens("../.."), "protos.json")
	if ok, err := querytest.LoadSDK(path, &defs); !ok || err != nil {
		t.Fatalf("%s: %v (run internal/tools/sdkprotos)", path, err)
	}
	q := query.New(querytest.New(7).Backend())
	reg := protobuf.NewRegistry(q.Files()...)
	have := map[string]*protobuf.DescriptorProto{}
	sent := map[string]bool{}
	for _, f := range q.Files() {
		fds, _ := reg.FileWithDeps(f.Name, sent)
		for _, b := range fds {
			var fd protobuf.FileDescriptorProto
			if err := protobuf.Unmarshal(b, &fd); err != nil {
				t.Fatal(err)
			}
			var add func(prefix string, ms []*protobuf.DescriptorProto)
			add = func(prefix string, ms []*protobuf.DescriptorProto) {
				for _, m := range ms {
					have[prefix+"."+m.Name] = m
					add(prefix+"."+m.Name, m.NestedType) // ModeInfo.Single
				}
			}
			add(fd.Package, fd.MessageType)
		}
	}
	sdkServices := map[string]bool{}
	for full := range defs.Methods {
		sdkServices[full[:strings.Index(full, "/")]] = true
	}
	var queue []string
	served := 0
	for _, s := range q.Services() {
		if !sdkServices[s.Name] {
			t.Logf("%s: not a Cosmos SDK or CometBFT service; not compared", s.Name)
			continue
		}
		for _, m := range s.Methods {
			full := s.Name + "/" + m.Name
			sdk, ok := defs.Methods[full]
			if !ok {
				t.Errorf("%s: not a method of the SDK v0.50 service", full)
				continue
			}
			if in, out := m.In.ProtoName(), m.Out.ProtoName(); in != sdk.In || out != sdk.Out {
				t.Errorf("%s: (%s) returns (%s); the SDK's is (%s) returns (%s)", full, in, out, sdk.In, sdk.Out)
			}
			if m.Get != sdk.Get {
				t.Errorf("%s: REST route %q; the SDK's is %q", full, m.Get, sdk.Get)
			}
			queue = append(queue, sdk.In, sdk.Out)
			served++
		}
	}
	checked := map[string]bool{}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		fields, ok := defs.Messages[name]
		if checked[name] || !ok {
			continue // checked, or a well-known type
		}
		checked[name] = true
		ours := have[name]
		if ours == nil {
			t.Errorf("%s: chaind has no such message", name)
			continue
		}
		byNum := map[int32]*protobuf.FieldDescriptorProto{}
		for _, f := range ours.Field {
			byNum[f.Number] = f
		}
		for _, f := range fields {
			o := byNum[int32(f.Number)]
			if why := sdk050Omitted[fmt.Sprintf("%s/%d", name, f.Number)]; why != "" && o == nil {
				t.Logf("%s: field %d left out: %s", name, f.Number, why)
				continue
			}
			if f.Type == "message" {
				queue = append(queue, f.TypeName)
			}
			if o == nil {
				t.Errorf("%s: field %d %s (%s %s) is missing", name, f.Number, f.Name, f.Type, f.TypeName)
				continue
			}
			delete(byNum, int32(f.Number))
			typ, tn := protoTypes[o.Type], strings.TrimPrefix(o.TypeName, ".")
			if o.Name != f.Name || typ != f.Type || tn != f.TypeName || (o.Label == 3) != f.Repeated {
				t.Errorf("%s: field %d is %s %s %s repeated=%v; the SDK's is %s %s %s repeated=%v",
					name, f.Number, o.Name, typ, tn, o.Label == 3, f.Name, f.Type, f.TypeName, f.Repeated)
			}
		}
		for n, o := range byNum {
			t.Errorf("%s: field %d %s is not in the SDK's message", name, n, o.Name)
		}
	}
	t.Logf("%d served methods and the %d messages they reach compared with the SDK's definitions", served, len(checked))
}
