package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// testSchema is a small library: books with authors, a list to cost and
// a field that blocks until its context ends.
const testSchema = `
schema { query: Query mutation: Mutation }
enum Genre { FICTION HISTORY }
input BookFilter { genre: Genre, minPages: Int = 0 }
type Author { name: String! books: [Book!]! }
type Book { title: String! pages: Int genre: Genre! author: Author! note: String! }
type Query {
  books(filter: BookFilter, first: Int): [Book!]!
  book(title: String!): Book
  slow: String
  echo(s: String = "default", n: [Int!]): String!
}
type Mutation { add(title: String!): Book! }
`

type book struct {
	title string
	pages int
	genre string
	auth  *author
}

type author struct {
	name  string
	books []*book
}

func newTestEngine(t testing.TB, lim Limits) *Engine {
	t.Helper()
	s, err := ParseSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	ann := &author{name: "Ann"}
	ann.books = []*book{{"Alpha", 100, "FICTION", ann}, {"Beta", 300, "HISTORY", ann}}
	lib := ann.books
	rs := map[string]map[string]Resolver{
		"Query": {
			"books": func(_ context.Context, _ any, args map[string]any) (any, error) {
				var out []*book
				f, _ := args["filter"].(map[string]any)
				for _, b := range lib {
					if g, ok := f["genre"].(string); ok && b.genre != g {
						continue
					}
					if m, ok := f["minPages"].(int); ok && b.pages < m {
						continue
					}
					out = append(out, b)
				}
				if n, ok := args["first"].(int); ok && n < len(out) {
					out = out[:n]
				}
				return out, nil
			},
			"book": func(_ context.Context, _ any, args map[string]any) (any, error) {
				for _, b := range lib {
					if b.title == args["title"] {
						return b, nil
					}
				}
				return nil, errors.New("no such book")
			},
			"slow": func(ctx context.Context, _ any, _ map[string]any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
			"echo": func(_ context.Context, _ any, args map[string]any) (any, error) {
				b, _ := json.Marshal(args)
				return string(b), nil
			},
		},
		"Mutation": {"add": func(_ context.Context, _ any, args map[string]any) (any, error) {
			b := &book{title: args["title"].(string), genre: "FICTION", auth: ann}
			lib = append(lib, b)
			return b, nil
		}},
		"Book": {
			"title":  func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*book).title, nil },
			"pages":  func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*book).pages, nil },
			"genre":  func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*book).genre, nil },
			"author": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*book).auth, nil },
			"note":   func(context.Context, any, map[string]any) (any, error) { return nil, errors.New("note failed") },
		},
		"Author": {
			"name":  func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*author).name, nil },
			"books": func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*author).books, nil },
		},
	}
	e, err := NewEngine(s, nil, rs, lim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func run(e *Engine, q string, vars string) (string, []*Error) {
	req := &Request{Query: q}
	if vars != "" {
		if err := json.Unmarshal([]byte(vars), &req.Variables); err != nil {
			panic(err)
		}
	}
	resp := e.Execute(context.Background(), req)
	return string(resp.Data), resp.Errors
}

func TestExecute(t *testing.T) {
	e := newTestEngine(t, Limits{})
	for _, tc := range []struct {
		name, query, vars, want string
	}{
		{"shorthand", `{ books { title } }`, "", `{"books":[{"title":"Alpha"},{"title":"Beta"}]}`},
		{"alias and args", `{ a: book(title: "Beta") { t: title pages } }`, "", `{"a":{"t":"Beta","pages":300}}`},
		{"input object with enum and default", `{ books(filter: {genre: HISTORY}) { title } }`, "", `{"books":[{"title":"Beta"}]}`},
		{"variables", `query Q($g: Genre, $n: Int = 1) { books(filter: {genre: $g}, first: $n) { title } }`, `{"g":"FICTION"}`, `{"books":[{"title":"Alpha"}]}`},
		{"variable default used", `query Q($n: Int = 1) { books(first: $n) { title } }`, "", `{"books":[{"title":"Alpha"}]}`},
		{"fragments merge in order", `{ books(first: 1) { ...F title ... on Book { pages } } } fragment F on Book { genre title }`, "", `{"books":[{"genre":"FICTION","title":"Alpha","pages":100}]}`},
		{"skip and include", `query($x: Boolean!) { books(first: 1) { title @skip(if: true) pages @include(if: $x) genre @include(if: false) } }`, `{"x":true}`, `{"books":[{"pages":100}]}`},
		{"typename", `{ __typename books(first: 1) { __typename } }`, "", `{"__typename":"Query","books":[{"__typename":"Book"}]}`},
		{"nested lists", `{ book(title: "Alpha") { author { name books { title } } } }`, "", `{"book":{"author":{"name":"Ann","books":[{"title":"Alpha"},{"title":"Beta"}]}}}`},
		{"argument defaults", `{ echo }`, "", `{"echo":"{\"s\":\"default\"}"}`},
		{"single value for a list", `{ echo(n: 3) }`, "", `{"echo":"{\"n\":[3],\"s\":\"default\"}"}`},
		{"block string", "{ echo(s: \"\"\"\n    a\n      b\n  \"\"\") }", "", `{"echo":"{\"s\":\"a\\n  b\"}"}`},
		{"mutation", `mutation { add(title: "Gamma") { title genre } }`, "", `{"add":{"title":"Gamma","genre":"FICTION"}}`},
	} {
		got, errs := run(e, tc.query, tc.vars)
		if len(errs) > 0 {
			t.Errorf("%s: errors %v", tc.name, errs[0])
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
	}
}

func TestNullPropagation(t *testing.T) {
	e := newTestEngine(t, Limits{})
	// note is String!: its error nulls the Book, which is nullable.
	got, errs := run(e, `{ book(title: "Alpha") { title note } }`, "")
	if got != `{"book":null}` || len(errs) != 1 || errs[0].Message != "note failed" {
		t.Fatalf("got %s %v", got, errs)
	}
	if p, _ := json.Marshal(errs[0].Path); string(p) != `["book","note"]` {
		t.Errorf("path %s", p)
	}
	// Inside a [Book!]! the null climbs to the root.
	got, errs = run(e, `{ books { note } }`, "")
	if got != "null" || len(errs) == 0 {
		t.Fatalf("got %s %v", got, errs)
	}
	// A nullable field's error leaves the rest.
	got, errs = run(e, `{ book(title: "none") { title } books(first: 1) { title } }`, "")
	if got != `{"book":null,"books":[{"title":"Alpha"}]}` || len(errs) != 1 {
		t.Fatalf("got %s %v", got, errs)
	}
}

func TestValidationErrors(t *testing.T) {
	e := newTestEngine(t, Limits{})
	for _, tc := range []struct {
		query, want string
		line, col   int
	}{
		{`{ books { titel } }`, `Cannot query field "titel" on type "Book".`, 1, 11},
		{"{\n  book { title }\n}", `Argument "title" of type "String!" is required`, 2, 3},
		{`{ books }`, `must have a selection of subfields`, 1, 3},
		{`{ slow { x } }`, `must not have a selection`, 1, 3},
		{`{ book(title: 3) { title } }`, `Argument "title" has an invalid value`, 1, 15},
		{`{ books(filter: {genre: POETRY}) { title } }`, `enum Genre has no value POETRY`, 1, 17},
		{`{ books(filter: {pages: 1}) { title } }`, `has no field pages`, 1, 17},
		{`{ book(title: "A", title: "B") { title } }`, `only one argument named "title"`, 1, 20},
		{`query($t: String!) { book(title: $u) { title } }`, `Variable "$u" is not defined`, 1, 34},
		{`query($t: String) { book(title: $t) { title } }`, `of type "String" used in position expecting type "String!"`, 1, 33},
		{`query($t: String!) { books { title } }`, `Variable "$t" is never used`, 1, 7},
		{`query($t: Book) { books { title } }`, `cannot be non-input type`, 1, 7},
		{`{ books { ...F } }`, `Unknown fragment "F"`, 1, 11},
		{`{ books { title } } fragment F on Book { title }`, `Fragment "F" is never used`, 1, 21},
		{`{ books { ...F } } fragment F on Book { ...G } fragment G on Book { ...F }`, `within itself`, 1, 69},
		{`{ books { ... on Author { name } } }`, `can never be of type "Author"`, 1, 11},
		{`{ books { ... on Nope { name } } }`, `Unknown type "Nope"`, 1, 11},
		{`{ books { title @nope } }`, `Unknown directive "@nope"`, 1, 17},
		{`{ books { title @skip } }`, `Argument "if" of type "Boolean!" is required`, 1, 17},
		{`query @skip(if: true) { books { title } }`, `may not be used on QUERY`, 1, 7},
		{`{ books { t: title t: pages } }`, `"t" conflict because "title" and "pages" are different fields`, 1, 20},
		{`{ a: book(title: "A") { title } a: book(title: "B") { title } }`, `differing arguments`, 1, 33},
		{`query A { books { title } } query A { books { title } }`, `only one operation named "A"`, 1, 29},
		{`{ books { title } } query B { books { title } }`, `anonymous operation must be the only`, 1, 1},
		{`subscription { books { title } }`, `not configured for subscriptions`, 1, 1},
		{`{ books { title }`, `Syntax Error: expected a name, found end of document`, 1, 18},
		{`{ books(first: 01) { title } }`, `Syntax Error: invalid number: leading zero`, 1, 16},
		{`{ echo(s: "unterminated) }`, `Syntax Error: unterminated string`, 1, 11},
	} {
		_, errs := run(e, tc.query, "")
		if len(errs) == 0 {
			t.Errorf("%q: no error, want %q", tc.query, tc.want)
			continue
		}
		if !strings.Contains(errs[0].Message, tc.want) {
			t.Errorf("%q: error %q, want %q", tc.query, errs[0].Message, tc.want)
			continue
		}
		if len(errs[0].Locations) == 0 || errs[0].Locations[0] != (Pos{tc.line, tc.col}) {
			t.Errorf("%q: locations %v, want %d:%d", tc.query, errs[0].Locations, tc.line, tc.col)
		}
	}
}

func TestVariableErrors(t *testing.T) {
	e := newTestEngine(t, Limits{})
	for _, tc := range []struct{ query, vars, want string }{
		{`query($t: String!) { book(title: $t) { title } }`, ``, `of required type "String!" was not provided`},
		{`query($g: Genre) { books(filter: {genre: $g}) { title } }`, `{"g":"POETRY"}`, `got invalid value`},
		{`query($n: Int) { books(first: $n) { title } }`, `{"n":"7"}`, `Int cannot represent`},
		{`query($n: Int) { books(first: $n) { title } }`, `{"n":3000000000}`, `not a 32-bit integer`},
		{`query($f: BookFilter) { books(filter: $f) { title } }`, `{"f":{"nope":1}}`, `has no field nope`},
	} {
		_, errs := run(e, tc.query, tc.vars)
		if len(errs) == 0 || !strings.Contains(errs[0].Message, tc.want) {
			t.Errorf("%s %s: errors %v, want %q", tc.query, tc.vars, errs, tc.want)
		}
	}
}

func TestOperationName(t *testing.T) {
	e := newTestEngine(t, Limits{})
	q := `query A { books(first: 1) { title } } query B { book(title: "Beta") { pages } }`
	resp := e.Execute(context.Background(), &Request{Query: q, OperationName: "B"})
	if string(resp.Data) != `{"book":{"pages":300}}` {
		t.Fatalf("B: %s %v", resp.Data, resp.Errors)
	}
	resp = e.Execute(context.Background(), &Request{Query: q})
	if len(resp.Errors) == 0 || !strings.Contains(resp.Errors[0].Message, "operation name") {
		t.Fatalf("no name: %v", resp.Errors)
	}
}

func TestLimits(t *testing.T) {
	e := newTestEngine(t, Limits{MaxDepth: 5, MaxCost: 2000, Timeout: 50 * time.Millisecond, MaxValues: 10_000})
	deep := "{ books { author { books { author { books { title } } } } } }"
	if _, errs := run(e, deep, ""); len(errs) == 0 || !strings.Contains(errs[0].Message, "nested 6 levels deep") {
		t.Errorf("deep: %v", errs)
	}
	// Each list multiplies what is below it by 10: 10*(1+10*(1+10*(1+10*2))).
	wide := "{ books { author { books { author { title: name } } } } }"
	if _, errs := run(e, wide, ""); len(errs) != 0 {
		t.Errorf("within limits: %v", errs)
	}
	var many strings.Builder
	many.WriteString("{ books { ")
	for i := 0; i < 300; i++ {
		many.WriteString("t")
		many.WriteString(strings.Repeat("x", i%7+1))
		many.WriteString(": title ")
	}
	many.WriteString("} }")
	if _, errs := run(e, many.String(), ""); len(errs) == 0 || !strings.Contains(errs[0].Message, "estimated") {
		t.Errorf("wide: %v", errs)
	}
	// Fragments that double at every level would be exponential to
	// expand; their cost is computed once per fragment and saturates.
	var frag strings.Builder
	frag.WriteString("{ books { ...F0 } }")
	for i := 0; i < 40; i++ {
		frag.WriteString(" fragment F" + itoa(i) + " on Book { author { books { ...F" + itoa(i+1) + " ...F" + itoa(i+1) + " } } }")
	}
	frag.WriteString(" fragment F40 on Book { title }")
	done := make(chan []*Error)
	go func() { _, errs := run(e, frag.String(), ""); done <- errs }()
	select {
	case errs := <-done:
		if len(errs) == 0 {
			t.Error("exponential fragments: no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("exponential fragments: no answer")
	}
	if data, errs := run(e, "{ slow }", ""); data != "null" || len(errs) != 1 || !strings.Contains(errs[0].Message, "time limit") {
		// slow's own error comes first; the next field sees the deadline.
		if len(errs) == 0 || !strings.Contains(errs[0].Message, "deadline") {
			t.Errorf("slow: %s %v", data, errs)
		}
	}
	if _, errs := run(e, "{ slow books { title } }", ""); len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Message, "time limit") {
		t.Errorf("slow then more: %v", errs)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestParserRefusesDeepNesting(t *testing.T) {
	for _, q := range []string{
		strings.Repeat("{ a ", 100) + strings.Repeat("}", 100),
		"{ a(x: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + ") }",
		"{ a(x: " + strings.Repeat("{b: ", 100) + "1" + strings.Repeat("}", 100) + ") }",
	} {
		if _, err := Parse(q); err == nil || !strings.Contains(err.Error(), "nested deeper") {
			t.Errorf("%.20s…: %v", q, err)
		}
	}
	if _, err := Parse("{" + strings.Repeat(" a", maxTokens) + "}"); err == nil || !strings.Contains(err.Error(), "tokens") {
		t.Errorf("huge: %v", err)
	}
}

func TestIntrospection(t *testing.T) {
	e := newTestEngine(t, Limits{})
	got, errs := run(e, `{ __type(name: "BookFilter") { kind name inputFields { name defaultValue type { kind name ofType { name } } } }
	  __schema { queryType { name } mutationType { name } subscriptionType { name } directives { name locations } } }`, "")
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	want := `{"__type":{"kind":"INPUT_OBJECT","name":"BookFilter","inputFields":[{"name":"genre","defaultValue":null,"type":{"kind":"ENUM","name":"Genre","ofType":null}},{"name":"minPages","defaultValue":"0","type":{"kind":"SCALAR","name":"Int","ofType":null}}]},` +
		`"__schema":{"queryType":{"name":"Query"},"mutationType":{"name":"Mutation"},"subscriptionType":null,"directives":[{"name":"include","locations":["FIELD","FRAGMENT_SPREAD","INLINE_FRAGMENT"]},{"name":"skip","locations":["FIELD","FRAGMENT_SPREAD","INLINE_FRAGMENT"]},{"name":"deprecated","locations":["FIELD_DEFINITION","ARGUMENT_DEFINITION","INPUT_FIELD_DEFINITION","ENUM_VALUE"]}]}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got, _ = run(e, `{ __type(name: "Author") { fields { name type { kind ofType { kind ofType { kind ofType { name } } } } } } }`, "")
	if !strings.Contains(got, `{"name":"books","type":{"kind":"NON_NULL","ofType":{"kind":"LIST","ofType":{"kind":"NON_NULL","ofType":{"name":"Book"}}}}}`) {
		t.Errorf("wrappers: %s", got)
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, tc := range []struct{ sdl, want string }{
		{`type Query { a: Nope }`, "unknown type Nope"},
		{`input I { x: Int } type Query { a: I }`, "cannot be used here"},
		{`type Q { a: Int } type Q { b: Int } type Query { a: Int }`, "declared twice"},
		{`type Foo { a: Int }`, "no Query object type"},
		{`schema { query: Foo } scalar Foo`, "not an object type"},
	} {
		if _, err := ParseSchema(tc.sdl); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.sdl, err, tc.want)
		}
	}
	s, _ := ParseSchema(`type Query { a: Int }`)
	if _, err := NewEngine(s, nil, nil, Limits{}); err == nil || !strings.Contains(err.Error(), "Query.a has no resolver") {
		t.Errorf("missing resolver: %v", err)
	}
}

func TestDocumentCache(t *testing.T) {
	e := newTestEngine(t, Limits{})
	q := `query($n: Int) { books(first: $n) { title } }`
	for i, want := range []string{`{"books":[{"title":"Alpha"}]}`, `{"books":[{"title":"Alpha"},{"title":"Beta"}]}`} {
		got, errs := run(e, q, `{"n":`+itoa(i+1)+`}`)
		if len(errs) > 0 || got != want {
			t.Fatalf("run %d: %s %v", i, got, errs)
		}
	}
	if len(e.docs.docs) != 1 {
		t.Fatalf("%d cached documents, want 1", len(e.docs.docs))
	}
	// Invalid documents are not kept; the cache stays bounded.
	run(e, `{ nope }`, "")
	for i := 0; i < docCacheSize+10; i++ {
		run(e, `{ books(first: `+itoa(i)+`) { title } }`, "")
	}
	if len(e.docs.docs) != docCacheSize || len(e.docs.order) != docCacheSize {
		t.Fatalf("cache holds %d documents (%d in order), want %d", len(e.docs.docs), len(e.docs.order), docCacheSize)
	}
}
