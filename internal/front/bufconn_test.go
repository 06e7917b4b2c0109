package front

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestH2CListenerBuffered: an H2C listener reads its connections through a
// buffer; HTTP/1.1 and cleartext HTTP/2 requests, bodies larger than the
// buffer and many streams at once on one connection all arrive intact.
func TestH2CListenerBuffered(t *testing.T) {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%s %d %x", r.Proto, n, h.Sum(nil))
	})
	srv, err := New(Config{}).Listen(Listener{Kind: "test", Addr: "127.0.0.1:0", Handler: echo, H2C: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	clients := map[string]*http.Client{
		"HTTP/1.1": {Transport: &http.Transport{}},
		"HTTP/2.0": {Transport: &http.Transport{Protocols: p, MaxConnsPerHost: 1}},
	}
	for proto, c := range clients {
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := bytes.Repeat([]byte{byte(i)}, i*readBufferSize/3+1)
				resp, err := c.Post("http://"+srv.Addr()+"/", "application/octet-stream", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				want := fmt.Sprintf("%s %d %x", proto, len(body), sha256.Sum256(body))
				if string(got) != want {
					t.Errorf("%s body %d: got %q, want %q", proto, i, got, want)
				}
			}()
		}
		wg.Wait()
	}
}
