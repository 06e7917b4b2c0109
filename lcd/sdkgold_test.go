package lcd

import (
	"fmt"
	"net/http/httptest"
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
// more fails the test, as does a route chaind serves with no golden
// (querytest.RunSDKGoldens).
func TestSDKGoldens(t *testing.T) {
	querytest.RunSDKGoldens(t, "..", querytest.SDKTransport{
		Name:   "rest",
		Covers: func(g querytest.SDKGolden) bool { return g.REST != nil },
		Route:  func(_ string, m *query.Method) (string, bool) { return "GET " + m.Get, m.Get != "" },
		Serve: func(t *testing.T, q *query.Querier) func(*testing.T, querytest.SDKGolden, *query.Method, map[string]string) ([]querytest.Difference, string) {
			h := New(q)
			return func(t *testing.T, g querytest.SDKGolden, _ *query.Method, roles map[string]string) ([]querytest.Difference, string) {
				path := querytest.SDKRESTPath(g.REST.Path, roles)
				req := httptest.NewRequest("GET", path, nil)
				if g.Height != "" {
					req.Header.Set(query.HeightHeader, querytest.ExpandRoles(g.Height, roles))
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				var diffs []querytest.Difference
				if w.Code != g.REST.Status {
					diffs = append(diffs, querytest.Difference{Path: "status", What: fmt.Sprintf("the SDK answers HTTP %d, chaind %d", g.REST.Status, w.Code)})
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
						diffs = append(diffs, querytest.Difference{Path: "code", What: fmt.Sprintf("the SDK answers code %v, chaind %v", wm["code"], gm["code"])})
					}
				}
				return diffs, fmt.Sprintf("GET %s\nchaind answered: %.400s\nthe SDK: %.400s", path, w.Body.Bytes(), g.REST.Body)
			}
		},
	})
}
