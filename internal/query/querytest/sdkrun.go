package querytest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
)

// SDKTransport is one of chaind's transports under the SDK goldens (lcd's
// and grpcsrv's TestSDKGoldens): which goldens it answers, which methods
// must have one, and how it is asked.
type SDKTransport struct {
	// Name is the transport as SDKDiffers names it: "rest" or "grpc".
	Name string
	// Covers reports whether g recorded this transport's answer.
	Covers func(g SDKGolden) bool
	// Route names where method m (full name "/service/Method") is served
	// on this transport, and whether it is (REST serves a method only
	// with a GET route): a served method needs a golden.
	Route func(full string, m *query.Method) (string, bool)
	// Serve starts the transport on q and returns how to ask it a
	// golden's question: m is chaind's method, nil when chaind does not
	// serve g.Method (a NoSuch golden); ask returns the differences from
	// the SDK's answer and what to show beside them when some fail.
	Serve func(t *testing.T, q *query.Querier) (ask func(t *testing.T, g SDKGolden, m *query.Method, roles map[string]string) ([]Difference, string))
}

// RunSDKGoldens asks tr every question of the goldens under root (the
// module root from the test's package) that it recorded, on SDKFixture,
// and fails on each difference SDKDiffers does not keep; on a method tr
// serves without a golden; and, when everything else passed, on an
// SDKDiffers entry of tr that no answer needs any more.
func RunSDKGoldens(t *testing.T, root string, tr SDKTransport) {
	goldens, err := LoadSDKGoldens(root)
	if err != nil {
		t.Fatal(err)
	}
	fx := SDKFixture()
	q := query.New(fx.Backend())
	ask := tr.Serve(t, q)
	roles := SDKRoles(fx)
	recorded := map[string]bool{}
	for _, g := range goldens {
		if tr.Covers(g) {
			recorded[g.Method] = true
		}
	}
	for _, s := range q.Services() {
		for _, m := range s.Methods {
			full := "/" + s.Name + "/" + m.Name
			if route, served := tr.Route(full, m); served && !recorded[full] {
				t.Errorf("%s (%s): no golden; record one (testdata/sdk050/record.sh)", full, route)
			}
		}
	}
	used := map[string]bool{}
	for _, name := range slices.Sorted(mapKeys(goldens)) {
		g := goldens[name]
		if !tr.Covers(g) {
			continue
		}
		m, served := q.Lookup(g.Method)
		if !served && !strings.Contains(g.Method, "NoSuch") {
			t.Logf("%s: %s is not served; its golden is kept for when it is", name, g.Method)
			continue
		}
		if !served {
			m = nil
		}
		t.Run(name, func(t *testing.T) {
			diffs, shown := ask(t, g, m, roles)
			var out []string
			for _, d := range diffs {
				if k, ok := MatchSDKDiffer(tr.Name, name, d.Path); ok {
					used[k] = true
					continue
				}
				out = append(out, fmt.Sprintf("%s %s %s: %s", tr.Name, name, d.Path, d.What))
			}
			if len(out) > 0 {
				t.Errorf("%s: %d differences from the SDK's answer:\n%s\n%s", g.Method, len(out), strings.Join(out, "\n"), shown)
			}
		})
	}
	if t.Failed() {
		return
	}
	for k, why := range SDKDiffers {
		if strings.HasPrefix(k, tr.Name+" ") && !used[k] {
			t.Errorf("SDKDiffers lists %q (%s), which no %s answer differs in any more", k, why, tr.Name)
		}
	}
}
