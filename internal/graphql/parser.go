package graphql

import "fmt"

// Limits of the parser, so that no document can make it recurse or
// allocate without bound.
const (
	maxParseNesting = 64     // nested selection sets, lists and objects
	maxTokens       = 20_000 // tokens of one executable document
)

type parser struct {
	lx      *lexer
	tok     token
	nesting int
}

func newParser(src string, tokenLimit int) (*parser, error) {
	p := &parser{lx: newLexer(src, tokenLimit)}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Pos: p.tok.pos}
}

func (p *parser) describe() string {
	switch p.tok.kind {
	case tokEOF:
		return "end of document"
	case tokString:
		return "string"
	}
	return fmt.Sprintf("%q", p.tok.val)
}

func (p *parser) peek(punct string) bool { return p.tok.kind == tokPunct && p.tok.val == punct }

func (p *parser) skip(punct string) (bool, error) {
	if !p.peek(punct) {
		return false, nil
	}
	return true, p.advance()
}

func (p *parser) expect(punct string) error {
	if !p.peek(punct) {
		return p.errf("expected %q, found %s", punct, p.describe())
	}
	return p.advance()
}

func (p *parser) name() (string, error) {
	if p.tok.kind != tokName {
		return "", p.errf("expected a name, found %s", p.describe())
	}
	n := p.tok.val
	return n, p.advance()
}

func (p *parser) keyword(k string) bool { return p.tok.kind == tokName && p.tok.val == k }

func (p *parser) enter() error {
	if p.nesting++; p.nesting > maxParseNesting {
		return p.errf("document nested deeper than %d levels", maxParseNesting)
	}
	return nil
}

func (p *parser) leave() { p.nesting-- }

// Parse parses an executable document (operations and fragments).
func Parse(src string) (*Document, error) {
	p, err := newParser(src, maxTokens)
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	for p.tok.kind != tokEOF {
		switch {
		case p.peek("{"):
			op := &Operation{Kind: "query", Pos: p.tok.pos}
			if op.Sel, err = p.selectionSet(); err != nil {
				return nil, err
			}
			doc.Operations = append(doc.Operations, op)
		case p.keyword("query") || p.keyword("mutation") || p.keyword("subscription"):
			op, err := p.operation()
			if err != nil {
				return nil, err
			}
			doc.Operations = append(doc.Operations, op)
		case p.keyword("fragment"):
			f, err := p.fragment()
			if err != nil {
				return nil, err
			}
			doc.Fragments = append(doc.Fragments, f)
		default:
			return nil, p.errf("expected an operation or fragment, found %s", p.describe())
		}
	}
	if len(doc.Operations) == 0 {
		return nil, p.errf("document has no operation")
	}
	return doc, nil
}

func (p *parser) operation() (*Operation, error) {
	op := &Operation{Kind: p.tok.val, Pos: p.tok.pos}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var err error
	if p.tok.kind == tokName {
		op.Name = p.tok.val
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if p.peek("(") {
		if op.Vars, err = p.varDefs(); err != nil {
			return nil, err
		}
	}
	if op.Directives, err = p.directives(false); err != nil {
		return nil, err
	}
	if op.Sel, err = p.selectionSet(); err != nil {
		return nil, err
	}
	return op, nil
}

func (p *parser) varDefs() ([]*VarDef, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var defs []*VarDef
	for !p.peek(")") {
		d := &VarDef{Pos: p.tok.pos}
		if err := p.expect("$"); err != nil {
			return nil, err
		}
		var err error
		if d.Name, err = p.name(); err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		if d.Type, err = p.typeRef(); err != nil {
			return nil, err
		}
		if ok, err := p.skip("="); err != nil {
			return nil, err
		} else if ok {
			if d.Default, err = p.value(true); err != nil {
				return nil, err
			}
		}
		if _, err := p.directives(true); err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	if len(defs) == 0 {
		return nil, p.errf("empty variable list")
	}
	return defs, p.advance()
}

func (p *parser) typeRef() (*TypeRef, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := &TypeRef{}
	if ok, err := p.skip("["); err != nil {
		return nil, err
	} else if ok {
		if t.Elem, err = p.typeRef(); err != nil {
			return nil, err
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
	} else {
		var err error
		if t.Name, err = p.name(); err != nil {
			return nil, err
		}
	}
	ok, err := p.skip("!")
	t.NonNull = ok
	return t, err
}

func (p *parser) directives(constant bool) ([]*Directive, error) {
	var ds []*Directive
	for p.peek("@") {
		d := &Directive{Pos: p.tok.pos}
		if err := p.advance(); err != nil {
			return nil, err
		}
		var err error
		if d.Name, err = p.name(); err != nil {
			return nil, err
		}
		if d.Args, err = p.arguments(constant); err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func (p *parser) arguments(constant bool) ([]*Argument, error) {
	if !p.peek("(") {
		return nil, nil
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var args []*Argument
	for !p.peek(")") {
		a := &Argument{Pos: p.tok.pos}
		var err error
		if a.Name, err = p.name(); err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		if a.Value, err = p.value(constant); err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	if len(args) == 0 {
		return nil, p.errf("empty argument list")
	}
	return args, p.advance()
}

func (p *parser) selectionSet() ([]Selection, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var sel []Selection
	for !p.peek("}") {
		s, err := p.selection()
		if err != nil {
			return nil, err
		}
		sel = append(sel, s)
	}
	if len(sel) == 0 {
		return nil, p.errf("empty selection set")
	}
	return sel, p.advance()
}

func (p *parser) selection() (Selection, error) {
	pos := p.tok.pos
	if ok, err := p.skip("..."); err != nil {
		return nil, err
	} else if ok {
		if p.tok.kind == tokName && p.tok.val != "on" {
			s := &FragmentSpread{Name: p.tok.val, Pos: pos}
			if err := p.advance(); err != nil {
				return nil, err
			}
			s.Directives, err = p.directives(false)
			return s, err
		}
		f := &InlineFragment{Pos: pos}
		if p.keyword("on") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if f.On, err = p.name(); err != nil {
				return nil, err
			}
		}
		if f.Directives, err = p.directives(false); err != nil {
			return nil, err
		}
		f.Sel, err = p.selectionSet()
		return f, err
	}
	f := &Field{Pos: pos}
	var err error
	if f.Name, err = p.name(); err != nil {
		return nil, err
	}
	if ok, err := p.skip(":"); err != nil {
		return nil, err
	} else if ok {
		f.Alias = f.Name
		if f.Name, err = p.name(); err != nil {
			return nil, err
		}
	}
	if f.Args, err = p.arguments(false); err != nil {
		return nil, err
	}
	if f.Directives, err = p.directives(false); err != nil {
		return nil, err
	}
	if p.peek("{") {
		f.Sel, err = p.selectionSet()
	}
	return f, err
}

func (p *parser) fragment() (*Fragment, error) {
	f := &Fragment{Pos: p.tok.pos}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var err error
	if f.Name, err = p.name(); err != nil {
		return nil, err
	}
	if f.Name == "on" {
		return nil, p.errf(`a fragment cannot be named "on"`)
	}
	if !p.keyword("on") {
		return nil, p.errf(`expected "on", found %s`, p.describe())
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if f.On, err = p.name(); err != nil {
		return nil, err
	}
	if f.Directives, err = p.directives(false); err != nil {
		return nil, err
	}
	f.Sel, err = p.selectionSet()
	return f, err
}

// value parses a value; constant refuses variables (defaults, schema).
func (p *parser) value(constant bool) (*Value, error) {
	v := &Value{Pos: p.tok.pos}
	switch p.tok.kind {
	case tokInt:
		v.Kind, v.Raw = IntValue, p.tok.val
	case tokFloat:
		v.Kind, v.Raw = FloatValue, p.tok.val
	case tokString:
		v.Kind, v.Raw = StringValue, p.tok.val
	case tokName:
		switch p.tok.val {
		case "true", "false":
			v.Kind = BoolValue
		case "null":
			v.Kind = NullValue
		default:
			v.Kind = EnumValue
		}
		v.Raw = p.tok.val
	case tokPunct:
		switch p.tok.val {
		case "$":
			if constant {
				return nil, p.errf("a variable is not allowed here")
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			n, err := p.name()
			v.Kind, v.Raw = VarValue, n
			return v, err
		case "[":
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			v.Kind = ListValue
			if err := p.advance(); err != nil {
				return nil, err
			}
			v.List = []*Value{}
			for !p.peek("]") {
				e, err := p.value(constant)
				if err != nil {
					return nil, err
				}
				v.List = append(v.List, e)
			}
			return v, p.advance()
		case "{":
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			v.Kind = ObjectValue
			if err := p.advance(); err != nil {
				return nil, err
			}
			for !p.peek("}") {
				a := &Argument{Pos: p.tok.pos}
				var err error
				if a.Name, err = p.name(); err != nil {
					return nil, err
				}
				if err := p.expect(":"); err != nil {
					return nil, err
				}
				if a.Value, err = p.value(constant); err != nil {
					return nil, err
				}
				v.Fields = append(v.Fields, a)
			}
			return v, p.advance()
		}
		return nil, p.errf("expected a value, found %s", p.describe())
	default:
		return nil, p.errf("expected a value, found %s", p.describe())
	}
	return v, p.advance()
}
