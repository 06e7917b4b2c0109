package front

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Options.Observe sees the status each request was answered with, the
// front's own refusals and upgrades included, through a real server (so
// Hijack goes through the wrapper as a WebSocket upgrade's does).
func TestObserve(t *testing.T) {
	type seen struct {
		path   string
		status int
		d      time.Duration
	}
	got := make(chan seen, 16)
	mux := http.NewServeMux()
	mux.Handle("/ok", echo)
	mux.HandleFunc("/teapot", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/flush", func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		w.WriteHeader(http.StatusTeapot) // too late: 200 went out with the flush
	})
	mux.HandleFunc("/upgrade", func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		c.Close()
	})
	f := New(Config{})
	srv := httptest.NewServer(f.Handler(Options{BodyLimit: 4, Observe: func(r *http.Request, status int, d time.Duration) {
		got <- seen{r.URL.Path, status, d}
	}}, mux))
	defer srv.Close()
	for _, tc := range []struct {
		path, body string
		want       int
	}{
		{"/ok", "", 200},
		{"/teapot", "", 418},
		{"/silent", "", 200},
		{"/flush", "", 200},
		{"/missing", "", 404},
		{"/ok", "too long", 413}, // refused by the front
		{"/upgrade", "", 101},
	} {
		req, _ := http.NewRequest("POST", srv.URL+tc.path, strings.NewReader(tc.body))
		if tc.path == "/upgrade" {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			req.Write(conn)
			if resp, err := http.ReadResponse(bufio.NewReader(conn), req); err != nil || resp.StatusCode != 101 {
				t.Fatalf("upgrade: %v %v", resp, err)
			}
			conn.Close()
		} else {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("%s: client got %d, want %d", tc.path, resp.StatusCode, tc.want)
			}
		}
		select {
		case s := <-got:
			if s.path != tc.path || s.status != tc.want || s.d <= 0 {
				t.Errorf("%s: observed %+v, want status %d", tc.path, s, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: not observed", tc.path)
		}
	}
}
