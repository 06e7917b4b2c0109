// Command sdkprotos writes testdata/sdk050/protos.json: the definitions
// the Cosmos SDK v0.50 (and CometBFT v0.38, for tendermint.*) give their
// query services and every message those reach, read from
// the .proto files those releases ship in their Go modules. The tests of
// internal/query compare chaind's own descriptors with it, field by
// field, and its REST routes with the SDK's HTTP bindings.
//
// It stands in for answers recorded from a running simd, which cannot be
// built where the Go module proxy refuses the SDK's cosmossdk.io modules
// (simapp, store, api, x/tx: "403 Forbidden, This module version is not
// available"), while the cosmos-sdk and cometbft modules, .proto files
// included, download. Run it again when chaind serves more:
//
//	go mod download github.com/cosmos/cosmos-sdk@v0.50.15 github.com/cometbft/cometbft@v0.38.26
//	go run ./internal/tools/sdkprotos -sdk $(go env GOMODCACHE)/github.com/cosmos/cosmos-sdk@v0.50.15/proto \
//	    -comet $(go env GOMODCACHE)/github.com/cometbft/cometbft@v0.38.26/proto
//
// The reader understands the subset of the proto3 language those files
// use: packages, messages (nested), enums, fields with options, oneofs,
// maps, services with google.api.http GET bindings.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/query/querytest"
)

var (
	sdkRoot   = flag.String("sdk", "", "the proto directory of the Cosmos SDK module")
	cometRoot = flag.String("comet", "", "the proto directory of the CometBFT module")
	out       = flag.String("out", "testdata/sdk050/protos.json", "the file written")
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *sdkRoot == "" {
		log.Fatal("sdkprotos: -sdk is needed")
	}
	defs := &querytest.ProtoDefs{Messages: map[string][]querytest.ProtoField{}, Methods: map[string]querytest.ProtoMethod{}}
	var files []*file
	for _, root := range []string{*sdkRoot, *cometRoot} {
		if root == "" {
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".proto") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f, err := parse(string(src))
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			files = append(files, f)
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	enums, msgs := map[string]bool{}, map[string]*message{}
	for _, f := range files {
		for _, e := range f.enums {
			enums[e] = true
		}
		for _, m := range f.messages {
			msgs[m.full] = m
		}
	}
	// The roots: the request and answer of every query method of the
	// SDK's and CometBFT's read services (a service named Query or
	// Service), so a query chaind adds later is already covered.
	var queue []string
	for _, f := range files {
		for _, r := range f.rpcs {
			svc := r.full[:strings.Index(r.full, "/")]
			if !strings.HasSuffix(svc, ".Query") && !strings.HasSuffix(svc, ".Service") {
				continue
			}
			defs.Methods[r.full] = querytest.ProtoMethod{In: r.in, Out: r.out, Get: r.get}
			queue = append(queue, r.in, r.out)
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := defs.Messages[name]; done {
			continue
		}
		m, ok := msgs[name]
		if !ok {
			continue // well-known types (google.protobuf.*) are not read here
		}
		fields := []querytest.ProtoField{}
		for _, fd := range m.fields {
			typ, tn := resolve(fd.typ, m, enums, msgs)
			pf := querytest.ProtoField{Name: fd.name, Number: fd.number, Type: typ, TypeName: tn, Repeated: fd.repeated}
			fields = append(fields, pf)
			if typ == "message" {
				queue = append(queue, tn)
			}
		}
		sort.Slice(fields, func(i, j int) bool { return fields[i].Number < fields[j].Number })
		defs.Messages[name] = fields
	}
	b, err := json.MarshalIndent(defs, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("sdkprotos: %d methods, %d messages into %s", len(defs.Methods), len(defs.Messages), *out)
}

var scalars = map[string]bool{"double": true, "float": true, "int64": true, "uint64": true, "int32": true, "fixed64": true,
	"fixed32": true, "bool": true, "string": true, "bytes": true, "uint32": true, "sfixed32": true, "sfixed64": true,
	"sint32": true, "sint64": true}

// resolve names a field's type: a scalar's name, or "message"/"enum" and
// the type's full name, found as protoc finds it (innermost scope out).
func resolve(t string, m *message, enums map[string]bool, msgs map[string]*message) (string, string) {
	if scalars[t] {
		return t, ""
	}
	if strings.HasPrefix(t, "map<") {
		return "map", t
	}
	if strings.HasPrefix(t, ".") {
		t = t[1:]
	}
	scope := m.full
	for {
		cand := t
		if scope != "" {
			cand = scope + "." + t
		}
		if msgs[cand] != nil {
			return "message", cand
		}
		if enums[cand] {
			return "enum", cand
		}
		if strings.HasPrefix(cand, "google.protobuf.") && scope == "" {
			return "message", cand
		}
		if scope == "" {
			return "unresolved", t
		}
		if i := strings.LastIndex(scope, "."); i >= 0 {
			scope = scope[:i]
		} else {
			scope = ""
		}
	}
}

type field struct {
	name, typ string
	number    int
	repeated  bool
}

type message struct {
	full   string
	fields []field
}

type rpc struct{ full, in, out, get string }

type file struct {
	pkg      string
	messages []*message
	enums    []string
	rpcs     []rpc
}

var (
	comments  = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	tokenRe   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\.?[A-Za-z_][A-Za-z0-9_.]*|[0-9]+|<[^>]*>|[{}();=\[\],:]|\S`)
	rpcHeader = regexp.MustCompile(`^rpc$`)
)

// parse reads the declarations of one .proto file.
func parse(src string) (*file, error) {
	toks := tokenRe.FindAllString(comments.ReplaceAllString(src, " "), -1)
	f := &file{}
	type scope struct {
		kind string // "message", "enum", "service", "oneof", "rpc", "other"
		msg  *message
		name string
	}
	var stack []scope
	qualify := func(name string) string {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].kind == "message" {
				return stack[i].msg.full + "." + name
			}
		}
		if f.pkg == "" {
			return name
		}
		return f.pkg + "." + name
	}
	curMsg := func() *message {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].kind == "message" {
				return stack[i].msg
			}
		}
		return nil
	}
	curService := ""
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		top := ""
		if len(stack) > 0 {
			top = stack[len(stack)-1].kind
		}
		switch {
		case t == "package" && len(stack) == 0:
			f.pkg = toks[i+1]
			i++
		case t == "message" && i+2 < len(toks) && toks[i+2] == "{" && (top == "" || top == "message"):
			m := &message{full: qualify(toks[i+1])}
			f.messages = append(f.messages, m)
			stack = append(stack, scope{kind: "message", msg: m})
			i += 2
		case t == "enum" && i+2 < len(toks) && toks[i+2] == "{" && (top == "" || top == "message"):
			f.enums = append(f.enums, qualify(toks[i+1]))
			stack = append(stack, scope{kind: "enum"})
			i += 2
		case t == "oneof" && top == "message":
			stack = append(stack, scope{kind: "oneof"})
			i += 2
		case t == "service" && top == "":
			curService = f.pkg + "." + toks[i+1]
			stack = append(stack, scope{kind: "service"})
			i += 2
		case rpcHeader.MatchString(t) && top == "service":
			// rpc Name ( [stream] In ) returns ( [stream] Out ) { ... } or ;
			j := i + 1
			name := toks[j]
			var types []string
			for j++; j < len(toks) && toks[j] != "{" && toks[j] != ";"; j++ {
				if toks[j] != "(" && toks[j] != ")" && toks[j] != "returns" && toks[j] != "stream" {
					types = append(types, toks[j])
				}
			}
			if len(types) != 2 {
				return nil, fmt.Errorf("rpc %s: %v", name, types)
			}
			r := rpc{full: curService + "/" + name, in: qualifyRef(f.pkg, types[0]), out: qualifyRef(f.pkg, types[1])}
			if toks[j] == "{" {
				depth := 1
				for j++; j < len(toks) && depth > 0; j++ {
					switch toks[j] {
					case "{":
						depth++
					case "}":
						depth--
					case "get", ".get":
						if r.get == "" && j+2 < len(toks) && (toks[j+1] == ":" || toks[j+1] == "=") {
							// Adjacent string literals are one string.
							for k := j + 2; k < len(toks) && strings.HasPrefix(toks[k], `"`); k++ {
								part, _ := strconv.Unquote(toks[k])
								r.get += part
							}
						}
					}
				}
				j--
			}
			f.rpcs = append(f.rpcs, r)
			i = j
		case t == "{":
			stack = append(stack, scope{kind: "other"})
		case t == "}":
			if len(stack) == 0 {
				return nil, fmt.Errorf("unbalanced }")
			}
			stack = stack[:len(stack)-1]
		case (top == "message" || top == "oneof") && (t == "option" || t == "reserved" || t == "extensions"):
			for i < len(toks) && toks[i] != ";" {
				i++
			}
		case top == "message" || top == "oneof":
			// [repeated|optional] type name = number [options] ;
			repeated := false
			if t == "repeated" || t == "optional" {
				repeated = t == "repeated"
				i++
			}
			typ := toks[i]
			if typ == "map" && i+1 < len(toks) && strings.HasPrefix(toks[i+1], "<") {
				typ += toks[i+1]
				i++
			}
			if i+3 >= len(toks) || toks[i+2] != "=" {
				return nil, fmt.Errorf("field near %q %q", typ, toks[i+1])
			}
			n, err := strconv.Atoi(toks[i+3])
			if err != nil {
				return nil, fmt.Errorf("field %s: number %q", toks[i+1], toks[i+3])
			}
			curMsg().fields = append(curMsg().fields, field{name: toks[i+1], typ: typ, number: n, repeated: repeated})
			for i < len(toks) && toks[i] != ";" {
				i++
			}
		}
	}
	return f, nil
}

// qualifyRef names an rpc's message type in full.
func qualifyRef(pkg, t string) string {
	if strings.Contains(t, ".") {
		return strings.TrimPrefix(t, ".")
	}
	return pkg + "." + t
}
