package graphql

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Scalar says how a scalar type reads its input and writes its output.
type Scalar struct {
	// Literal reads a value written in the query.
	Literal func(v *Value) (any, error)
	// Input reads a value of a JSON variable (numbers are json.Number).
	Input func(x any) (any, error)
	// Output turns what a resolver returned into a JSON value.
	Output func(x any) (any, error)
}

var builtinScalars = map[string]*Scalar{
	"Int": {
		Literal: func(v *Value) (any, error) {
			if v.Kind != IntValue {
				return nil, fmt.Errorf("Int cannot represent %s", v)
			}
			return parseInt32(v.Raw)
		},
		Input: func(x any) (any, error) {
			n, ok := x.(json.Number)
			if !ok {
				return nil, fmt.Errorf("Int cannot represent %v", x)
			}
			return parseInt32(n.String())
		},
		Output: func(x any) (any, error) {
			switch n := x.(type) {
			case int:
				return n, nil
			case int32:
				return n, nil
			}
			return nil, fmt.Errorf("Int cannot represent %v", x)
		},
	},
	"Float": {
		Literal: func(v *Value) (any, error) {
			if v.Kind != IntValue && v.Kind != FloatValue {
				return nil, fmt.Errorf("Float cannot represent %s", v)
			}
			return strconv.ParseFloat(v.Raw, 64)
		},
		Input: func(x any) (any, error) {
			n, ok := x.(json.Number)
			if !ok {
				return nil, fmt.Errorf("Float cannot represent %v", x)
			}
			return n.Float64()
		},
		Output: func(x any) (any, error) {
			if f, ok := x.(float64); ok && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f, nil
			}
			return nil, fmt.Errorf("Float cannot represent %v", x)
		},
	},
	"String": stringScalar("String"),
	"ID":     stringScalar("ID"),
	"Boolean": {
		Literal: func(v *Value) (any, error) {
			if v.Kind != BoolValue {
				return nil, fmt.Errorf("Boolean cannot represent %s", v)
			}
			return v.Raw == "true", nil
		},
		Input: func(x any) (any, error) {
			b, ok := x.(bool)
			if !ok {
				return nil, fmt.Errorf("Boolean cannot represent %v", x)
			}
			return b, nil
		},
		Output: func(x any) (any, error) {
			b, ok := x.(bool)
			if !ok {
				return nil, fmt.Errorf("Boolean cannot represent %v", x)
			}
			return b, nil
		},
	},
}

func stringScalar(name string) *Scalar {
	return &Scalar{
		Literal: func(v *Value) (any, error) {
			if v.Kind != StringValue && !(name == "ID" && v.Kind == IntValue) {
				return nil, fmt.Errorf("%s cannot represent %s", name, v)
			}
			return v.Raw, nil
		},
		Input: func(x any) (any, error) {
			switch s := x.(type) {
			case string:
				return s, nil
			case json.Number:
				if name == "ID" {
					return s.String(), nil
				}
			}
			return nil, fmt.Errorf("%s cannot represent %v", name, x)
		},
		Output: func(x any) (any, error) {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s cannot represent %v", name, x)
			}
			return s, nil
		},
	}
}

func parseInt32(s string) (any, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("Int cannot represent %s: not a 32-bit integer", s)
	}
	return int(n), nil
}

// coercer turns literals and JSON variables into the Go values resolvers
// receive: scalars as their Scalar reads them, enums as strings, input
// objects as map[string]any, lists as []any. An absent value is left out
// of its map; null is nil.
type coercer struct {
	schema  *Schema
	scalars map[string]*Scalar
}

func (c *coercer) literal(v *Value, t *TypeRef, vars map[string]any) (any, error) {
	if v.Kind == VarValue {
		x, ok := vars[v.Raw]
		if !ok || x == nil {
			if t.NonNull {
				return nil, fmt.Errorf("variable $%s of non-null type %s is not given", v.Raw, t)
			}
			return nil, nil
		}
		return x, nil
	}
	if v.Kind == NullValue {
		if t.NonNull {
			return nil, fmt.Errorf("null given for non-null type %s", t)
		}
		return nil, nil
	}
	if t.Elem != nil {
		if v.Kind != ListValue {
			x, err := c.literal(v, t.Elem, vars)
			if err != nil {
				return nil, err
			}
			return []any{x}, nil
		}
		out := make([]any, 0, len(v.List))
		for i, e := range v.List {
			x, err := c.literal(e, t.Elem, vars)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, x)
		}
		return out, nil
	}
	nt := c.schema.Types[t.Name]
	switch nt.Kind {
	case ScalarKind:
		return c.scalars[nt.Name].Literal(v)
	case EnumKind:
		if v.Kind != EnumValue || !hasEnum(nt, v.Raw) {
			return nil, fmt.Errorf("enum %s has no value %s", nt.Name, v)
		}
		return v.Raw, nil
	case InputObjectKind:
		if v.Kind != ObjectValue {
			return nil, fmt.Errorf("%s must be an input object, found %s", nt.Name, v)
		}
		given := map[string]*Value{}
		for _, f := range v.Fields {
			if given[f.Name] != nil {
				return nil, fmt.Errorf("field %s given twice", f.Name)
			}
			if findInput(nt.InputFields, f.Name) == nil {
				return nil, fmt.Errorf("input type %s has no field %s", nt.Name, f.Name)
			}
			given[f.Name] = f.Value
		}
		out := map[string]any{}
		for _, f := range nt.InputFields {
			gv := given[f.Name]
			if gv != nil && gv.Kind == VarValue {
				if _, ok := vars[gv.Raw]; !ok {
					gv = nil // an absent variable leaves the field absent
				}
			}
			if gv == nil {
				gv = f.Default
			}
			if gv == nil {
				if f.Type.NonNull {
					return nil, fmt.Errorf("input type %s needs field %s", nt.Name, f.Name)
				}
				continue
			}
			x, err := c.literal(gv, f.Type, vars)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			out[f.Name] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s is not an input type", nt.Name)
}

func hasEnum(t *Type, name string) bool {
	for _, e := range t.EnumValues {
		if e.Name == name {
			return true
		}
	}
	return false
}

// input coerces a JSON variable value.
func (c *coercer) input(x any, t *TypeRef) (any, error) {
	if x == nil {
		if t.NonNull {
			return nil, fmt.Errorf("null given for non-null type %s", t)
		}
		return nil, nil
	}
	if t.Elem != nil {
		list, ok := x.([]any)
		if !ok {
			e, err := c.input(x, t.Elem)
			if err != nil {
				return nil, err
			}
			return []any{e}, nil
		}
		out := make([]any, 0, len(list))
		for i, e := range list {
			v, err := c.input(e, t.Elem)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, v)
		}
		return out, nil
	}
	nt := c.schema.Types[t.Name]
	switch nt.Kind {
	case ScalarKind:
		return c.scalars[nt.Name].Input(x)
	case EnumKind:
		s, ok := x.(string)
		if !ok || !hasEnum(nt, s) {
			return nil, fmt.Errorf("enum %s has no value %v", nt.Name, x)
		}
		return s, nil
	case InputObjectKind:
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s must be an object", nt.Name)
		}
		for k := range m {
			if findInput(nt.InputFields, k) == nil {
				return nil, fmt.Errorf("input type %s has no field %s", nt.Name, k)
			}
		}
		out := map[string]any{}
		for _, f := range nt.InputFields {
			v, ok := m[f.Name]
			if !ok {
				if f.Default != nil {
					d, err := c.literal(f.Default, f.Type, nil)
					if err != nil {
						return nil, err
					}
					out[f.Name] = d
				} else if f.Type.NonNull {
					return nil, fmt.Errorf("input type %s needs field %s", nt.Name, f.Name)
				}
				continue
			}
			cv, err := c.input(v, f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			out[f.Name] = cv
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s is not an input type", nt.Name)
}
