package grpcsrv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// webAnswer is a gRPC-Web answer taken apart as the protocol says: the
// messages, then the trailer frame's lines (keys lower-case).
type webAnswer struct {
	httpStatus int
	header     http.Header
	msgs       [][]byte
	trailers   map[string]string
}

func (a webAnswer) status() int {
	st, err := strconv.Atoi(a.trailers["grpc-status"])
	if err != nil {
		return -1
	}
	return st
}

// parseWeb reads a gRPC-Web body: data frames, then exactly one trailer
// frame, last. A -text body is base64 (one run: the server pads only at
// the end).
func parseWeb(body []byte, text bool) (msgs [][]byte, trailers map[string]string, err error) {
	if text {
		if body, err = base64.StdEncoding.DecodeString(string(body)); err != nil {
			return nil, nil, fmt.Errorf("text body: %w", err)
		}
	}
	for len(body) > 0 {
		if trailers != nil {
			return nil, nil, errors.New("a frame after the trailers")
		}
		if len(body) < frameHeaderLen {
			return nil, nil, fmt.Errorf("%d bytes left, a frame header needs 5", len(body))
		}
		flag, n := body[0], binary.BigEndian.Uint32(body[1:5])
		if uint64(n) > uint64(len(body)-frameHeaderLen) {
			return nil, nil, fmt.Errorf("frame of %d bytes, %d left", n, len(body)-frameHeaderLen)
		}
		payload := body[frameHeaderLen : frameHeaderLen+int(n)]
		body = body[frameHeaderLen+int(n):]
		switch flag {
		case 0:
			msgs = append(msgs, payload)
		case trailerFlag:
			trailers = map[string]string{}
			lines := string(payload)
			if !strings.HasSuffix(lines, "\r\n") {
				return nil, nil, fmt.Errorf("trailer block %q does not end its last line", lines)
			}
			for _, l := range strings.Split(strings.TrimSuffix(lines, "\r\n"), "\r\n") {
				k, v, ok := strings.Cut(l, ":")
				if !ok || k != strings.ToLower(k) {
					return nil, nil, fmt.Errorf("trailer line %q", l)
				}
				trailers[k] = strings.TrimSpace(v)
			}
		default:
			return nil, nil, fmt.Errorf("frame flag %#x", flag)
		}
	}
	if trailers == nil {
		return nil, nil, errors.New("no trailer frame")
	}
	return msgs, trailers, nil
}

// webCall posts a gRPC-Web call with the given content type (and extra
// headers) through c and takes the answer apart.
func webCall(t testing.TB, c *http.Client, url, ctype string, body []byte, hdr map[string]string) webAnswer {
	t.Helper()
	text := strings.HasPrefix(ctype, "application/grpc-web-text")
	if text {
		body = []byte(base64.StdEncoding.EncodeToString(body))
	}
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("X-Grpc-Web", "1")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := webAnswer{httpStatus: resp.StatusCode, header: resp.Header}
	if resp.StatusCode != http.StatusOK {
		return a
	}
	textOut := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc-web-text")
	if a.msgs, a.trailers, err = parseWeb(raw, textOut); err != nil {
		t.Fatalf("%s %s: %v (body %q)", ctype, url, err, raw)
	}
	return a
}

func serveWith(t testing.TB, f *front.Front, o front.Options) string {
	t.Helper()
	srv, err := f.Listen(listener("127.0.0.1:0", New(query.New(querytest.New(7).Backend())), o))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return srv.Addr()
}

// Every flavour of gRPC-Web, over HTTP/1.1 (a browser on a cleartext
// port) and over HTTP/2, answers what native gRPC answers, byte for
// byte, with the status in a trailer frame and the content type the
// flavour asks for.
func TestWebUnary(t *testing.T) {
	addr := serve(t, 7)
	const path = "/cosmos.staking.v1beta1.Query/Validators"
	reqMsg := protobuf.Marshal(&query.QueryValidatorsRequest{Pagination: &query.PageRequest{Limit: 3, CountTotal: true}})
	native := rawCall(t, h2c(), addr, path, appendFrame(nil, reqMsg), nil)
	if native.status != 0 || len(native.msgs) != 1 {
		t.Fatalf("native call: %+v", native)
	}
	clients := map[string]*http.Client{"HTTP/1.1": {}, "HTTP/2": h2c()}
	cases := []struct {
		ctype, accept, answerType string
	}{
		{"application/grpc-web", "", webProto},
		{"application/grpc-web+proto", "", webProto},
		{"application/grpc-web+proto; charset=utf-8", "", webProto},
		{"application/grpc-web-text", "", webTextProto},
		{"application/grpc-web-text+proto", "", webTextProto},
		// XHR-based clients send binary and ask for a text answer.
		{"application/grpc-web+proto", "application/grpc-web-text", webTextProto},
	}
	for name, c := range clients {
		for _, tc := range cases {
			a := webCall(t, c, "http://"+addr+path, tc.ctype, appendFrame(nil, reqMsg), map[string]string{"Accept": tc.accept})
			what := name + " " + tc.ctype + " accept " + tc.accept
			if a.httpStatus != 200 || a.status() != 0 || len(a.msgs) != 1 {
				t.Fatalf("%s: HTTP %d, trailers %v, %d messages", what, a.httpStatus, a.trailers, len(a.msgs))
			}
			if !bytes.Equal(a.msgs[0], native.msgs[0]) {
				t.Errorf("%s: the answer differs from native gRPC's", what)
			}
			if got := a.header.Get("Content-Type"); got != tc.answerType {
				t.Errorf("%s: content type %q, want %q", what, got, tc.answerType)
			}
			if a.header.Get(query.HeightHeader) != native.header.Get(query.HeightHeader) || a.header.Get(query.HeightHeader) == "" {
				t.Errorf("%s: height header %q, native %q", what, a.header.Get(query.HeightHeader), native.header.Get(query.HeightHeader))
			}
			// The status travels in the body, not as headers.
			if a.header.Get("Grpc-Status") != "" || a.header.Get("Trailer") != "" {
				t.Errorf("%s: status headers %v", what, a.header)
			}
		}
	}
}

// Failures are statuses in the trailer frame, as native gRPC's are
// trailers; what is not a gRPC-Web call at all is an HTTP error.
func TestWebStatuses(t *testing.T) {
	addr := serve(t, 2)
	frame := func(m protobuf.Message) []byte { return appendFrame(nil, protobuf.Marshal(m)) }
	cases := []struct {
		name, ctype, path string
		body              []byte
		want              query.Code
		msg               string
	}{
		{"not found", webProto, "/cosmos.staking.v1beta1.Query/Validator",
			frame(&query.QueryValidatorRequest{ValidatorAddr: query.Bech32(query.ValidatorPrefix, querytest.Addr(9))}), query.NotFound, "not found"},
		{"unknown method", webProto, "/cosmos.bank.v1beta1.Query/Nothing", frame(&query.QueryTotalSupplyRequest{}), query.Unimplemented, "unknown method Nothing"},
		{"no message", webTextProto, "/cosmos.bank.v1beta1.Query/TotalSupply", nil, query.Unimplemented, "no request message"},
		{"cut short", webProto, "/cosmos.bank.v1beta1.Query/TotalSupply", []byte{0, 0, 0, 0, 9, 1}, query.Internal, "cut short"},
		{"too large", webTextProto, "/cosmos.bank.v1beta1.Query/TotalSupply", []byte{0, 0xff, 0, 0, 0}, query.ResourceExhaust, "larger than max"},
		{"two messages", webProto, "/cosmos.bank.v1beta1.Query/TotalSupply", append(frame(&query.QueryTotalSupplyRequest{}), frame(&query.QueryTotalSupplyRequest{})...), query.Unimplemented, "more than one"},
	}
	for _, tc := range cases {
		a := webCall(t, http.DefaultClient, "http://"+addr+tc.path, tc.ctype, tc.body, nil)
		if a.httpStatus != 200 || a.status() != int(tc.want) || !strings.Contains(a.trailers["grpc-message"], tc.msg) || len(a.msgs) != 0 {
			t.Errorf("%s: HTTP %d, trailers %v, %d messages; want %d %q", tc.name, a.httpStatus, a.trailers, len(a.msgs), tc.want, tc.msg)
		}
	}
	// A -text body that is not base64.
	req, _ := http.NewRequest("POST", "http://"+addr+"/cosmos.bank.v1beta1.Query/TotalSupply", strings.NewReader("AAAA*AAA"))
	req.Header.Set("Content-Type", webTextProto)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if _, tr, err := parseWeb(raw, true); err != nil || tr["grpc-status"] != strconv.Itoa(int(query.Internal)) || !strings.Contains(tr["grpc-message"], "not base64") {
		t.Errorf("bad base64: %v %v", tr, err)
	}
	// gRPC-Web in JSON is not served; nor is a GET.
	for _, tc := range []struct{ method, ctype string }{{"POST", "application/grpc-web+json"}, {"GET", webProto}} {
		req, _ := http.NewRequest(tc.method, "http://"+addr+"/cosmos.bank.v1beta1.Query/TotalSupply", nil)
		req.Header.Set("Content-Type", tc.ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := map[string]int{"POST": http.StatusUnsupportedMediaType, "GET": http.StatusMethodNotAllowed}[tc.method]
		if resp.StatusCode != want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.ctype, resp.StatusCode, want)
		}
	}
}

// A -text request may come as several base64 runs, each padded: a
// client that encodes each buffer it flushes apart.
func TestWebTextRuns(t *testing.T) {
	addr := serve(t, 3)
	const path = "/cosmos.bank.v1beta1.Query/Balance"
	msg := appendFrame(nil, protobuf.Marshal(&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: "achain"}))
	var body []byte
	for _, part := range [][]byte{msg[:1], msg[1:5], msg[5:]} {
		body = base64.StdEncoding.AppendEncode(body, part)
	}
	if !bytes.Contains(body[:len(body)-2], []byte("=")) {
		t.Fatal("the runs have no inner padding: the test proves nothing")
	}
	req, _ := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/grpc-web-text")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	msgs, tr, err := parseWeb(raw, true)
	var bal query.QueryBalanceResponse
	if err != nil || tr["grpc-status"] != "0" || len(msgs) != 1 || protobuf.Unmarshal(msgs[0], &bal) != nil {
		t.Fatalf("%v %v %d", err, tr, len(msgs))
	}
	if bal.Balance.Amount.ProtoText() != "10000000000000000000000" {
		t.Errorf("balance %s", bal.Balance.Amount.ProtoText())
	}
}

// A browser's preflight of a gRPC-Web call is allowed the headers
// gRPC-Web sends, and the call's answer lets the page read the status
// and height headers.
func TestWebCORS(t *testing.T) {
	addr := serveWith(t, front.New(front.Config{}), front.Options{CORSOrigins: []string{"*"}})
	url := "http://" + addr + "/cosmos.bank.v1beta1.Query/TotalSupply"
	req, _ := http.NewRequest("OPTIONS", url, nil)
	req.Header.Set("Origin", "http://dashboard.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-grpc-web,x-user-agent,grpc-timeout,x-cosmos-block-height")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "http://dashboard.example" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	for _, h := range []string{"content-type", "x-grpc-web", "x-user-agent", "grpc-timeout", "x-cosmos-block-height"} {
		if !strings.Contains(allowed, h) {
			t.Errorf("preflight allows %q, not %s", allowed, h)
		}
	}
	a := webCall(t, http.DefaultClient, url, webProto, appendFrame(nil, nil), map[string]string{"Origin": "http://dashboard.example"})
	exposed := strings.ToLower(a.header.Get("Access-Control-Expose-Headers"))
	if a.status() != 0 || a.header.Get("Access-Control-Allow-Origin") != "http://dashboard.example" ||
		!strings.Contains(exposed, "grpc-status") || !strings.Contains(exposed, "grpc-message") || !strings.Contains(exposed, "x-cosmos-block-height") {
		t.Errorf("call: trailers %v, headers %v", a.trailers, a.header)
	}
}

// The front's refusals reach a gRPC-Web client as statuses it can read.
func TestWebRefusal(t *testing.T) {
	f := front.New(front.Config{Limits: front.Limits{PerSecond: 1, PerMinute: 1}})
	addr := serveWith(t, f, front.Options{})
	url := "http://" + addr + "/cosmos.bank.v1beta1.Query/TotalSupply"
	if a := webCall(t, http.DefaultClient, url, webProto, appendFrame(nil, nil), nil); a.status() != 0 {
		t.Fatalf("first call: %v", a.trailers)
	}
	a := webCall(t, http.DefaultClient, url, webTextProto, appendFrame(nil, nil), nil)
	if a.httpStatus != 200 || a.status() != int(query.ResourceExhaust) || !strings.Contains(a.trailers["grpc-message"], "rate limit") {
		t.Errorf("refused call: HTTP %d %v", a.httpStatus, a.trailers)
	}
}

// Reflection, the port's one stream, answers a gRPC-Web client that
// sends its request and ends the body.
func TestWebReflection(t *testing.T) {
	addr := serve(t, 1)
	list := ""
	body := appendFrame(nil, protobuf.Marshal(&ServerReflectionRequest[v1]{ListServices: &list}))
	a := webCall(t, http.DefaultClient, "http://"+addr+"/"+reflectionV1+"/ServerReflectionInfo", webProto, body, nil)
	var resp ServerReflectionResponse[v1]
	if a.status() != 0 || len(a.msgs) != 1 || protobuf.Unmarshal(a.msgs[0], &resp) != nil || resp.ListServicesResponse == nil {
		t.Fatalf("%v %d", a.trailers, len(a.msgs))
	}
	found := false
	for _, s := range resp.ListServicesResponse.Service {
		found = found || s.Name == "cosmos.staking.v1beta1.Query"
	}
	if !found {
		t.Errorf("services: %+v", resp.ListServicesResponse.Service)
	}
}

// WebOr puts gRPC-Web on another port's handler (the REST port) and
// leaves the rest of its requests alone.
func TestWebOr(t *testing.T) {
	s := New(query.New(querytest.New(2).Backend()))
	other := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "rest") })
	h := WebOr(other, s)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/cosmos/bank/v1beta1/supply", nil))
	if rec.Body.String() != "rest" {
		t.Errorf("REST request: %q", rec.Body.String())
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/cosmos.bank.v1beta1.Query/TotalSupply", bytes.NewReader(appendFrame(nil, nil)))
	req.Header.Set("Content-Type", webProto)
	h.ServeHTTP(rec, req)
	msgs, tr, err := parseWeb(rec.Body.Bytes(), false)
	if err != nil || tr["grpc-status"] != "0" || len(msgs) != 1 {
		t.Errorf("gRPC-Web request: %v %v %d", err, tr, len(msgs))
	}
}

// The text decoder reads any split of a message into padded base64
// runs back as the message, and reads whatever else it is given
// without failing other than with errText.
func FuzzTextBody(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x02\x08\x01"), []byte{1, 4}, false)
	f.Add([]byte("hello, world"), []byte{}, true)
	f.Add([]byte("QUJD=AAA"), []byte{3}, true)
	f.Add([]byte("QUJDRA"), []byte{}, true)
	f.Fuzz(func(t *testing.T, data, cuts []byte, raw bool) {
		if raw {
			// Arbitrary characters: no panic; a body the standard
			// decoder reads in one run reads the same here.
			got, err := io.ReadAll(&textBody{body: io.NopCloser(bytes.NewReader(data))})
			if err != nil && err != errText {
				t.Fatalf("error %v", err)
			}
			if want, werr := base64.StdEncoding.DecodeString(string(data)); werr == nil && (err != nil || !bytes.Equal(got, want)) {
				t.Fatalf("%q: got %x %v, want %x", data, got, err, want)
			}
			return
		}
		var body []byte
		rest := data
		for _, c := range cuts {
			n := int(c) % (len(rest) + 1)
			body = base64.StdEncoding.AppendEncode(body, rest[:n])
			rest = rest[n:]
		}
		body = base64.StdEncoding.AppendEncode(body, rest)
		// Read through a reader that hands out one byte at a time, as a
		// slow connection would.
		got, err := io.ReadAll(&textBody{body: io.NopCloser(&oneByte{body})})
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("runs %q: got %x %v, want %x", body, got, err, data)
		}
	})
}

type oneByte struct{ b []byte }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(o.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], o.b = o.b[0], o.b[1:]
	return 1, nil
}

// Whatever body a gRPC-Web call carries, the answer is well formed: at
// most one message, then one trailer frame with a status; never a panic
// or a broken frame.
func FuzzWebCall(f *testing.F) {
	s := New(query.New(querytest.New(2).Backend()))
	f.Add(appendFrame(nil, nil), uint8(0))
	f.Add([]byte("AAAAAAA="), uint8(1))
	f.Add([]byte{0x80, 0, 0, 0, 1, 'x'}, uint8(0))
	f.Add([]byte{0, 0, 0, 0, 2, 0x0a, 0x09}, uint8(2))
	paths := []string{"/cosmos.bank.v1beta1.Query/TotalSupply", "/cosmos.staking.v1beta1.Query/Validator", "/" + reflectionV1 + "/ServerReflectionInfo"}
	f.Fuzz(func(t *testing.T, body []byte, sel uint8) {
		ctype := []string{webProto, webTextProto}[sel&1]
		req := httptest.NewRequest("POST", paths[int(sel>>1)%len(paths)], bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		msgs, tr, err := parseWeb(rec.Body.Bytes(), sel&1 == 1)
		if err != nil || rec.Code != 200 {
			t.Fatalf("HTTP %d: %v (%q)", rec.Code, err, rec.Body.Bytes())
		}
		if _, err := strconv.Atoi(tr["grpc-status"]); err != nil {
			t.Fatalf("trailers %v", tr)
		}
		if tr["grpc-status"] != "0" && len(msgs) > 0 && !strings.Contains(req.URL.Path, "Reflection") {
			t.Fatalf("a failed unary call with %d messages", len(msgs))
		}
	})
}
