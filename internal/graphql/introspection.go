package graphql

import (
	"context"
	"strings"
)

// introspection serves __schema, __type and the __ types over a Schema.
type introspection struct{ s *Schema }

// typeView is a type as introspection shows it: a named type, or a list
// or non-null wrapper of another.
type typeView struct {
	named *Type
	kind  string // "LIST", "NON_NULL" or the named type's kind
	of    *typeView
}

func (in *introspection) named(t *Type) *typeView { return &typeView{named: t, kind: string(t.Kind)} }

func (in *introspection) ref(t *TypeRef) *typeView {
	var inner *typeView
	if t.Elem != nil {
		inner = &typeView{kind: "LIST", of: in.ref(t.Elem)}
	} else {
		inner = in.named(in.s.Types[t.Name])
	}
	if t.NonNull {
		return &typeView{kind: "NON_NULL", of: inner}
	}
	return inner
}

func (in *introspection) root(field string, args map[string]any) (any, error) {
	if field == "__schema" {
		return in.s, nil
	}
	t := in.s.Types[args["name"].(string)]
	if t == nil {
		return nil, nil
	}
	return in.named(t), nil
}

func hidden(name string) bool { return strings.HasPrefix(name, "__") }

func includeDeprecated(args map[string]any) bool {
	b, _ := args["includeDeprecated"].(bool)
	return b
}

func strOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type fieldView struct {
	in *introspection
	f  *FieldDef
}

type inputView struct {
	in *introspection
	v  *InputValue
}

func (in *introspection) inputs(list []*InputValue) []*inputView {
	out := make([]*inputView, len(list))
	for i, v := range list {
		out[i] = &inputView{in, v}
	}
	return out
}

func (in *introspection) resolvers() map[string]map[string]Resolver {
	return map[string]map[string]Resolver{
		"__Schema": {
			"description": func(_ context.Context, p any, _ map[string]any) (any, error) { return strOrNil(p.(*Schema).Desc), nil },
			"types": func(_ context.Context, p any, _ map[string]any) (any, error) {
				s := p.(*Schema)
				out := make([]*typeView, 0, len(s.Order))
				for _, n := range s.Order {
					out = append(out, in.named(s.Types[n]))
				}
				return out, nil
			},
			"queryType": func(_ context.Context, p any, _ map[string]any) (any, error) { return in.named(p.(*Schema).Query), nil },
			"mutationType": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if m := p.(*Schema).Mutation; m != nil {
					return in.named(m), nil
				}
				return nil, nil
			},
			"subscriptionType": func(context.Context, any, map[string]any) (any, error) { return nil, nil },
			"directives":       func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*Schema).Directives, nil },
		},
		"__Type": {
			"kind": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*typeView).kind, nil },
			"name": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if t := p.(*typeView).named; t != nil {
					return t.Name, nil
				}
				return nil, nil
			},
			"description": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if t := p.(*typeView).named; t != nil {
					return strOrNil(t.Desc), nil
				}
				return nil, nil
			},
			"specifiedByURL": func(context.Context, any, map[string]any) (any, error) { return nil, nil },
			"fields": func(_ context.Context, p any, args map[string]any) (any, error) {
				t := p.(*typeView).named
				if t == nil || t.Kind != ObjectKind {
					return nil, nil
				}
				out := []*fieldView{}
				for _, f := range t.Fields {
					if f.Deprecated != nil && !includeDeprecated(args) {
						continue
					}
					out = append(out, &fieldView{in, f})
				}
				return out, nil
			},
			"interfaces": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if t := p.(*typeView).named; t != nil && t.Kind == ObjectKind {
					return []*typeView{}, nil
				}
				return nil, nil
			},
			"possibleTypes": func(context.Context, any, map[string]any) (any, error) { return nil, nil },
			"enumValues": func(_ context.Context, p any, args map[string]any) (any, error) {
				t := p.(*typeView).named
				if t == nil || t.Kind != EnumKind {
					return nil, nil
				}
				out := []*EnumValueDef{}
				for _, v := range t.EnumValues {
					if v.Deprecated == nil || includeDeprecated(args) {
						out = append(out, v)
					}
				}
				return out, nil
			},
			"inputFields": func(_ context.Context, p any, _ map[string]any) (any, error) {
				t := p.(*typeView).named
				if t == nil || t.Kind != InputObjectKind {
					return nil, nil
				}
				return in.inputs(t.InputFields), nil
			},
			"ofType": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if of := p.(*typeView).of; of != nil {
					return of, nil
				}
				return nil, nil
			},
			"isOneOf": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if t := p.(*typeView).named; t != nil && t.Kind == InputObjectKind {
					return false, nil
				}
				return nil, nil
			},
		},
		"__Field": {
			"name": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*fieldView).f.Name, nil },
			"description": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return strOrNil(p.(*fieldView).f.Desc), nil
			},
			"args": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return in.inputs(p.(*fieldView).f.Args), nil
			},
			"type": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return in.ref(p.(*fieldView).f.Type), nil
			},
			"isDeprecated": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return p.(*fieldView).f.Deprecated != nil, nil
			},
			"deprecationReason": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if r := p.(*fieldView).f.Deprecated; r != nil {
					return *r, nil
				}
				return nil, nil
			},
		},
		"__InputValue": {
			"name": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*inputView).v.Name, nil },
			"description": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return strOrNil(p.(*inputView).v.Desc), nil
			},
			"type": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return in.ref(p.(*inputView).v.Type), nil
			},
			"defaultValue": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if d := p.(*inputView).v.Default; d != nil {
					return d.String(), nil
				}
				return nil, nil
			},
			"isDeprecated":      func(context.Context, any, map[string]any) (any, error) { return false, nil },
			"deprecationReason": func(context.Context, any, map[string]any) (any, error) { return nil, nil },
		},
		"__EnumValue": {
			"name": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*EnumValueDef).Name, nil },
			"description": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return strOrNil(p.(*EnumValueDef).Desc), nil
			},
			"isDeprecated": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return p.(*EnumValueDef).Deprecated != nil, nil
			},
			"deprecationReason": func(_ context.Context, p any, _ map[string]any) (any, error) {
				if r := p.(*EnumValueDef).Deprecated; r != nil {
					return *r, nil
				}
				return nil, nil
			},
		},
		"__Directive": {
			"name": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*DirectiveDef).Name, nil },
			"description": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return strOrNil(p.(*DirectiveDef).Desc), nil
			},
			"isRepeatable": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return p.(*DirectiveDef).Repeatable, nil
			},
			"locations": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*DirectiveDef).Locations, nil },
			"args": func(_ context.Context, p any, _ map[string]any) (any, error) {
				return in.inputs(p.(*DirectiveDef).Args), nil
			},
		},
	}
}
