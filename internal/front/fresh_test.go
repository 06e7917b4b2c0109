package front

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Shutdown waits for a request in flight but not for a connection that
// never began one: net/http alone would wait for it until it is five
// seconds old, so a node with one silent client took its whole grace
// period to close. The context's deadline is below those five seconds:
// without the fix Shutdown returns its error.
func TestShutdownClosesSilentConns(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		io.WriteString(w, "ok")
	})
	s, err := New(Config{}).Listen(Listener{Kind: "test", Addr: "127.0.0.1:0", Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	// Dialled first, so it is accepted (and tracked) before the request
	// below reaches its handler.
	silent, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	body := make(chan string, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{}}).Get("http://" + s.Addr() + "/slow")
		if err != nil {
			body <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body <- string(b)
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(ctx) }()
	silent.SetReadDeadline(time.Now().Add(4 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the silent connection read %v, want it closed (EOF) at shutdown", err)
	}
	close(release)
	if got := <-body; got != "ok" {
		t.Errorf("the request in flight got %q, want it answered", got)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown = %v: it waited for a connection that began no request", err)
	}
	// Accepted after the shutdown began: closed as it comes, or refused.
	if late, err := net.Dial("tcp", s.Addr()); err == nil {
		late.SetReadDeadline(time.Now().Add(4 * time.Second))
		if _, err := late.Read(make([]byte, 1)); err == nil {
			t.Error("a connection after Shutdown read data")
		}
		late.Close()
	}
}
