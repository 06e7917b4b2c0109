package query_test

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// BenchmarkValidatorsRender is the uncached cost of one validators page
// (100 of 200 validators): the query, then its REST JSON or its gRPC
// bytes, as a new head makes every interface render it once.
func BenchmarkValidatorsRender(b *testing.B) {
	q := query.New(querytest.New(200).Backend())
	m, _ := q.Lookup("/cosmos.staking.v1beta1.Query/Validators")
	for _, c := range []struct {
		name   string
		render func(protobuf.Message) []byte
	}{{"json", protobuf.MarshalJSON}, {"proto", protobuf.Marshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := q.Call(context.Background(), m, &query.QueryValidatorsRequest{})
				if err != nil {
					b.Fatal(err)
				}
				if len(c.render(resp)) == 0 {
					b.Fatal("empty")
				}
			}
		})
	}
}
