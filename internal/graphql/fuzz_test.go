package graphql

import (
	"context"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and, when it parses, to
// validation and execution on a small schema: nothing may panic, hang or
// answer without either data or an error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{ books { title } }`,
		`query Q($g: Genre = FICTION, $n: Int) { books(filter: {genre: $g}, first: $n) @skip(if: false) { ...F ... on Book { pages } } } fragment F on Book { title author { name } }`,
		`mutation { add(title: "x") { title } }`,
		"{ echo(s: \"\"\"block\n string\"\"\", n: [1, 2]) }",
		`{ __schema { types { name fields { name } } } }`,
		`{ a: book(title: "\u00e9\n") { title } }`,
		`# comment only`,
		`{ books(first: -1.5e3) { title } }`,
	} {
		f.Add(s)
	}
	e := newTestEngine(f, Limits{MaxDepth: 10, MaxCost: 10_000, MaxValues: 10_000})
	f.Fuzz(func(t *testing.T, q string) {
		doc, err := Parse(q)
		if err != nil {
			if doc != nil {
				t.Fatal("a document and an error")
			}
			return
		}
		resp := e.Execute(context.Background(), &Request{Query: q})
		if resp.Data == nil && len(resp.Errors) == 0 {
			t.Fatalf("no data and no error for %q", q)
		}
	})
}
