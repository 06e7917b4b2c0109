package grpcsrv

import (
	"bytes"
	"context"
	"fmt"
	rf "reflect"
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
	querytest.RunSDKGoldens(t, "..", querytest.SDKTransport{
		Name:   "grpc",
		Covers: func(querytest.SDKGolden) bool { return true },
		Route:  func(full string, _ *query.Method) (string, bool) { return full, true },
		Serve: func(t *testing.T, q *query.Querier) func(*testing.T, querytest.SDKGolden, *query.Method, map[string]string) ([]querytest.Difference, string) {
			srv, err := front.New(front.Config{}).Listen(listener("127.0.0.1:0", New(q), front.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Shutdown(context.Background()) })
			addr, c := srv.Addr(), h2c()
			return func(t *testing.T, g querytest.SDKGolden, m *query.Method, roles map[string]string) ([]querytest.Difference, string) {
				var body []byte
				if m != nil {
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
				var diffs []querytest.Difference
				if res.status != g.GRPC.Code {
					diffs = append(diffs, querytest.Difference{Path: "status", What: fmt.Sprintf("the SDK answers code %d (%q), chaind %d (%q)", g.GRPC.Code, g.GRPC.Message, res.status, res.message)})
				}
				if m == nil || g.GRPC.Code != 0 {
					return diffs, ""
				}
				sdk := rf.New(rf.TypeOf(m.Out)).Interface().(protobuf.Message)
				if err := protobuf.Unmarshal(g.GRPC.Response, sdk); err != nil {
					return append(diffs, querytest.Difference{Path: "decode", What: fmt.Sprintf("the SDK's answer does not decode as %T: %v", sdk, err)}), ""
				}
				if again := protobuf.Marshal(sdk); !bytes.Equal(again, g.GRPC.Response) {
					diffs = append(diffs, querytest.Difference{Path: "bytes", What: fmt.Sprintf("the SDK's answer decoded and encoded again differs:\n sdk %x\n got %x", g.GRPC.Response, again)})
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
				return diffs, ""
			}
		},
	})
}
