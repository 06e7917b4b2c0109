package lcd

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// TestSDKGoldens asks chaind's REST gateway every question a Cosmos SDK
// v0.50 node answered in testdata/sdk050/golden (recorded from simd by
// testdata/sdk050/record.sh) on a fixture chain with the same kind of
// history, and compares the answers field by field (querytest.DiffSDK):
// the HTTP status, the error body's code, and the body's keys, JSON
// types and kinds of string. Differences chaind keeps on purpose are in
// querytest.SDKDiffers with the reason; an entry no answer needs any
// more fails the test, as does a route chaind serves with no golden.
func TestSDKGoldens(t *testing.T) {
	goldens, err := querytest.LoadSDKGoldens("..")
	if err != nil {
		t.Fatal(err)
	}
	fx := querytest.SDKFixture()
	q := query.New(fx.Backend())
	h := New(q)
	roles := querytest.SDKRoles(fx)
	used := map[string]bool{}
	recorded := map[string]bool{}
	for _, g := range goldens {
		if g.REST != nil {
			recorded[g.Method] = true
		}
	}
	for _, s := range q.Services() {
		for _, m := range s.Methods {
			if full := "/" + s.Name + "/" + m.Name; m.Get != "" && !recorded[full] {
				t.Errorf("%s (GET %s): no golden; record one (testdata/sdk050/record.sh)", full, m.Get)
			}
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range goldens {
			if !yield(k) {
				return
			}
		}
	}) {
		g := goldens[name]
		if g.REST == nil {
			continue
		}
		if _, served := q.Lookup(g.Method); !served && !strings.Contains(g.Method, "NoSuch") {
			t.Logf("%s: %s is not served; its golden is kept for when it is", name, g.Method)
			continue
		}
		t.Run(name, func(t *testing.T) {
			path := querytest.SDKRESTPath(g.REST.Path, roles)
			req := httptest.NewRequest("GET", path, nil)
			if g.Height != "" {
				req.Header.Set(query.HeightHeader, querytest.ExpandRoles(g.Height, roles))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			var diffs []querytest.SDKDifference
			if w.Code != g.REST.Status {
				diffs = append(diffs, querytest.SDKDifference{Path: "status", What: fmt.Sprintf("the SDK answers HTTP %d, chaind %d", g.REST.Status, w.Code)})
			}
			want, err := querytest.DecodeJSON(g.REST.Body)
			if err != nil {
				t.Fatalf("golden: %v", err)
			}
			got, err := querytest.DecodeJSON(w.Body.Bytes())
			if err != nil {
				t.Fatalf("chaind's answer is not JSON: %v: %.300s", err, w.Body.Bytes())
			}
			diffs = append(diffs, querytest.DiffSDK("", want, got)...)
			if wm, ok := want.(map[string]any); ok && g.REST.Status != 200 {
				if gm, ok := got.(map[string]any); ok && fmt.Sprint(wm["code"]) != fmt.Sprint(gm["code"]) {
					diffs = append(diffs, querytest.SDKDifference{Path: "code", What: fmt.Sprintf("the SDK answers code %v, chaind %v", wm["code"], gm["code"])})
				}
			}
			var out []string
			for _, d := range diffs {
				if k, ok := querytest.MatchSDKDiffer("rest", name, d.Path); ok {
					used[k] = true
					continue
				}
				out = append(out, fmt.Sprintf("rest %s %s: %s", name, d.Path, d.What))
			}
			if len(out) > 0 {
				t.Errorf("GET %s: %d differences from the SDK's answer:\n%s\nchaind answered: %.400s\nthe SDK: %.400s", path, len(out), strings.Join(out, "\n"), w.Body.Bytes(), g.REST.Body)
			}
		})
	}
	if t.Failed() {
		return
	}
	for k, why := range querytest.SDKDiffers {
		if strings.HasPrefix(k, "rest ") && !used[k] {
			t.Errorf("SDKDiffers lists %q (%s), which no REST answer differs in any more", k, why)
		}
	}
}
