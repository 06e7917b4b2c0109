package query

import (
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// headOnly is a chain that only has a head.
type headOnly struct{ backend.Blocks }

func (headOnly) Head() *types.Block {
	return types.NewBlockWithHeader(&types.Header{Number: 7})
}

// TestAnswerCacheBoundedInBytes: abci_query keys carry the client's data,
// so the cache of one head must stay within cacheMaxBytes however large the
// keys and answers a client makes it keep.
func TestAnswerCacheBoundedInBytes(t *testing.T) {
	q := &Querier{b: Backend{Blocks: headOnly{}}}
	m := &Method{}
	big := strings.Repeat("x", 3<<20)
	for i := 0; i < 100; i++ {
		key := big + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if _, err := q.Cached(m, key, func() ([]byte, *Error) { return []byte("answer"), nil }); err != nil {
			t.Fatal(err)
		}
		if q.cache.bytes > cacheMaxBytes {
			t.Fatalf("after %d answers the cache holds %d bytes, over %d", i+1, q.cache.bytes, cacheMaxBytes)
		}
	}
	if q.cache.bytes == 0 {
		t.Fatal("nothing was kept")
	}
}
