package graphql

// Document is a parsed executable document: operations and fragments.
type Document struct {
	Operations []*Operation
	Fragments  []*Fragment
}

// Operation is a query, mutation or subscription.
type Operation struct {
	Kind       string // "query", "mutation" or "subscription"
	Name       string
	Vars       []*VarDef
	Directives []*Directive
	Sel        []Selection
	Pos        Pos
}

// VarDef declares a variable of an operation.
type VarDef struct {
	Name    string
	Type    *TypeRef
	Default *Value
	Pos     Pos
}

// TypeRef is a type as written: a named type, or a list of Elem, either
// possibly non-null.
type TypeRef struct {
	Name    string   // named type; "" for a list
	Elem    *TypeRef // list element type
	NonNull bool
}

// String renders the type in GraphQL notation, e.g. "[Bytes32!]!".
func (t *TypeRef) String() string {
	s := t.Name
	if t.Elem != nil {
		s = "[" + t.Elem.String() + "]"
	}
	if t.NonNull {
		s += "!"
	}
	return s
}

// Named returns the innermost named type.
func (t *TypeRef) Named() string {
	for t.Elem != nil {
		t = t.Elem
	}
	return t.Name
}

// Selection is a *Field, *FragmentSpread or *InlineFragment.
type Selection interface{ selPos() Pos }

// Field selects a field, possibly under an alias.
type Field struct {
	Alias, Name string
	Args        []*Argument
	Directives  []*Directive
	Sel         []Selection
	Pos         Pos
}

// FragmentSpread is ...Name.
type FragmentSpread struct {
	Name       string
	Directives []*Directive
	Pos        Pos
}

// InlineFragment is ... on Type { ... } (On may be empty).
type InlineFragment struct {
	On         string
	Directives []*Directive
	Sel        []Selection
	Pos        Pos
}

// Fragment is a named fragment definition.
type Fragment struct {
	Name, On   string
	Directives []*Directive
	Sel        []Selection
	Pos        Pos
}

func (f *Field) selPos() Pos          { return f.Pos }
func (f *FragmentSpread) selPos() Pos { return f.Pos }
func (f *InlineFragment) selPos() Pos { return f.Pos }

// ResponseKey is the name the field's value appears under.
func (f *Field) ResponseKey() string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name
}

// Argument is name: value.
type Argument struct {
	Name  string
	Value *Value
	Pos   Pos
}

// Directive is @name(args).
type Directive struct {
	Name string
	Args []*Argument
	Pos  Pos
}

// ValueKind says what a literal value is.
type ValueKind int

// The kinds of literal values.
const (
	VarValue ValueKind = iota
	IntValue
	FloatValue
	StringValue
	BoolValue
	NullValue
	EnumValue
	ListValue
	ObjectValue
)

// Value is a literal or variable in a document.
type Value struct {
	Kind   ValueKind
	Raw    string // variable name, number text, string, enum name, "true"/"false"
	List   []*Value
	Fields []*Argument // object fields
	Pos    Pos
}
