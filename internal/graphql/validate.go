package graphql

import (
	"fmt"
	"strconv"
)

// Error is one entry of a response's "errors": a message, where in the
// query it arose and, for execution errors, the path of the field.
type Error struct {
	Message    string         `json:"message"`
	Locations  []Pos          `json:"locations,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

func (e *Error) Error() string { return e.Message }

func errAt(p Pos, format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Locations: []Pos{p}}
}

// validator checks a document against the schema before anything runs:
// every rule of the specification's validation section that applies to a
// schema without interfaces and unions, plus the engine's depth and cost
// limits.
type validator struct {
	e     *Engine
	doc   *Document
	frags map[string]*Fragment
	errs  []*Error

	// per operation
	vars     map[string]*VarDef
	usedVars map[string]bool

	fragCost  map[string]int // memoised cost and depth of each fragment's selection
	fragDepth map[string]int
}

func (e *Engine) validate(doc *Document) []*Error {
	v := &validator{e: e, doc: doc, frags: map[string]*Fragment{}, fragCost: map[string]int{}, fragDepth: map[string]int{}}
	for _, f := range doc.Fragments {
		if v.frags[f.Name] != nil {
			v.errorf(f.Pos, "There can be only one fragment named %q.", f.Name)
			continue
		}
		v.frags[f.Name] = f
	}
	v.checkFragmentCycles()
	if len(v.errs) > 0 {
		return v.errs // the walks below assume acyclic fragments
	}
	names := map[string]bool{}
	for _, op := range doc.Operations {
		if op.Name == "" && len(doc.Operations) > 1 {
			v.errorf(op.Pos, "This anonymous operation must be the only defined operation.")
		}
		if op.Name != "" {
			if names[op.Name] {
				v.errorf(op.Pos, "There can be only one operation named %q.", op.Name)
			}
			names[op.Name] = true
		}
	}
	usedFrags := map[string]bool{}
	for _, op := range doc.Operations {
		v.operation(op, usedFrags)
	}
	for _, f := range doc.Fragments {
		if !usedFrags[f.Name] {
			v.errorf(f.Pos, "Fragment %q is never used.", f.Name)
		}
	}
	return v.errs
}

func (v *validator) errorf(p Pos, format string, args ...any) {
	if len(v.errs) < 100 { // enough to fix a query; a flood helps nobody
		v.errs = append(v.errs, errAt(p, format, args...))
	}
}

func (v *validator) checkFragmentCycles() {
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var visit func(f *Fragment, sel []Selection)
	visit = func(f *Fragment, sel []Selection) {
		for _, s := range sel {
			switch s := s.(type) {
			case *Field:
				visit(f, s.Sel)
			case *InlineFragment:
				visit(f, s.Sel)
			case *FragmentSpread:
				g := v.frags[s.Name]
				if g == nil {
					continue // reported where it is used
				}
				switch state[g.Name] {
				case visiting:
					v.errorf(s.Pos, "Cannot spread fragment %q within itself.", g.Name)
				case unseen:
					state[g.Name] = visiting
					visit(g, g.Sel)
					state[g.Name] = done
				}
			}
		}
	}
	for _, f := range v.doc.Fragments {
		if state[f.Name] == unseen {
			state[f.Name] = visiting
			visit(f, f.Sel)
			state[f.Name] = done
		}
	}
}

func (v *validator) operation(op *Operation, usedFrags map[string]bool) {
	var root *Type
	switch op.Kind {
	case "query":
		root = v.e.schema.Query
	case "mutation":
		root = v.e.schema.Mutation
	}
	if root == nil {
		v.errorf(op.Pos, "Schema is not configured for %ss.", op.Kind)
		return
	}
	v.vars, v.usedVars = map[string]*VarDef{}, map[string]bool{}
	for _, d := range op.Vars {
		if v.vars[d.Name] != nil {
			v.errorf(d.Pos, "There can be only one variable named \"$%s\".", d.Name)
		}
		v.vars[d.Name] = d
		nt := v.e.schema.Types[d.Type.Named()]
		if nt == nil || nt.Kind == ObjectKind {
			v.errorf(d.Pos, "Variable \"$%s\" cannot be non-input type %q.", d.Name, d.Type)
			continue
		}
		if d.Default != nil {
			if _, err := v.e.coerce.literal(d.Default, d.Type, nil); err != nil {
				v.errorf(d.Default.Pos, "Variable \"$%s\" has an invalid default value: %v.", d.Name, err)
			}
		}
	}
	v.directives(op.Directives, map[string]string{"query": "QUERY", "mutation": "MUTATION", "subscription": "SUBSCRIPTION"}[op.Kind])
	v.selectionSet(root, op.Sel, usedFrags, map[string]bool{})
	v.fieldsMerge(root, op.Sel)
	for _, d := range op.Vars {
		if !v.usedVars[d.Name] {
			v.errorf(d.Pos, "Variable \"$%s\" is never used.", d.Name)
		}
	}
	if len(v.errs) > 0 {
		return
	}
	lim := v.e.limits
	if depth := v.depth(op.Sel); lim.MaxDepth > 0 && depth > lim.MaxDepth {
		v.errorf(op.Pos, "Query is nested %d levels deep; the limit is %d.", depth, lim.MaxDepth)
	}
	if cost := v.cost(root, op.Sel); lim.MaxCost > 0 && cost > lim.MaxCost {
		v.errorf(op.Pos, "Query costs an estimated %d; the limit is %d (lists count as many items as they may return).", cost, lim.MaxCost)
	}
}

// selectionSet checks the selections on type t. inFrag guards against
// re-walking a fragment within one path (cycles are refused earlier).
func (v *validator) selectionSet(t *Type, sel []Selection, usedFrags map[string]bool, walked map[string]bool) {
	for _, s := range sel {
		switch s := s.(type) {
		case *Field:
			v.field(t, s, usedFrags, walked)
		case *InlineFragment:
			v.directives(s.Directives, "INLINE_FRAGMENT")
			on := t
			if s.On != "" {
				on = v.typeCondition(s.On, s.Pos, t)
				if on == nil {
					continue
				}
			}
			v.selectionSet(on, s.Sel, usedFrags, walked)
		case *FragmentSpread:
			v.directives(s.Directives, "FRAGMENT_SPREAD")
			f := v.frags[s.Name]
			if f == nil {
				v.errorf(s.Pos, "Unknown fragment %q.", s.Name)
				continue
			}
			usedFrags[f.Name] = true
			on := v.typeCondition(f.On, f.Pos, t)
			if on == nil || walked[f.Name] {
				continue
			}
			walked[f.Name] = true
			v.directives(f.Directives, "FRAGMENT_DEFINITION")
			v.selectionSet(on, f.Sel, usedFrags, walked)
		}
	}
}

func (v *validator) typeCondition(name string, p Pos, parent *Type) *Type {
	t := v.e.schema.Types[name]
	switch {
	case t == nil:
		v.errorf(p, "Unknown type %q.", name)
		return nil
	case t.Kind != ObjectKind:
		v.errorf(p, "Fragment cannot condition on non composite type %q.", name)
		return nil
	case t != parent:
		// Without interfaces or unions, two different object types
		// never overlap.
		v.errorf(p, "Fragment cannot be spread here as objects of type %q can never be of type %q.", parent.Name, name)
		return nil
	}
	return t
}

func (v *validator) field(t *Type, f *Field, usedFrags map[string]bool, walked map[string]bool) {
	v.directives(f.Directives, "FIELD")
	def := v.e.fieldDef(t, f.Name)
	if def == nil {
		v.errorf(f.Pos, "Cannot query field %q on type %q.", f.Name, t.Name)
		return
	}
	v.arguments(def.Args, f.Args, f.Pos, fmt.Sprintf("field %q", t.Name+"."+f.Name))
	ft := v.e.schema.Types[def.Type.Named()]
	switch {
	case ft.Kind == ObjectKind && len(f.Sel) == 0:
		v.errorf(f.Pos, "Field %q of type %q must have a selection of subfields. Did you mean \"%s { ... }\"?", f.Name, def.Type, f.Name)
	case ft.Kind != ObjectKind && len(f.Sel) > 0:
		v.errorf(f.Pos, "Field %q must not have a selection since type %q has no subfields.", f.Name, def.Type)
	case ft.Kind == ObjectKind:
		v.selectionSet(ft, f.Sel, usedFrags, walked)
	}
}

func (v *validator) arguments(defs []*InputValue, args []*Argument, p Pos, where string) {
	seen := map[string]bool{}
	for _, a := range args {
		if seen[a.Name] {
			v.errorf(a.Pos, "There can be only one argument named %q.", a.Name)
		}
		seen[a.Name] = true
		d := findInput(defs, a.Name)
		if d == nil {
			v.errorf(a.Pos, "Unknown argument %q on %s.", a.Name, where)
			continue
		}
		v.value(a.Value, d.Type, a.Name)
	}
	for _, d := range defs {
		if d.Type.NonNull && d.Default == nil && !seen[d.Name] {
			v.errorf(p, "Argument %q of type %q is required on %s, but it was not provided.", d.Name, d.Type, where)
		}
	}
}

// value checks a literal against the type it is given for; variables are
// checked for a compatible declared type.
func (v *validator) value(val *Value, t *TypeRef, name string) {
	vars := map[string]any{}
	ok := true
	var walk func(val *Value, t *TypeRef)
	walk = func(val *Value, t *TypeRef) {
		switch val.Kind {
		case VarValue:
			d := v.vars[val.Raw]
			if d == nil {
				v.errorf(val.Pos, "Variable \"$%s\" is not defined.", val.Raw)
				ok = false
				return
			}
			v.usedVars[val.Raw] = true
			if !varFits(d, t) {
				v.errorf(val.Pos, "Variable \"$%s\" of type %q used in position expecting type %q.", val.Raw, d.Type, t)
				ok = false
			}
			vars[val.Raw] = placeholder{}
		case ListValue:
			if t.Elem != nil {
				for _, e := range val.List {
					walk(e, t.Elem)
				}
			}
		case ObjectValue:
			if nt := v.e.schema.Types[t.Named()]; t.Elem == nil && nt != nil && nt.Kind == InputObjectKind {
				for _, f := range val.Fields {
					if fd := findInput(nt.InputFields, f.Name); fd != nil {
						walk(f.Value, fd.Type)
					}
				}
			}
		}
	}
	walk(val, t)
	if !ok {
		return
	}
	if !hasVars(val) {
		if _, err := v.e.coerce.literal(val, t, nil); err != nil {
			v.errorf(val.Pos, "Argument %q has an invalid value %s: %v.", name, val, err)
		}
	}
}

type placeholder struct{}

func hasVars(v *Value) bool {
	switch v.Kind {
	case VarValue:
		return true
	case ListValue:
		for _, e := range v.List {
			if hasVars(e) {
				return true
			}
		}
	case ObjectValue:
		for _, f := range v.Fields {
			if hasVars(f.Value) {
				return true
			}
		}
	}
	return false
}

// varFits reports whether a variable of d's type may stand where t is
// expected: the same named type, at least as strict about null (a
// nullable variable fits a non-null position when it has a default).
func varFits(d *VarDef, t *TypeRef) bool {
	vt := d.Type
	if t.NonNull && !vt.NonNull && d.Default == nil {
		return false
	}
	var fits func(vt, t *TypeRef) bool
	fits = func(vt, t *TypeRef) bool {
		if t.NonNull && !vt.NonNull {
			return false
		}
		if (vt.Elem == nil) != (t.Elem == nil) {
			// A single value fits a list position (input coercion wraps it).
			return t.Elem != nil && fits(vt, t.Elem)
		}
		if vt.Elem != nil {
			return fits(vt.Elem, t.Elem)
		}
		return vt.Name == t.Name
	}
	strip := *vt
	if t.NonNull {
		strip.NonNull = true // checked above
	}
	return fits(&strip, t)
}

func (v *validator) directives(ds []*Directive, loc string) {
	seen := map[string]bool{}
	for _, d := range ds {
		def := v.e.schema.Directive(d.Name)
		if def == nil {
			v.errorf(d.Pos, "Unknown directive \"@%s\".", d.Name)
			continue
		}
		if seen[d.Name] && !def.Repeatable {
			v.errorf(d.Pos, "The directive \"@%s\" can only be used once at this location.", d.Name)
		}
		seen[d.Name] = true
		allowed := false
		for _, l := range def.Locations {
			allowed = allowed || l == loc
		}
		if !allowed {
			v.errorf(d.Pos, "Directive \"@%s\" may not be used on %s.", d.Name, loc)
		}
		v.arguments(def.Args, d.Args, d.Pos, "directive \"@"+d.Name+"\"")
	}
}

// fieldsMerge refuses two selections under one response key that would
// need different values: different fields, or different arguments.
func (v *validator) fieldsMerge(t *Type, sel []Selection) {
	byKey := map[string][]*Field{}
	var order []string
	seen := map[string]bool{} // a fragment spread twice adds the same fields
	var collect func(sel []Selection, depth int)
	collect = func(sel []Selection, depth int) {
		for _, s := range sel {
			switch s := s.(type) {
			case *Field:
				k := s.ResponseKey()
				if byKey[k] == nil {
					order = append(order, k)
				}
				byKey[k] = append(byKey[k], s)
			case *InlineFragment:
				collect(s.Sel, depth)
			case *FragmentSpread:
				if f := v.frags[s.Name]; f != nil && !seen[s.Name] {
					seen[s.Name] = true
					collect(f.Sel, depth+1)
				}
			}
		}
	}
	collect(sel, 0)
	for _, k := range order {
		fs := byKey[k]
		first := fs[0]
		for _, f := range fs[1:] {
			if f.Name != first.Name {
				v.errorf(f.Pos, "Fields %q conflict because %q and %q are different fields. Use different aliases on the fields to fetch both if this was intentional.", k, first.Name, f.Name)
			} else if !sameArgs(first.Args, f.Args) {
				v.errorf(f.Pos, "Fields %q conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional.", k)
			}
		}
		def := v.e.fieldDef(t, first.Name)
		if def == nil {
			continue
		}
		if ft := v.e.schema.Types[def.Type.Named()]; ft.Kind == ObjectKind {
			var merged []Selection
			for _, f := range fs {
				merged = append(merged, f.Sel...)
			}
			v.fieldsMerge(ft, merged)
		}
	}
}

func sameArgs(a, b []*Argument) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if x.Name == y.Name && x.Value.String() == y.Value.String() {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// depth is the nesting of fields below the operation, fragments
// expanded (each fragment is measured once).
func (v *validator) depth(sel []Selection) int {
	max := 0
	for _, s := range sel {
		d := 0
		switch s := s.(type) {
		case *Field:
			d = 1
			if len(s.Sel) > 0 {
				d += v.depth(s.Sel)
			}
		case *InlineFragment:
			d = v.depth(s.Sel)
		case *FragmentSpread:
			f := v.frags[s.Name]
			if dd, ok := v.fragDepth[s.Name]; ok {
				d = dd
			} else {
				d = v.depth(f.Sel)
				v.fragDepth[s.Name] = d
			}
		}
		if d > max {
			max = d
		}
	}
	return max
}

// cost estimates the work of a selection: each field costs 1, and the
// fields below a list cost as often as the list may hold items (see
// Limits.ListSize). Fragments are costed once and reused.
func (v *validator) cost(t *Type, sel []Selection) int {
	total := 0
	for _, s := range sel {
		switch s := s.(type) {
		case *Field:
			total = satAdd(total, 1)
			def := v.e.fieldDef(t, s.Name)
			if def == nil || len(s.Sel) == 0 {
				continue
			}
			ft := v.e.schema.Types[def.Type.Named()]
			n := 1
			if isList(def.Type) {
				n = v.e.listSize(t.Name, s)
			}
			total = satAdd(total, satMul(n, v.cost(ft, s.Sel)))
		case *InlineFragment:
			total = satAdd(total, v.cost(t, s.Sel))
		case *FragmentSpread:
			c, ok := v.fragCost[s.Name]
			if !ok {
				c = v.cost(t, v.frags[s.Name].Sel)
				v.fragCost[s.Name] = c
			}
			total = satAdd(total, c)
		}
	}
	return total
}

func isList(t *TypeRef) bool { return t.Elem != nil }

const costCap = 1 << 40

func satAdd(a, b int) int { return min(a+b, costCap) }
func satMul(a, b int) int {
	if a != 0 && b > costCap/a {
		return costCap
	}
	return min(a*b, costCap)
}

// intArg reads a literal integer argument (an Int or a numeric string)
// for cost estimates; ok is false when it is absent or a variable.
func intArg(f *Field, name string) (int64, bool) {
	for _, a := range f.Args {
		if a.Name != name {
			continue
		}
		switch a.Value.Kind {
		case IntValue, StringValue:
			n, err := strconv.ParseInt(a.Value.Raw, 0, 64)
			return n, err == nil
		}
	}
	return 0, false
}
