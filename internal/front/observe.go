package front

import (
	"bufio"
	"net"
	"net/http"
)

// statusWriter remembers the status a handler answered with, for
// Options.Observe. It passes Hijack and Flush through, since the
// handlers behind the front assert them directly (WebSocket upgrades,
// gRPC streams), and Unwrap for http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	code     int
	hijacked bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code // 1xx are interim; the final status follows
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return c, brw, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is what the client was answered: 101 for an upgrade, 200 when
// the handler wrote nothing (net/http answers 200 then).
func (w *statusWriter) status() int {
	switch {
	case w.hijacked:
		return http.StatusSwitchingProtocols
	case w.code == 0:
		return http.StatusOK
	}
	return w.code
}
