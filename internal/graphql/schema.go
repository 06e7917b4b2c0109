package graphql

import (
	"fmt"
	"strconv"
	"strings"
)

// TypeKind is the kind of a named type, as introspection names it.
type TypeKind string

// The kinds of named types this package serves.
const (
	ScalarKind      TypeKind = "SCALAR"
	ObjectKind      TypeKind = "OBJECT"
	InputObjectKind TypeKind = "INPUT_OBJECT"
	EnumKind        TypeKind = "ENUM"
)

// Type is a named type of a schema.
type Type struct {
	Kind        TypeKind
	Name, Desc  string
	Fields      []*FieldDef   // objects
	InputFields []*InputValue // input objects
	EnumValues  []*EnumValueDef
	fields      map[string]*FieldDef
}

// Field returns the named field of an object type, or nil.
func (t *Type) Field(name string) *FieldDef { return t.fields[name] }

// FieldDef is a field of an object type.
type FieldDef struct {
	Name, Desc string
	Args       []*InputValue
	Type       *TypeRef
	Deprecated *string // reason, when deprecated
}

// Arg returns the named argument, or nil.
func (f *FieldDef) Arg(name string) *InputValue { return findInput(f.Args, name) }

// InputValue is an argument or an input object field.
type InputValue struct {
	Name, Desc string
	Type       *TypeRef
	Default    *Value
}

func findInput(list []*InputValue, name string) *InputValue {
	for _, iv := range list {
		if iv.Name == name {
			return iv
		}
	}
	return nil
}

// EnumValueDef is one value of an enum type.
type EnumValueDef struct {
	Name, Desc string
	Deprecated *string
}

// DirectiveDef declares a directive.
type DirectiveDef struct {
	Name, Desc string
	Args       []*InputValue
	Locations  []string
	Repeatable bool
}

// Schema is a parsed schema: its named types in declaration order and
// the root types.
type Schema struct {
	Desc            string
	Types           map[string]*Type
	Order           []string
	Query, Mutation *Type
	Directives      []*DirectiveDef
	roots           [][2]string // operation, type name, as the schema definition names them
}

// builtins are the scalars and directives every schema has, and the
// introspection types.
const builtins = `
"The ` + "`Int`" + ` scalar type represents non-fractional signed whole numeric values between -(2^31) and 2^31 - 1."
scalar Int
"The ` + "`Float`" + ` scalar type represents signed double-precision fractional values."
scalar Float
"The ` + "`String`" + ` scalar type represents textual data, as UTF-8 character sequences."
scalar String
"The ` + "`Boolean`" + ` scalar type represents true or false."
scalar Boolean
"The ` + "`ID`" + ` scalar type represents a unique identifier, serialized as a string."
scalar ID

"Includes the field or fragment only when the argument is true."
directive @include("Included when true." if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
"Skips the field or fragment when the argument is true."
directive @skip("Skipped when true." if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
"Marks an element of the schema as no longer supported."
directive @deprecated("Why, and what to use instead." reason: String = "No longer supported") on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE

type __Schema {
  description: String
  types: [__Type!]!
  queryType: __Type!
  mutationType: __Type
  subscriptionType: __Type
  directives: [__Directive!]!
}

type __Type {
  kind: __TypeKind!
  name: String
  description: String
  specifiedByURL: String
  fields(includeDeprecated: Boolean = false): [__Field!]
  interfaces: [__Type!]
  possibleTypes: [__Type!]
  enumValues(includeDeprecated: Boolean = false): [__EnumValue!]
  inputFields(includeDeprecated: Boolean = false): [__InputValue!]
  ofType: __Type
  isOneOf: Boolean
}

enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT LIST NON_NULL }

type __Field {
  name: String!
  description: String
  args(includeDeprecated: Boolean = false): [__InputValue!]!
  type: __Type!
  isDeprecated: Boolean!
  deprecationReason: String
}

type __InputValue {
  name: String!
  description: String
  type: __Type!
  defaultValue: String
  isDeprecated: Boolean!
  deprecationReason: String
}

type __EnumValue {
  name: String!
  description: String
  isDeprecated: Boolean!
  deprecationReason: String
}

type __Directive {
  name: String!
  description: String
  isRepeatable: Boolean!
  locations: [__DirectiveLocation!]!
  args(includeDeprecated: Boolean = false): [__InputValue!]!
}

enum __DirectiveLocation {
  QUERY MUTATION SUBSCRIPTION FIELD FRAGMENT_DEFINITION FRAGMENT_SPREAD INLINE_FRAGMENT VARIABLE_DEFINITION
  SCHEMA SCALAR OBJECT FIELD_DEFINITION ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE INPUT_OBJECT INPUT_FIELD_DEFINITION
}
`

// ParseSchema parses a schema in the GraphQL schema language (scalars,
// object, input object and enum types, directives and the schema
// definition), adds the built-in scalars, directives and introspection
// types, and checks that every type it names exists.
func ParseSchema(sdl string) (*Schema, error) {
	s := &Schema{Types: map[string]*Type{}}
	if err := s.parse(builtins); err != nil {
		return nil, fmt.Errorf("built-in definitions: %w", err)
	}
	if err := s.parse(sdl); err != nil {
		return nil, err
	}
	for _, r := range s.roots {
		t := s.Types[r[1]]
		if t == nil || t.Kind != ObjectKind {
			return nil, fmt.Errorf("schema names %s as its %s type, which is not an object type", r[1], r[0])
		}
		if r[0] == "query" {
			s.Query = t
		} else {
			s.Mutation = t
		}
	}
	if s.Query == nil {
		s.Query = s.Types["Query"]
	}
	if s.Mutation == nil {
		s.Mutation = s.Types["Mutation"]
	}
	if s.Query == nil || s.Query.Kind != ObjectKind {
		return nil, fmt.Errorf("schema has no Query object type")
	}
	check := func(where string, t *TypeRef, input bool) error {
		nt := s.Types[t.Named()]
		if nt == nil {
			return fmt.Errorf("%s: unknown type %s", where, t.Named())
		}
		if input && nt.Kind == ObjectKind || !input && nt.Kind == InputObjectKind {
			return fmt.Errorf("%s: type %s cannot be used here", where, nt.Name)
		}
		return nil
	}
	for _, name := range s.Order {
		t := s.Types[name]
		for _, f := range t.Fields {
			if err := check(name+"."+f.Name, f.Type, false); err != nil {
				return nil, err
			}
			for _, a := range f.Args {
				if err := check(name+"."+f.Name+"("+a.Name+")", a.Type, true); err != nil {
					return nil, err
				}
			}
		}
		for _, f := range t.InputFields {
			if err := check(name+"."+f.Name, f.Type, true); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// Directive returns the named directive definition, or nil.
func (s *Schema) Directive(name string) *DirectiveDef {
	for _, d := range s.Directives {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (s *Schema) parse(src string) error {
	p, err := newParser(src, 0)
	if err != nil {
		return err
	}
	for p.tok.kind != tokEOF {
		desc := ""
		if p.tok.kind == tokString {
			desc = p.tok.val
			if err := p.advance(); err != nil {
				return err
			}
		}
		kw, err := p.name()
		if err != nil {
			return err
		}
		switch kw {
		case "schema":
			if _, err := p.directives(true); err != nil {
				return err
			}
			s.Desc = desc
			if err := p.expect("{"); err != nil {
				return err
			}
			for !p.peek("}") {
				op, err := p.name()
				if err != nil {
					return err
				}
				if err := p.expect(":"); err != nil {
					return err
				}
				tn, err := p.name()
				if err != nil {
					return err
				}
				switch op {
				case "query", "mutation":
					s.roots = append(s.roots, [2]string{op, tn})
				default:
					return p.errf("unsupported root operation %s", op)
				}
			}
			if err := p.advance(); err != nil {
				return err
			}
		case "directive":
			d := &DirectiveDef{Desc: desc}
			if err := p.expect("@"); err != nil {
				return err
			}
			if d.Name, err = p.name(); err != nil {
				return err
			}
			if p.peek("(") {
				if d.Args, err = p.inputValues("(", ")"); err != nil {
					return err
				}
			}
			if p.keyword("repeatable") {
				d.Repeatable = true
				if err := p.advance(); err != nil {
					return err
				}
			}
			if !p.keyword("on") {
				return p.errf(`expected "on", found %s`, p.describe())
			}
			if err := p.advance(); err != nil {
				return err
			}
			if _, err := p.skip("|"); err != nil {
				return err
			}
			for {
				loc, err := p.name()
				if err != nil {
					return err
				}
				d.Locations = append(d.Locations, loc)
				if ok, err := p.skip("|"); err != nil {
					return err
				} else if !ok {
					break
				}
			}
			s.Directives = append(s.Directives, d)
		case "scalar", "type", "input", "enum":
			t := &Type{Desc: desc, Kind: map[string]TypeKind{"scalar": ScalarKind, "type": ObjectKind, "input": InputObjectKind, "enum": EnumKind}[kw]}
			if t.Name, err = p.name(); err != nil {
				return err
			}
			if s.Types[t.Name] != nil {
				return p.errf("type %s declared twice", t.Name)
			}
			if _, err := p.directives(true); err != nil {
				return err
			}
			switch t.Kind {
			case ObjectKind:
				if t.Fields, err = p.fieldDefs(); err != nil {
					return err
				}
				t.fields = map[string]*FieldDef{}
				for _, f := range t.Fields {
					t.fields[f.Name] = f
				}
			case InputObjectKind:
				if t.InputFields, err = p.inputValues("{", "}"); err != nil {
					return err
				}
			case EnumKind:
				if t.EnumValues, err = p.enumValues(); err != nil {
					return err
				}
			}
			s.Types[t.Name] = t
			s.Order = append(s.Order, t.Name)
		default:
			return p.errf("unsupported definition %q", kw)
		}
	}
	return nil
}

func (p *parser) description() (string, error) {
	if p.tok.kind != tokString {
		return "", nil
	}
	d := p.tok.val
	return d, p.advance()
}

// deprecation reads the directives of a definition and returns the
// @deprecated reason, if any.
func (p *parser) deprecation() (*string, error) {
	ds, err := p.directives(true)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.Name == "deprecated" {
			reason := "No longer supported"
			for _, a := range d.Args {
				if a.Name == "reason" && a.Value.Kind == StringValue {
					reason = a.Value.Raw
				}
			}
			return &reason, nil
		}
	}
	return nil, nil
}

func (p *parser) fieldDefs() ([]*FieldDef, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var fs []*FieldDef
	for !p.peek("}") {
		f := &FieldDef{}
		var err error
		if f.Desc, err = p.description(); err != nil {
			return nil, err
		}
		if f.Name, err = p.name(); err != nil {
			return nil, err
		}
		if p.peek("(") {
			if f.Args, err = p.inputValues("(", ")"); err != nil {
				return nil, err
			}
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		if f.Type, err = p.typeRef(); err != nil {
			return nil, err
		}
		if f.Deprecated, err = p.deprecation(); err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, p.advance()
}

func (p *parser) inputValues(open, close string) ([]*InputValue, error) {
	if err := p.expect(open); err != nil {
		return nil, err
	}
	var vs []*InputValue
	for !p.peek(close) {
		v := &InputValue{}
		var err error
		if v.Desc, err = p.description(); err != nil {
			return nil, err
		}
		if v.Name, err = p.name(); err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		if v.Type, err = p.typeRef(); err != nil {
			return nil, err
		}
		if ok, err := p.skip("="); err != nil {
			return nil, err
		} else if ok {
			if v.Default, err = p.value(true); err != nil {
				return nil, err
			}
		}
		if _, err := p.directives(true); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, p.advance()
}

func (p *parser) enumValues() ([]*EnumValueDef, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var vs []*EnumValueDef
	for !p.peek("}") {
		v := &EnumValueDef{}
		var err error
		if v.Desc, err = p.description(); err != nil {
			return nil, err
		}
		if v.Name, err = p.name(); err != nil {
			return nil, err
		}
		if v.Deprecated, err = p.deprecation(); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, p.advance()
}

// String renders a value as a GraphQL literal (introspection's
// defaultValue).
func (v *Value) String() string {
	switch v.Kind {
	case VarValue:
		return "$" + v.Raw
	case StringValue:
		return strconv.Quote(v.Raw)
	case ListValue:
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ObjectValue:
		parts := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			parts[i] = f.Name + ": " + f.Value.String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.Raw
}
