// Package grpcsrv serves the Cosmos-style gRPC query services from the
// shared query handlers: unary calls over HTTP/2 (cleartext, on net/http),
// length-prefixed protobuf messages, grpc-status and grpc-message
// trailers, grpc-timeout deadlines, message size limits, and server
// reflection (grpc.reflection.v1 and v1alpha) so tools can list, describe
// and call every service without local .proto files; and gRPC-Web
// (web.go), so a browser page calls the same port over HTTP/1.1.
package grpcsrv

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/h2"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
)

// DefaultMaxMessage is the largest message received or sent (4 MiB, as
// gRPC implementations default to).
const DefaultMaxMessage = 4 << 20

// Server answers gRPC calls.
type Server struct {
	q          *query.Querier
	maxRecv    uint32
	maxSend    int
	reflection map[string]bool // reflection service paths
	reg        *protobuf.Registry
}

// New returns the gRPC handler over q.
func New(q *query.Querier) *Server {
	return &Server{q: q, maxRecv: DefaultMaxMessage, maxSend: DefaultMaxMessage,
		reg: protobuf.NewRegistry(append(q.Files(), ReflectionFiles()...)...),
		reflection: map[string]bool{
			"/" + reflectionV1 + "/ServerReflectionInfo":      true,
			"/" + reflectionV1Alpha + "/ServerReflectionInfo": true,
		}}
}

// SetMaxMessage changes the size limit of received and sent messages.
func (s *Server) SetMaxMessage(n int) {
	s.maxRecv, s.maxSend = uint32(n), n
}

// Listener declares the gRPC port behind the node's front on the
// default server, internal/h2's (see H2Listener).
func Listener(addr string, h http.Handler, o front.Options) front.Listener {
	return H2Listener(addr, h, o)
}

// H2Listener declares the gRPC port behind the node's front: cleartext
// HTTP/2 served by the hand-written server of internal/h2, whose writes
// carry a whole answer in one system call; HTTP/1.1 requests still reach
// the handler through net/http, which answers them with a clear refusal.
// Refusals are answered as gRPC statuses.
func H2Listener(addr string, h http.Handler, o front.Options) front.Listener {
	l := NetHTTPListener(addr, h, o)
	l.H2 = new(h2.Server)
	return l
}

// NetHTTPListener declares the gRPC port like H2Listener, but served
// entirely by net/http's HTTP/2 server.
func NetHTTPListener(addr string, h http.Handler, o front.Options) front.Listener {
	o.Refuse = Refuse
	o = WebCORS(o)
	return front.Listener{Kind: "grpc", Addr: addr, Handler: h, Options: o, H2C: true}
}

// Servers names the HTTP/2 servers the gRPC port can run on, for the
// node's --grpc.server flag.
var Servers = map[string]func(addr string, h http.Handler, o front.Options) front.Listener{
	"h2":       H2Listener,
	"net/http": NetHTTPListener,
}

// Refuse writes a front refusal as a gRPC status.
func Refuse(w http.ResponseWriter, r *http.Request, ref front.Refusal) {
	web := isWeb(r.Header.Get("Content-Type"))
	if !isGRPC(r) && !web {
		http.Error(w, ref.Message, ref.Status)
		return
	}
	code := query.Unknown
	switch ref.Status {
	case http.StatusTooManyRequests, http.StatusRequestEntityTooLarge:
		code = query.ResourceExhaust
	case http.StatusForbidden:
		code = 7 // PERMISSION_DENIED
	case http.StatusUnauthorized:
		code = 16 // UNAUTHENTICATED
	}
	if web {
		writeWebStatus(w, r, &query.Error{Code: code, Msg: ref.Message})
		return
	}
	trailersOnly(w, &query.Error{Code: code, Msg: ref.Message})
}

func isGRPC(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isWeb(r.Header.Get("Content-Type")) {
		s.serveWeb(w, r) // any HTTP version
		return
	}
	if r.ProtoMajor != 2 {
		http.Error(w, "gRPC requires HTTP/2", http.StatusHTTPVersionNotSupported)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "gRPC requires POST", http.StatusMethodNotAllowed)
		return
	}
	if !isGRPC(r) {
		http.Error(w, "invalid gRPC request content-type "+strconv.Quote(r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	s.serve(w, r)
}

// serve runs one call whose protocol has been checked: native gRPC, or
// gRPC-Web through a webWriter.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if t := r.Header.Get("Grpc-Timeout"); t != "" {
		d, err := parseTimeout(t)
		if err != nil {
			trailersOnly(w, query.Errorf(query.Internal, "malformed grpc-timeout: %v", err))
			return
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if enc := r.Header.Get("Grpc-Encoding"); enc != "" && enc != "identity" {
		trailersOnly(w, query.Errorf(query.Unimplemented, "grpc: Decompressor is not installed for grpc-encoding %q", enc))
		return
	}
	path := r.URL.Path
	if s.reflection[path] {
		s.serveReflection(ctx, w, r)
		return
	}
	m, ok := s.q.Lookup(path)
	if !ok {
		trailersOnly(w, unknownMethod(s.q, path))
		return
	}
	msg, err := readFrame(r.Body, s.maxRecv)
	if err != nil {
		trailersOnly(w, frameError(err, true))
		return
	}
	// A unary call has exactly one request message.
	if _, err := readFrame(r.Body, s.maxRecv); err != io.EOF {
		if err == nil {
			trailersOnly(w, query.Errorf(query.Unimplemented, "grpc: more than one request message for unary method %s", path))
		} else {
			trailersOnly(w, frameError(err, false))
		}
		return
	}
	req := m.NewRequest()
	if err := protobuf.Unmarshal(msg, req); err != nil {
		trailersOnly(w, query.Errorf(query.Internal, "grpc: error unmarshalling request: %v", err))
		return
	}
	// The x-cosmos-block-height metadata picks the block read; the answer
	// names it in its own metadata, as the Cosmos SDK's server does.
	ctx, height, qerr := s.q.AtHeight(ctx, r.Header.Get(query.HeightHeader))
	if qerr != nil {
		trailersOnly(w, qerr)
		return
	}
	hs := strconv.FormatUint(height, 10)
	// The cache keeps the answer framed, so a repeated query at the same
	// height is written straight from it: no marshalling, no copy.
	framed, qerr := s.q.Cached(m, "grpc "+hs+" "+path+" "+string(msg), func() ([]byte, *query.Error) {
		resp, qerr := s.q.Call(ctx, m, req)
		if qerr != nil {
			return nil, qerr
		}
		return appendFrame(nil, protobuf.Marshal(resp)), nil
	})
	if qerr == nil && ctx.Err() != nil {
		qerr = query.AsError(ctx.Err())
	}
	if qerr != nil {
		trailersOnly(w, qerr)
		return
	}
	if n := len(framed) - frameHeaderLen; n > s.maxSend {
		trailersOnly(w, query.Errorf(query.ResourceExhaust, "grpc: trying to send message larger than max (%d vs. %d)", n, s.maxSend))
		return
	}
	w.Header()[heightKey] = []string{hs}
	startStream(w)
	// No Flush: the answer is complete, and the trailers that follow end
	// the stream, so the connection sends both as soon as the handler
	// returns (an explicit flush cost a separate write per call).
	w.Write(framed)
	finish(w, nil)
}

// frameError maps a request-reading failure to a status; first says no
// message has been read yet.
func frameError(err error, first bool) *query.Error {
	var big *errFrameTooLarge
	switch {
	case errors.As(err, &big):
		return query.Errorf(query.ResourceExhaust, "%v", err)
	case err == errCompressed:
		return query.Errorf(query.Unimplemented, "%v", err)
	case err == io.EOF && first:
		return query.Errorf(query.Unimplemented, "grpc: no request message for unary method")
	case err == io.ErrUnexpectedEOF:
		return query.Errorf(query.Internal, "grpc: request message cut short")
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return query.Errorf(query.ResourceExhaust, "request body over %d bytes", mbe.Limit)
	}
	return query.Errorf(query.Internal, "grpc: reading request: %v", err)
}

func unknownMethod(q *query.Querier, path string) *query.Error {
	svc, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok {
		return query.Errorf(query.Unimplemented, "malformed method name: %q", path)
	}
	for _, s := range q.Services() {
		if s.Name == svc {
			return query.Errorf(query.Unimplemented, "unknown method %s for service %s", method, svc)
		}
	}
	return query.Errorf(query.Unimplemented, "unknown service %s", svc)
}

// Header values every answer carries; net/http only reads them, so one
// slice serves all answers instead of one allocation per header per call.
var (
	hdrContentType = []string{"application/grpc"}
	hdrTrailers    = []string{"Grpc-Status", "Grpc-Message"}
	hdrStatusOK    = []string{"0"}
)

// heightKey is the canonical form of query.HeightHeader, set directly so
// the answer path does no canonicalisation.
var heightKey = http.CanonicalHeaderKey(query.HeightHeader)

// startStream sends the response headers of a stream that will carry
// messages, declaring the status trailers.
func startStream(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Type"] = hdrContentType
	h["Trailer"] = hdrTrailers
	w.WriteHeader(http.StatusOK)
}

// finish sets the status trailers of a started stream.
func finish(w http.ResponseWriter, e *query.Error) {
	if e == nil {
		w.Header()["Grpc-Status"] = hdrStatusOK
		return
	}
	w.Header().Set("Grpc-Status", strconv.Itoa(int(e.Code)))
	w.Header().Set("Grpc-Message", encodeMessage(e.Msg))
}

// trailersOnly answers with a status and no messages: one HEADERS frame
// that ends the stream.
func trailersOnly(w http.ResponseWriter, e *query.Error) {
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", strconv.Itoa(int(e.Code)))
	h.Set("Grpc-Message", encodeMessage(e.Msg))
	w.WriteHeader(http.StatusOK)
}

// encodeMessage percent-encodes a grpc-message: bytes outside printable
// ASCII, and '%' itself, become %XX.
func encodeMessage(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// parseTimeout reads a grpc-timeout value: up to eight digits and a unit
// (H, M, S, m, u, n).
func parseTimeout(s string) (time.Duration, error) {
	if len(s) < 2 || len(s) > 9 {
		return 0, errors.New("bad length")
	}
	n, err := strconv.ParseUint(s[:len(s)-1], 10, 64)
	if err != nil {
		return 0, errors.New("bad number")
	}
	var unit time.Duration
	switch s[len(s)-1] {
	case 'H':
		unit = time.Hour
	case 'M':
		unit = time.Minute
	case 'S':
		unit = time.Second
	case 'm':
		unit = time.Millisecond
	case 'u':
		unit = time.Microsecond
	case 'n':
		unit = time.Nanosecond
	default:
		return 0, errors.New("bad unit")
	}
	// Eight digits of hours would overflow a Duration; cap at its max.
	if n > uint64(1<<63-1)/uint64(unit) {
		return time.Duration(1<<63 - 1), nil
	}
	return time.Duration(n) * unit, nil
}
