package grpcsrv

import (
	"bytes"
	"context"
	"fmt"
	rf "reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// TestSDKGoldens makes every gRPC call a Cosmos SDK v0.50 node answered
// in testdata/sdk050/golden (recorded from simd by
// testdata/sdk050/record.sh) to chaind's gRPC port, on a fixture chain
// with the same kind of history, and compares: the status code; that the
// SDK's answer decodes with chaind's message type and encodes back to the
// very same bytes (every field the SDK sends has its number, wire type and
// encoding in chaind's definitions); and, field by field
// (querytest.DiffSDK), the SDK's answer and chaind's, both rendered as
// JSON. Differences chaind keeps on purpose are in querytest.SDKDiffers
// with the reason; an entry no answer needs any more fails the test, as
// does a method chaind serves with no golden.
func TestSDKGoldens(t *testing.T) {
	goldens, err := querytest.LoadSDKGoldens("..")
	if err != nil {
		t.Fatal(err)
	}
	fx := querytest.SDKFixture()
	q := query.New(fx.Backend())
	srv, err := front.New(front.Config{}).Listen(listener("127.0.0.1:0", New(q), front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	addr, c := srv.Addr(), h2c()
	roles := querytest.SDKRoles(fx)
	used := map[string]bool{}
	recorded := map[string]bool{}
	for _, g := range goldens {
		recorded[g.Method] = true
	}
	for _, s := range q.Services() {
		for _, m := range s.Methods {
			if full := "/" + s.Name + "/" + m.Name; !recorded[full] {
				t.Errorf("%s: no golden; record one (testdata/sdk050/record.sh)", full)
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
		m, served := q.Lookup(g.Method)
		if !served && !strings.Contains(g.Method, "NoSuch") {
			t.Logf("%s: %s is not served; its golden is kept for when it is", name, g.Method)
			continue
		}
		t.Run(name, func(t *testing.T) {
			var body []byte
			if served {
				req, err := querytest.SDKRequest(m, g, roles)
				if err != nil {
					t.Fatalf("the golden's request: %v", err)
				}
				body = protobuf.Marshal(req)
			}
			hdr := map[string]string{}
			if g.Height != "" {
				hdr[query.HeightHeader] = querytest.ExpandRoles(g.Height, roles)
			}
			res := rawCall(t, c, addr, g.Method, appendFrame(nil, body), hdr)
			var diffs []querytest.SDKDifference
			if res.status != g.GRPC.Code {
				diffs = append(diffs, querytest.SDKDifference{Path: "status", What: fmt.Sprintf("the SDK answers code %d (%q), chaind %d (%q)", g.GRPC.Code, g.GRPC.Message, res.status, res.message)})
			}
			if served && g.GRPC.Code == 0 {
				sdk := rf.New(rf.TypeOf(m.Out)).Interface().(protobuf.Message)
				if err := protobuf.Unmarshal(g.GRPC.Response, sdk); err != nil {
					diffs = append(diffs, querytest.SDKDifference{Path: "decode", What: fmt.Sprintf("the SDK's answer does not decode as %T: %v", sdk, err)})
				} else {
					if again := protobuf.Marshal(sdk); !bytes.Equal(again, g.GRPC.Response) {
						diffs = append(diffs, querytest.SDKDifference{Path: "bytes", What: fmt.Sprintf("the SDK's answer decoded and encoded again differs:\n sdk %x\n got %x", g.GRPC.Response, again)})
					}
					if res.status == 0 && len(res.msgs) == 1 {
						ours := rf.New(rf.TypeOf(m.Out)).Interface().(protobuf.Message)
						if err := protobuf.Unmarshal(res.msgs[0], ours); err != nil {
							t.Fatalf("chaind's answer does not decode: %v", err)
						}
						want, _ := querytest.DecodeJSON(protobuf.MarshalJSON(sdk))
						got, _ := querytest.DecodeJSON(protobuf.MarshalJSON(ours))
						diffs = append(diffs, querytest.DiffSDK("", want, got)...)
					}
				}
			}
			var out []string
			for _, d := range diffs {
				if k, ok := querytest.MatchSDKDiffer("grpc", name, d.Path); ok {
					used[k] = true
					continue
				}
				out = append(out, fmt.Sprintf("grpc %s %s: %s", name, d.Path, d.What))
			}
			if len(out) > 0 {
				t.Errorf("%s: %d differences from the SDK's answer:\n%s", g.Method, len(out), strings.Join(out, "\n"))
			}
		})
	}
	if t.Failed() {
		return
	}
	for k, why := range querytest.SDKDiffers {
		if strings.HasPrefix(k, "grpc ") && !used[k] {
			t.Errorf("SDKDiffers lists %q (%s), which no gRPC answer differs in any more", k, why)
		}
	}
}
