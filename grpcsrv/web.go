package grpcsrv

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query"
)

// gRPC-Web is gRPC as a browser can speak it (the protocol grpc/grpc
// documents as PROTOCOL-WEB): any HTTP version, so HTTP/1.1 from a page
// on the cleartext port; the same length-prefixed messages; and, since a
// browser reads no HTTP trailers, the status carried in the body as a
// last frame whose flag byte has its top bit set and whose payload is an
// HTTP/1 header block ("grpc-status:0\r\n"). Its -text variant base64s
// both bodies for clients that can only read text.
//
// The server serves it on every port the gRPC handler is on, beside
// native gRPC, by running the same call path behind webWriter, which
// turns what the native path writes (headers, messages, status trailers)
// into the web framing. Client streaming and bidirectional calls have no
// place in gRPC-Web; reflection, the one stream here, still answers a
// client that sends its requests and then ends the body.

// Content types of gRPC-Web requests and answers. Only protobuf is
// served; "application/grpc-web" alone means protobuf.
const (
	webProto     = "application/grpc-web+proto"
	webTextProto = "application/grpc-web-text+proto"
)

// trailerFlag marks the frame carrying the status (the top bit of the
// flag byte); the low bit would mean a compressed trailer block.
const trailerFlag = 0x80

var (
	hdrWebProto = []string{webProto}
	hdrWebText  = []string{webTextProto}
)

// WebRequestHeaders are the request headers a gRPC-Web page sends
// beyond Content-Type: the CORS preflight must allow them.
var WebRequestHeaders = []string{"X-Grpc-Web", "X-User-Agent", "Grpc-Timeout", query.HeightHeader}

// WebExposedHeaders are the answer headers a cross-origin page may read:
// the status, for clients that look for it in the headers of a
// trailers-only answer, and the height the answer was read at.
var WebExposedHeaders = []string{"Grpc-Status", "Grpc-Message", query.HeightHeader}

// WebCORS adds to o what a browser's preflight of a gRPC-Web call asks
// for, on whichever port serves it.
func WebCORS(o front.Options) front.Options {
	o.CORSHeaders = append(append([]string(nil), o.CORSHeaders...), WebRequestHeaders...)
	o.CORSExpose = append(append([]string(nil), o.CORSExpose...), WebExposedHeaders...)
	return o
}

// isWeb reports whether a content type is gRPC-Web's, of any flavour.
func isWeb(ct string) bool {
	return strings.HasPrefix(ct, "application/grpc-web")
}

// errWebType is a gRPC-Web content type other than protobuf's.
var errWebType = errors.New("grpc-web: only application/grpc-web, application/grpc-web+proto, application/grpc-web-text and application/grpc-web-text+proto are served")

// webMode reads a gRPC-Web request's flavour: whether its body is
// base64 text, and whether the answer must be (a -text request, or an
// Accept header that asks for text, as XHR-based clients send).
func webMode(r *http.Request) (textIn, textOut bool, err error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return false, false, errWebType
	}
	switch mt {
	case "application/grpc-web", webProto:
	case "application/grpc-web-text", webTextProto:
		textIn = true
	default:
		return false, false, errWebType
	}
	textOut = textIn || strings.Contains(r.Header.Get("Accept"), "application/grpc-web-text")
	return textIn, textOut, nil
}

// WebOr serves the gRPC-Web calls among a port's requests with s and
// hands every other request to next, so the REST port answers gRPC-Web
// as the Cosmos SDK's API server does.
func WebOr(next http.Handler, s *Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWeb(r.Header.Get("Content-Type")) {
			s.serveWeb(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serveWeb answers one gRPC-Web call.
func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		http.Error(w, "gRPC-Web requires POST", http.StatusMethodNotAllowed)
		return
	}
	textIn, textOut, err := webMode(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnsupportedMediaType)
		return
	}
	if textIn {
		r.Body = &textBody{body: r.Body}
	}
	if s.reflection[r.URL.Path] {
		// Reflection reads its next request after answering the last:
		// over HTTP/1.1 that needs a full-duplex body (an error only
		// means the server already is, as HTTP/2 is).
		http.NewResponseController(w).EnableFullDuplex()
	}
	ww := newWebWriter(w, textOut)
	s.serve(ww, r)
	ww.end()
}

// webWriter is the ResponseWriter the gRPC call path writes a gRPC-Web
// answer through. The path sets headers, writes messages and sets the
// status as trailers (or, for a trailers-only answer, as headers);
// webWriter sends the headers but the status, passes the messages
// through, and ends the body with the status as a trailer frame.
type webWriter struct {
	w      http.ResponseWriter
	hdr    http.Header // what the call path sets, status included
	text   bool        // base64 the body
	wrote  bool
	failed bool   // the connection failed: nothing more is written
	buf    []byte // text mode: bytes written since the last flush
}

func newWebWriter(w http.ResponseWriter, text bool) *webWriter {
	return &webWriter{w: w, hdr: http.Header{}, text: text}
}

func (ww *webWriter) Header() http.Header { return ww.hdr }

// statusKeys are the call path's headers that become the trailer frame
// (or that only concern native gRPC's HTTP/2 trailers).
var statusKeys = map[string]bool{"Grpc-Status": true, "Grpc-Message": true, "Trailer": true, "Content-Type": true}

func (ww *webWriter) WriteHeader(code int) {
	if ww.wrote {
		return
	}
	ww.wrote = true
	h := ww.w.Header()
	for k, v := range ww.hdr {
		if !statusKeys[k] {
			h[k] = v
		}
	}
	if ww.text {
		h["Content-Type"] = hdrWebText
	} else {
		h["Content-Type"] = hdrWebProto
	}
	ww.w.WriteHeader(code)
}

func (ww *webWriter) Write(p []byte) (int, error) {
	if !ww.wrote {
		ww.WriteHeader(http.StatusOK)
	}
	if ww.text {
		// Buffered until a flush, so a unary answer is one base64 run
		// with its padding only at the very end: clients that decode
		// the body in one go (atob) read it too.
		ww.buf = append(ww.buf, p...)
		return len(p), nil
	}
	return ww.write(p)
}

func (ww *webWriter) write(p []byte) (int, error) {
	if ww.failed {
		return 0, errConnFailed
	}
	n, err := ww.w.Write(p)
	if err != nil {
		ww.failed = true
	}
	return n, err
}

var errConnFailed = errors.New("grpc-web: the connection failed")

// Flush sends what has been written (reflection streams its answers).
func (ww *webWriter) Flush() {
	ww.flushText()
	if f, ok := ww.w.(http.Flusher); ok && !ww.failed {
		f.Flush()
	}
}

func (ww *webWriter) flushText() {
	if !ww.text || len(ww.buf) == 0 {
		return
	}
	out := base64.StdEncoding.AppendEncode(nil, ww.buf)
	ww.buf = ww.buf[:0]
	ww.write(out)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (ww *webWriter) Unwrap() http.ResponseWriter { return ww.w }

// end writes the trailer frame: the status the call path set, as
// lower-case HTTP/1 header lines.
func (ww *webWriter) end() {
	if !ww.wrote {
		ww.WriteHeader(http.StatusOK)
	}
	st := ww.hdr.Get("Grpc-Status")
	if st == "" {
		// Every return of the call path sets a status; this is the
		// guard against one that would not.
		st = "2" // UNKNOWN
		ww.hdr.Set("Grpc-Message", "grpc-web: the call ended without a status")
	}
	block := make([]byte, 0, 64)
	block = append(block, "grpc-status:"...)
	block = append(block, st...)
	block = append(block, "\r\n"...)
	if m := ww.hdr.Get("Grpc-Message"); m != "" {
		block = append(block, "grpc-message:"...)
		block = append(block, m...)
		block = append(block, "\r\n"...)
	}
	var fr [frameHeaderLen]byte
	fr[0] = trailerFlag
	binary.BigEndian.PutUint32(fr[1:], uint32(len(block)))
	if ww.text {
		ww.buf = append(append(ww.buf, fr[:]...), block...)
		ww.flushText()
		return
	}
	ww.write(append(fr[:], block...))
}

// writeWebStatus answers a gRPC-Web request with a status and no
// message (the front's refusals).
func writeWebStatus(w http.ResponseWriter, r *http.Request, e *query.Error) {
	_, text, err := webMode(r)
	if err != nil {
		text = false
	}
	ww := newWebWriter(w, text)
	trailersOnly(ww, e)
	ww.end()
}

// textBody decodes a grpc-web-text request body: base64 that may come as
// several runs, each with its own padding (a client may encode every
// message, or every buffer it flushes, apart). Decoding goes four
// characters at a time, so a run's padding ends its quantum only. A body
// that stops inside a quantum is read as unpadded base64.
type textBody struct {
	body io.ReadCloser

	quad  [4]byte // characters of the quantum being read
	nq    int
	out   [3]byte // decoded bytes not yet returned, from off
	off   int
	nout  int
	in    [512]byte // characters read, not yet decoded, from inOff
	inOff int
	inN   int
	err   error // the body's read error, once it came
}

// errText is a grpc-web-text body that is not base64.
var errText = errors.New("grpc-web-text: the body is not base64")

func (t *textBody) Read(p []byte) (n int, err error) {
	for n < len(p) {
		if t.off < t.nout {
			c := copy(p[n:], t.out[t.off:t.nout])
			t.off += c
			n += c
			continue
		}
		for t.inOff < t.inN && t.nq < 4 {
			// Line breaks are skipped, as base64 decoders skip them.
			if c := t.in[t.inOff]; c != '\r' && c != '\n' {
				t.quad[t.nq] = c
				t.nq++
			}
			t.inOff++
		}
		if t.nq == 4 {
			t.decode(base64.StdEncoding)
			continue
		}
		if t.err != nil {
			if t.err == io.EOF && t.nq > 0 {
				t.decode(base64.RawStdEncoding)
				continue
			}
			break
		}
		if n > 0 {
			break // hand over what is decoded rather than block for more
		}
		t.inN, t.err = t.body.Read(t.in[:])
		t.inOff = 0
	}
	if n > 0 {
		return n, nil
	}
	return 0, t.err
}

// decode turns the characters of t.quad into bytes for the reader; bad
// ones end the body with errText.
func (t *textBody) decode(enc *base64.Encoding) {
	m, err := enc.Decode(t.out[:], t.quad[:t.nq])
	t.nq, t.off, t.nout = 0, 0, m
	if err != nil {
		t.nout, t.err, t.inOff, t.inN = 0, errText, 0, 0
	}
}

func (t *textBody) Close() error { return t.body.Close() }
