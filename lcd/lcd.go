// Package lcd serves the Cosmos-style REST ("LCD") query paths under
// /cosmos/... from the shared query handlers, rendered as the Cosmos SDK's
// grpc-gateway renders them: proto field names, 64-bit integers as
// strings, enums by name, decimals with 18 digits, every field emitted.
// Errors are {"code", "message", "details"} with the gRPC code and the
// gateway's HTTP status; a path no query serves is answered 501 with code
// 12, as the gateway does. A request's x-cosmos-block-height header picks
// the block read (query.AtHeight); every answer names the height it read
// in that header and in the gateway's Grpc-Metadata- form.
package lcd

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
)

// Server routes REST paths to queries.
type Server struct {
	q      *query.Querier
	routes []route
}

type route struct {
	segs []string // literal segments, or "{field}" for a path parameter
	m    *query.Method
}

// New returns the REST handler over q.
func New(q *query.Querier) *Server {
	s := &Server{q: q}
	for _, svc := range q.Services() {
		for _, m := range svc.Methods {
			if m.Get == "" {
				continue
			}
			s.routes = append(s.routes, route{segs: strings.Split(strings.Trim(m.Get, "/"), "/"), m: m})
		}
	}
	// A literal segment wins over a parameter at the same place
	// (".../blocks/latest" before ".../blocks/{height}").
	slices.SortStableFunc(s.routes, func(a, b route) int {
		for i := 0; i < len(a.segs) && i < len(b.segs); i++ {
			pa, pb := isParam(a.segs[i]), isParam(b.segs[i])
			if pa != pb {
				if pb {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	return s
}

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") }

// Listener declares the REST port behind the node's front, answering the
// front's refusals in the REST error shape.
func Listener(addr string, h http.Handler, o front.Options) front.Listener {
	o.Refuse = Refuse
	return front.Listener{Kind: "rest", Addr: addr, Handler: h, Options: o}
}

// Refuse writes a front refusal as a REST error.
func Refuse(w http.ResponseWriter, _ *http.Request, ref front.Refusal) {
	code := query.Unknown
	switch ref.Status {
	case http.StatusTooManyRequests, http.StatusRequestEntityTooLarge:
		code = query.ResourceExhaust
	case http.StatusForbidden:
		code = 7 // PERMISSION_DENIED
	case http.StatusUnauthorized:
		code = 16 // UNAUTHENTICATED
	}
	writeError(w, ref.Status, &query.Error{Code: code, Msg: ref.Message})
}

// match finds the route of path and the path parameters it binds; ok
// reports whether any route has the path's shape.
func (s *Server) match(path string) (*route, map[string]string, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := range s.routes {
		r := &s.routes[i]
		if len(r.segs) != len(segs) {
			continue
		}
		var params map[string]string
		ok := true
		for j, seg := range r.segs {
			if isParam(seg) {
				v, err := url.PathUnescape(segs[j])
				if err != nil || v == "" {
					ok = false
					break
				}
				if params == nil {
					params = map[string]string{}
				}
				params[seg[1:len(seg)-1]] = v
				continue
			}
			if seg != segs[j] {
				ok = false
				break
			}
		}
		if ok {
			return r, params, true
		}
	}
	return nil, nil, false
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, params, ok := s.match(r.URL.EscapedPath())
	if !ok {
		writeError(w, http.StatusNotImplemented, &query.Error{Code: query.Unimplemented, Msg: "Not Implemented"})
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusNotImplemented, &query.Error{Code: query.Unimplemented, Msg: "Method Not Allowed"})
		return
	}
	ctx, height, qerr := s.q.AtHeight(r.Context(), r.Header.Get(query.HeightHeader))
	if qerr != nil {
		writeError(w, HTTPStatus(qerr.Code), qerr)
		return
	}
	hs := strconv.FormatUint(height, 10)
	uri := r.RequestURI // as the client wrote it: the same text reads as the same request
	if uri == "" {
		uri = r.URL.RequestURI()
	}
	// The key names the height read: an answer at a past height stays
	// right while the head moves on. The request is built from the path
	// and query only to render a new answer: a cached one was rendered
	// from the same text, which built a valid request then.
	body, qerr := s.q.Cached(rt.m, "rest "+hs+" "+uri, func() ([]byte, *query.Error) {
		req, qerr := rt.request(params, r)
		if qerr != nil {
			return nil, qerr
		}
		resp, qerr := s.q.Call(ctx, rt.m, req)
		if qerr != nil {
			return nil, qerr
		}
		return protobuf.MarshalJSON(resp), nil
	})
	if qerr != nil {
		writeError(w, HTTPStatus(qerr.Code), qerr)
		return
	}
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	height1 := []string{hs} // both height headers share it
	h[heightKey] = height1
	h[gatewayHeightKey] = height1
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// jsonType is the Content-Type of every answer, one slice shared by the
// headers it is put in (never appended to in place: Add copies).
var jsonType = []string{"application/json"}

// The height headers' keys as net/http spells them in a Header.
var (
	heightKey        = http.CanonicalHeaderKey(query.HeightHeader)
	gatewayHeightKey = http.CanonicalHeaderKey(query.GatewayHeightHeader)
)

// request builds the route's request from the path parameters and the
// query string; a value that does not fit its field is InvalidArgument.
func (rt *route) request(params map[string]string, r *http.Request) (protobuf.Message, *query.Error) {
	req := rt.m.NewRequest()
	for name, v := range params {
		if err := protobuf.SetField(req, name, v); err != nil {
			return nil, query.Errorf(query.InvalidArgument, "type mismatch, parameter: %s, error: %v", name, err)
		}
	}
	for name, vs := range r.URL.Query() {
		if _, bound := params[name]; bound {
			continue
		}
		for _, v := range vs {
			if err := protobuf.SetField(req, name, v); err != nil {
				if errors.Is(err, protobuf.ErrUnknownField) {
					break // the gateway ignores parameters it does not know
				}
				return nil, query.Errorf(query.InvalidArgument, "%v", err)
			}
		}
	}
	return req, nil
}

// HTTPStatus is the HTTP status the REST gateway gives a gRPC code.
func HTTPStatus(c query.Code) int {
	switch c {
	case query.OK:
		return http.StatusOK
	case query.Canceled:
		return http.StatusRequestTimeout
	case query.InvalidArgument, 9, 11: // FAILED_PRECONDITION and OUT_OF_RANGE too
		return http.StatusBadRequest
	case query.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case query.NotFound:
		return http.StatusNotFound
	case 6, 10: // ALREADY_EXISTS, ABORTED
		return http.StatusConflict
	case 7:
		return http.StatusForbidden
	case 16:
		return http.StatusUnauthorized
	case query.ResourceExhaust:
		return http.StatusTooManyRequests
	case query.Unimplemented:
		return http.StatusNotImplemented
	case query.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errorBody is google.rpc.Status as the gateway renders it.
type errorBody struct {
	Code    int32          `pb:"1,code"`
	Message string         `pb:"2,message"`
	Details []protobuf.Any `pb:"3,details"`
}

func (errorBody) ProtoName() string { return "google.rpc.Status" }

func writeError(w http.ResponseWriter, status int, e *query.Error) {
	body := protobuf.MarshalJSON(&errorBody{Code: int32(e.Code), Message: e.Msg, Details: []protobuf.Any{}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
