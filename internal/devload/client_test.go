package devload

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// A node that answers "transaction indexing is in progress" (go-ethereum
// after a start on a large datadir) is asked again until it answers the
// receipt; other errors end the wait at once, and the indexing answer
// ends it at the timeout.
func TestWaitReceiptWhileIndexing(t *testing.T) {
	indexing := `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"transaction indexing is in progress"}}`
	for _, tc := range []struct {
		name    string
		answers []string
		timeout time.Duration
		wantErr string
		calls   int64
	}{
		{"indexing, then the receipt", []string{indexing, indexing, `{"jsonrpc":"2.0","id":1,"result":{"transactionHash":"0x0100000000000000000000000000000000000000000000000000000000000000","blockNumber":"0x7","status":"0x1"}}`}, time.Minute, "", 3},
		{"another error", []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}`}, time.Minute, "boom", 1},
		{"indexing until the timeout", []string{indexing}, 300 * time.Millisecond, "indexing", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				n := int(calls.Add(1)) - 1
				fmt.Fprint(w, tc.answers[min(n, len(tc.answers)-1)])
			}))
			defer srv.Close()
			r, err := NewClient(srv.URL).WaitReceipt(types.Hash{1}, tc.timeout)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr == "" && r.BlockNumber != 7:
				t.Fatalf("receipt %+v", r)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one with %q", err, tc.wantErr)
			}
			if tc.calls > 0 && calls.Load() != tc.calls {
				t.Fatalf("%d calls, want %d", calls.Load(), tc.calls)
			}
		})
	}
}
