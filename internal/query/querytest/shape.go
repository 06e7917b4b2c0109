package querytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The golden tests compare chaind's JSON answers with recordings of
// another chain's node — the Cosmos SDK's here (sdkgold.go), CometBFT's in
// cometrpc — where values differ but the keys at every level, the JSON
// types and the kinds of string must not. Shape is that walk, once; each
// recording says how its strings compare and which objects it reads its
// own way.

// Difference is one place where chaind's answer differs from a
// recording's.
type Difference struct{ Path, What string }

// Shape is one kind of recording.
type Shape struct {
	// Them names the recording's node in differences ("the SDK").
	Them string
	// String compares a string of the recording (want) with chaind's at
	// path: what differs, or "" when nothing does.
	String func(path, want, got string) string
	// Object, when set, is asked first about each pair of objects: the
	// differences it finds, and whether that is all (done) or the keys
	// are to be compared as well.
	Object func(path string, want, got map[string]any) (out []Difference, done bool)
}

// Diff walks want (the recording's answer) and got (chaind's), both
// decoded with DecodeJSON, side by side.
func (s Shape) Diff(path string, want, got any) []Difference {
	diff := func(format string, a ...any) []Difference {
		return []Difference{{path, fmt.Sprintf(format, a...)}}
	}
	if want == nil || got == nil {
		if want == nil && got == nil {
			return nil
		}
		return diff("%s answers %s, chaind %s", s.Them, jsonKind(want), jsonKind(got))
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return diff("%s answers an object, chaind %s", s.Them, jsonKind(got))
		}
		var out []Difference
		if s.Object != nil {
			var done bool
			if out, done = s.Object(path, w, g); done {
				return out
			}
		}
		for _, k := range slices.Sorted(mapKeys(w)) {
			gv, ok := g[k]
			if !ok {
				out = append(out, Difference{Join(path, k), "missing (" + s.Them + " answers " + jsonKind(w[k]) + ")"})
				continue
			}
			out = append(out, s.Diff(Join(path, k), w[k], gv)...)
		}
		for _, k := range slices.Sorted(mapKeys(g)) {
			if _, ok := w[k]; !ok {
				out = append(out, Difference{Join(path, k), "not in " + s.Them + "'s answer"})
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return diff("%s answers an array, chaind %s", s.Them, jsonKind(got))
		}
		// Another chain's lists hold other values: each element chaind
		// gives is compared with the recording's of the same index, or
		// its last.
		var out []Difference
		for i := range g {
			if len(w) == 0 {
				break
			}
			out = append(out, s.Diff(path+"[]", w[min(i, len(w)-1)], g[i])...)
		}
		return dedupe(out)
	case string:
		gs, ok := got.(string)
		if !ok {
			return diff("%s answers a string (%.40q), chaind %s", s.Them, w, jsonKind(got))
		}
		if strings.Contains(path, ".attributes[]") {
			return nil // an event attribute's key and value are the application's text
		}
		if what := s.String(path, w, gs); what != "" {
			return diff("%s", what)
		}
		return nil
	case json.Number:
		if _, ok := got.(json.Number); !ok {
			return diff("%s answers a number (%s), chaind %s", s.Them, w, jsonKind(got))
		}
		return nil
	case bool:
		if _, ok := got.(bool); !ok {
			return diff("%s answers a boolean, chaind %s", s.Them, jsonKind(got))
		}
		return nil
	}
	return diff("unexpected %T", want)
}

// MatchKept finds the entry of kept (a list of differences a test keeps,
// with their reasons) for a difference at path of case name: an entry is
// prefix + "case path", where case may be "*" (every case) and path may
// start with "..." (any path ending so).
func MatchKept(kept map[string]string, prefix, name, path string) (string, bool) {
	for k := range kept {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		c, p, _ := strings.Cut(rest, " ")
		if c != "*" && c != name {
			continue
		}
		if p == path || (strings.HasPrefix(p, "...") && strings.HasSuffix(path, p[3:])) {
			return k, true
		}
	}
	return "", false
}

// DecodeJSON decodes a JSON document with numbers kept as json.Number.
func DecodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func dedupe(ds []Difference) []Difference {
	seen := map[Difference]bool{}
	var out []Difference
	for _, d := range ds {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Join is path.k, or k at the top.
func Join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return fmt.Sprintf("a string (%.40q)", x)
	case json.Number:
		return "a number (" + x.String() + ")"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
