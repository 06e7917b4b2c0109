package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"
)

// Resolver computes one field of an object: parent is the Go value the
// object was resolved to, args the field's coerced arguments. It runs only
// when a query selects the field.
type Resolver func(ctx context.Context, parent any, args map[string]any) (any, error)

// Limits bound what one query may cost. A query over a limit gets an
// error, never a partial run.
type Limits struct {
	MaxDepth int           // nesting of fields (0: none)
	MaxCost  int           // estimated fields resolved, lists multiplied (0: none)
	Timeout  time.Duration // wall time of one query (0: none)
	// MaxValues caps the values one response may carry, whatever the
	// estimate said (0: none).
	MaxValues int
	// ListSize estimates how many items a list field returns, for the cost
	// (nil or 0: DefaultListSize).
	ListSize func(typeName string, f *Field) int
}

// DefaultListSize is the cost estimate of a list without a better one.
const DefaultListSize = 10

// Engine runs queries against a schema with the resolvers given for each
// object type's fields.
type Engine struct {
	schema    *Schema
	resolvers map[string]map[string]Resolver
	coerce    *coercer
	limits    Limits
	intro     *introspection
	docs      docCache
}

// NewEngine checks that every field of every object type has a resolver
// and every scalar a definition, and returns the engine. Introspection
// resolvers are built in.
func NewEngine(s *Schema, scalars map[string]*Scalar, resolvers map[string]map[string]Resolver, lim Limits) (*Engine, error) {
	all := map[string]*Scalar{}
	for k, v := range builtinScalars {
		all[k] = v
	}
	for k, v := range scalars {
		all[k] = v
	}
	e := &Engine{schema: s, resolvers: map[string]map[string]Resolver{}, coerce: &coercer{schema: s, scalars: all}, limits: lim}
	e.intro = &introspection{s: s}
	for t, fs := range e.intro.resolvers() {
		e.resolvers[t] = fs
	}
	for t, fs := range resolvers {
		e.resolvers[t] = fs
	}
	for _, name := range s.Order {
		t := s.Types[name]
		switch t.Kind {
		case ScalarKind:
			if all[name] == nil {
				return nil, fmt.Errorf("scalar %s has no definition", name)
			}
		case ObjectKind:
			for _, f := range t.Fields {
				if e.resolvers[name][f.Name] == nil {
					return nil, fmt.Errorf("field %s.%s has no resolver", name, f.Name)
				}
			}
		}
	}
	return e, nil
}

// Schema returns the engine's schema.
func (e *Engine) Schema() *Schema { return e.schema }

func (e *Engine) listSize(typeName string, f *Field) int {
	if e.limits.ListSize != nil {
		if n := e.limits.ListSize(typeName, f); n > 0 {
			return n
		}
	}
	return DefaultListSize
}

var (
	typenameField = &FieldDef{Name: "__typename", Type: &TypeRef{Name: "String", NonNull: true}}
	schemaField   = &FieldDef{Name: "__schema", Type: &TypeRef{Name: "__Schema", NonNull: true}}
	typeField     = &FieldDef{Name: "__type", Type: &TypeRef{Name: "__Type"},
		Args: []*InputValue{{Name: "name", Type: &TypeRef{Name: "String", NonNull: true}}}}
)

// fieldDef returns the definition of a field of t, the meta fields
// included.
func (e *Engine) fieldDef(t *Type, name string) *FieldDef {
	switch {
	case name == "__typename":
		return typenameField
	case t == e.schema.Query && name == "__schema":
		return schemaField
	case t == e.schema.Query && name == "__type":
		return typeField
	}
	return t.Field(name)
}

// Request is one GraphQL request as sent over HTTP.
type Request struct {
	Query         string                     `json:"query"`
	OperationName string                     `json:"operationName,omitempty"`
	Variables     map[string]json.RawMessage `json:"variables,omitempty"`
}

// Response is what a request answers: data (absent when the request
// never ran) and errors.
type Response struct {
	Data   json.RawMessage `json:"data,omitempty"`
	Errors []*Error        `json:"errors,omitempty"`
}

func fragMap(doc *Document) map[string]*Fragment {
	m := map[string]*Fragment{}
	for _, f := range doc.Fragments {
		m[f.Name] = f
	}
	return m
}

func pickOperation(doc *Document, name string) (*Operation, error) {
	if name == "" {
		if len(doc.Operations) != 1 {
			return nil, errors.New("Must provide operation name if query contains multiple operations.")
		}
		return doc.Operations[0], nil
	}
	for _, op := range doc.Operations {
		if op.Name == name {
			return op, nil
		}
	}
	return nil, fmt.Errorf("Unknown operation named %q.", name)
}

// Execute parses, validates and runs a request. Parse and validation
// errors come back without data; errors of fields come with the data that
// could be resolved.
func (e *Engine) Execute(ctx context.Context, req *Request) *Response {
	doc, errs := e.prepare(req.Query)
	if len(errs) > 0 {
		return &Response{Errors: errs}
	}
	op, err := pickOperation(doc, req.OperationName)
	if err != nil {
		return &Response{Errors: []*Error{{Message: err.Error()}}}
	}
	vars, verrs := e.variables(op, req.Variables)
	if len(verrs) > 0 {
		return &Response{Errors: verrs}
	}
	if e.limits.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.limits.Timeout)
		defer cancel()
	}
	x := &execution{e: e, frags: fragMap(doc), vars: vars}
	root := e.schema.Query
	if op.Kind == "mutation" {
		root = e.schema.Mutation
	}
	data, ok := x.selectionSet(ctx, root, rootValue{}, op.Sel, nil)
	if x.abort != nil {
		return &Response{Data: json.RawMessage("null"), Errors: []*Error{x.abort}}
	}
	resp := &Response{Errors: x.errs}
	if !ok {
		resp.Data = json.RawMessage("null")
		return resp
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, data); err != nil {
		return &Response{Errors: []*Error{{Message: "cannot encode the result: " + err.Error()}}}
	}
	resp.Data = buf.Bytes()
	return resp
}

type rootValue struct{}

// Documents that parsed and validated are kept, up to docCacheSize of
// them and only short ones, so that a client repeating a query does not
// pay for parsing and validation again. A document is never changed after
// validation, so sharing it between requests is safe.
const (
	docCacheSize  = 256
	docCacheBytes = 8 << 10
)

type docCache struct {
	mu    sync.Mutex
	docs  map[string]*Document
	order []string // insertion order, for eviction
}

func (e *Engine) prepare(query string) (*Document, []*Error) {
	c := &e.docs
	c.mu.Lock()
	doc := c.docs[query]
	c.mu.Unlock()
	if doc != nil {
		return doc, nil
	}
	doc, err := Parse(query)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, []*Error{errAt(se.Pos, "Syntax Error: %s", se.Msg)}
		}
		return nil, []*Error{{Message: err.Error()}}
	}
	if errs := e.validate(doc); len(errs) > 0 {
		return nil, errs
	}
	if len(query) <= docCacheBytes {
		c.mu.Lock()
		if c.docs == nil {
			c.docs = map[string]*Document{}
		}
		if _, ok := c.docs[query]; !ok {
			if len(c.order) >= docCacheSize {
				delete(c.docs, c.order[0])
				c.order = c.order[1:]
			}
			c.docs[query] = doc
			c.order = append(c.order, query)
		}
		c.mu.Unlock()
	}
	return doc, nil
}

func (e *Engine) variables(op *Operation, given map[string]json.RawMessage) (map[string]any, []*Error) {
	vars := map[string]any{}
	var errs []*Error
	for _, d := range op.Vars {
		raw, ok := given[d.Name]
		if !ok {
			if d.Default != nil {
				v, err := e.coerce.literal(d.Default, d.Type, nil)
				if err != nil {
					errs = append(errs, errAt(d.Pos, "Variable \"$%s\" has an invalid default value: %v.", d.Name, err))
				}
				vars[d.Name] = v
			} else if d.Type.NonNull {
				errs = append(errs, errAt(d.Pos, "Variable \"$%s\" of required type %q was not provided.", d.Name, d.Type))
			}
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			errs = append(errs, errAt(d.Pos, "Variable \"$%s\" is not valid JSON: %v.", d.Name, err))
			continue
		}
		v, err := e.coerce.input(x, d.Type)
		if err != nil {
			errs = append(errs, errAt(d.Pos, "Variable \"$%s\" got invalid value: %v.", d.Name, err))
			continue
		}
		vars[d.Name] = v
	}
	return vars, errs
}

// execution is the state of one running query.
type execution struct {
	e      *Engine
	frags  map[string]*Fragment
	vars   map[string]any
	errs   []*Error
	values int
	abort  *Error // a limit ended the query; no data is returned
}

// object is a response object with its keys in selection order.
type object struct {
	keys []string
	vals []any
}

func (x *execution) fieldError(f *Field, path []any, err error) {
	if len(x.errs) >= 100 {
		return
	}
	e := &Error{Message: err.Error(), Locations: []Pos{f.Pos}, Path: append([]any(nil), path...)}
	var ge *Error
	if errors.As(err, &ge) && ge.Extensions != nil {
		e.Extensions = ge.Extensions
	}
	x.errs = append(x.errs, e)
}

// collect groups the fields of a selection set by response key, applying
// @skip and @include and expanding fragments.
func (x *execution) collect(t *Type, sel []Selection, keys *[]string, groups map[string][]*Field, seen map[string]bool) {
	for _, s := range sel {
		switch s := s.(type) {
		case *Field:
			if !x.included(s.Directives) {
				continue
			}
			k := s.ResponseKey()
			if _, ok := groups[k]; !ok {
				*keys = append(*keys, k)
			}
			groups[k] = append(groups[k], s)
		case *InlineFragment:
			if !x.included(s.Directives) || (s.On != "" && s.On != t.Name) {
				continue
			}
			x.collect(t, s.Sel, keys, groups, seen)
		case *FragmentSpread:
			if !x.included(s.Directives) || seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			f := x.frags[s.Name]
			if f.On != t.Name {
				continue
			}
			x.collect(t, f.Sel, keys, groups, seen)
		}
	}
}

func (x *execution) included(ds []*Directive) bool {
	for _, d := range ds {
		if d.Name != "skip" && d.Name != "include" {
			continue
		}
		v, err := x.e.coerce.literal(d.Args[0].Value, &TypeRef{Name: "Boolean", NonNull: true}, x.vars)
		if err != nil {
			continue // validation saw to the literal; a missing variable counts as false
		}
		if b, _ := v.(bool); b == (d.Name == "skip") {
			return false
		}
	}
	return true
}

// selectionSet resolves the selected fields of one object. ok is false
// when a non-null field came back null: the object itself becomes null.
func (x *execution) selectionSet(ctx context.Context, t *Type, parent any, sel []Selection, path []any) (*object, bool) {
	var keys []string
	groups := map[string][]*Field{}
	x.collect(t, sel, &keys, groups, map[string]bool{})
	obj := &object{keys: keys, vals: make([]any, len(keys))}
	for i, k := range keys {
		if x.abort != nil {
			return nil, false
		}
		fs := groups[k]
		f := fs[0]
		def := x.e.fieldDef(t, f.Name)
		fpath := append(path, k)
		if f.Name == "__typename" {
			obj.vals[i] = t.Name
			continue
		}
		if err := ctx.Err(); err != nil {
			x.abort = &Error{Message: fmt.Sprintf("query ran over its time limit of %s", x.e.limits.Timeout)}
			if !errors.Is(err, context.DeadlineExceeded) {
				x.abort.Message = "query cancelled"
			}
			return nil, false
		}
		args := map[string]any{}
		var argErr error
		for _, ad := range def.Args {
			var given *Value
			for _, a := range f.Args {
				if a.Name == ad.Name {
					given = a.Value
				}
			}
			if given != nil && given.Kind == VarValue {
				if _, ok := x.vars[given.Raw]; !ok {
					given = nil
				}
			}
			if given == nil {
				given = ad.Default
			}
			if given == nil {
				if ad.Type.NonNull {
					argErr = fmt.Errorf("argument %q of type %q is required", ad.Name, ad.Type)
				}
				continue
			}
			v, err := x.e.coerce.literal(given, ad.Type, x.vars)
			if err != nil {
				argErr = fmt.Errorf("argument %q: %v", ad.Name, err)
				break
			}
			args[ad.Name] = v
		}
		var res any
		var err error
		if argErr != nil {
			err = argErr
		} else if f.Name == "__schema" || f.Name == "__type" {
			res, err = x.e.intro.root(f.Name, args)
		} else {
			res, err = x.e.resolvers[t.Name][f.Name](ctx, parent, args)
		}
		if err != nil {
			x.fieldError(f, fpath, err)
			if def.Type.NonNull {
				return nil, false
			}
			continue
		}
		v, ok := x.complete(ctx, def.Type, fs, res, fpath)
		if !ok {
			if def.Type.NonNull {
				return nil, false
			}
			v = nil
		}
		obj.vals[i] = v
	}
	return obj, true
}

// complete turns a resolved value into its response value for type t.
func (x *execution) complete(ctx context.Context, t *TypeRef, fs []*Field, res any, path []any) (any, bool) {
	if x.abort != nil {
		return nil, false
	}
	if x.values++; x.e.limits.MaxValues > 0 && x.values > x.e.limits.MaxValues {
		x.abort = &Error{Message: fmt.Sprintf("response holds more than %d values; narrow the query", x.e.limits.MaxValues)}
		return nil, false
	}
	if isNil(res) {
		if t.NonNull {
			x.fieldError(fs[0], path, fmt.Errorf("Cannot return null for non-nullable field."))
			return nil, false
		}
		return nil, true
	}
	if t.Elem != nil {
		rv := reflect.ValueOf(res)
		if rv.Kind() != reflect.Slice {
			x.fieldError(fs[0], path, fmt.Errorf("internal error: list field resolved to %T", res))
			return nil, false
		}
		out := make([]any, rv.Len())
		for i := range out {
			v, ok := x.complete(ctx, t.Elem, fs, rv.Index(i).Interface(), append(path, i))
			if !ok {
				if t.Elem.NonNull {
					return nil, false
				}
				v = nil
			}
			out[i] = v
		}
		return out, true
	}
	nt := x.e.schema.Types[t.Name]
	switch nt.Kind {
	case ScalarKind:
		v, err := x.e.coerce.scalars[nt.Name].Output(res)
		if err != nil {
			x.fieldError(fs[0], path, err)
			return nil, false
		}
		return v, true
	case EnumKind:
		return fmt.Sprint(res), true
	}
	var sel []Selection
	for _, f := range fs {
		sel = append(sel, f.Sel...)
	}
	return x.selectionSet(ctx, nt, res, sel, path)
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		// A nil slice is an empty list or empty bytes; resolvers return
		// an untyped nil for null.
		return rv.IsNil()
	}
	return false
}

// writeJSON writes a response value: objects keep their key order.
func writeJSON(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case *object:
		if v == nil {
			buf.WriteString("null")
			return nil
		}
		buf.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.Quote(k))
			buf.WriteByte(':')
			if err := writeJSON(buf, v.vals[i]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}
