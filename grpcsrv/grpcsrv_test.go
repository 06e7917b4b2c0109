package grpcsrv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// server picks the HTTP/2 server the tests and benchmarks run on:
// "h2" (internal/h2), "net/http", or "" for the default.
var server = flag.String("grpc.server", "", "HTTP/2 server of the gRPC port: h2 or net/http (default: the package's)")

// listener declares the gRPC port on the server the flags pick.
func listener(addr string, h http.Handler, o front.Options) front.Listener {
	if *server == "" {
		return Listener(addr, h, o)
	}
	l, ok := Servers[*server]
	if !ok {
		panic("unknown -grpc.server " + *server)
	}
	return l(addr, h, o)
}

// serve starts a gRPC listener on loopback and returns its address.
func serve(t testing.TB, validators int) string {
	t.Helper()
	f := front.New(front.Config{})
	srv, err := f.Listen(listener("127.0.0.1:0", New(query.New(querytest.New(validators).Backend())), front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return srv.Addr()
}

// h2c is an HTTP/2 client without TLS, as gRPC clients connect.
func h2c() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: p}}
}

type result struct {
	httpStatus int
	status     int
	message    string
	msgs       [][]byte
	header     http.Header // response headers (metadata)
}

// rawCall posts body to path and collects the messages and the status,
// from trailers or, for a Trailers-Only answer, from the headers.
func rawCall(t testing.TB, c *http.Client, addr, path string, body []byte, hdr map[string]string) result {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	res := result{httpStatus: resp.StatusCode, status: -1, header: resp.Header}
	for {
		m, err := readFrame(resp.Body, 1<<24)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		res.msgs = append(res.msgs, m)
	}
	st := resp.Trailer.Get("Grpc-Status")
	msg := resp.Trailer.Get("Grpc-Message")
	if st == "" {
		st, msg = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	if st != "" {
		res.status, _ = strconv.Atoi(st)
	}
	res.message = msg
	return res
}

func call(t testing.TB, c *http.Client, addr, path string, req, resp protobuf.Message) result {
	t.Helper()
	res := rawCall(t, c, addr, path, appendFrame(nil, protobuf.Marshal(req)), nil)
	if res.status == 0 {
		if len(res.msgs) != 1 {
			t.Fatalf("%s: %d messages", path, len(res.msgs))
		}
		if err := protobuf.Unmarshal(res.msgs[0], resp); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func TestUnary(t *testing.T) {
	addr := serve(t, 7)
	c := h2c()
	var resp query.QueryValidatorsResponse
	res := call(t, c, addr, "/cosmos.staking.v1beta1.Query/Validators",
		&query.QueryValidatorsRequest{Pagination: &query.PageRequest{Limit: 3, CountTotal: true}}, &resp)
	if res.status != 0 || len(resp.Validators) != 3 || resp.Pagination.Total != 7 || resp.Pagination.NextKey == nil {
		t.Fatalf("%+v %+v", res, resp.Pagination)
	}
	// Decimals travel as the unscaled integer: 1000e18 shares times 10^18.
	if got := resp.Validators[0].DelegatorShares.ProtoText(); got != "1000000000000000000000"+strings.Repeat("0", 18) {
		t.Errorf("shares on the wire: %s", got)
	}
	if resp.Validators[0].ConsensusPubkey.TypeURL != "/cosmos.crypto.secp256k1.PubKey" {
		t.Errorf("pubkey: %+v", resp.Validators[0].ConsensusPubkey)
	}
	var bal query.QueryBalanceResponse
	res = call(t, c, addr, "/cosmos.bank.v1beta1.Query/Balance",
		&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: "achain"}, &bal)
	if res.status != 0 || bal.Balance.Amount.ProtoText() != "10000000000000000000000" {
		t.Fatalf("%+v %+v", res, bal)
	}
}

func TestStatuses(t *testing.T) {
	addr := serve(t, 2)
	c := h2c()
	frame := func(m protobuf.Message) []byte { return appendFrame(nil, protobuf.Marshal(m)) }
	cases := []struct {
		name, path string
		body       []byte
		hdr        map[string]string
		want       query.Code
		msg        string
	}{
		{"not found", "/cosmos.staking.v1beta1.Query/Validator",
			frame(&query.QueryValidatorRequest{ValidatorAddr: query.Bech32(query.ValidatorPrefix, querytest.Addr(9))}), nil, query.NotFound, "not found"},
		{"bad address", "/cosmos.bank.v1beta1.Query/AllBalances",
			frame(&query.QueryAllBalancesRequest{Address: "chain1qqqq"}), nil, query.InvalidArgument, "invalid address"},
		{"unknown method", "/cosmos.bank.v1beta1.Query/Nothing", frame(&query.QueryTotalSupplyRequest{}), nil, query.Unimplemented, "unknown method Nothing"},
		{"unknown service", "/cosmos.feegrant.v1beta1.Query/Allowances", frame(&query.QueryTotalSupplyRequest{}), nil, query.Unimplemented, "unknown service"},
		{"no message", "/cosmos.bank.v1beta1.Query/TotalSupply", nil, nil, query.Unimplemented, "no request message"},
		{"two messages", "/cosmos.bank.v1beta1.Query/TotalSupply", append(frame(&query.QueryTotalSupplyRequest{}), frame(&query.QueryTotalSupplyRequest{})...), nil, query.Unimplemented, "more than one"},
		{"cut short", "/cosmos.bank.v1beta1.Query/TotalSupply", []byte{0, 0, 0, 0, 9, 1}, nil, query.Internal, "cut short"},
		{"undecodable", "/cosmos.bank.v1beta1.Query/TotalSupply", appendFrame(nil, []byte{0x0a, 0x09}), nil, query.Internal, "unmarshalling"},
		{"compressed", "/cosmos.bank.v1beta1.Query/TotalSupply", []byte{1, 0, 0, 0, 0}, nil, query.Unimplemented, "compressed"},
		{"too large", "/cosmos.bank.v1beta1.Query/TotalSupply", []byte{0, 0xff, 0, 0, 0}, nil, query.ResourceExhaust, "larger than max"},
		{"encoding", "/cosmos.bank.v1beta1.Query/TotalSupply", frame(&query.QueryTotalSupplyRequest{}), map[string]string{"Grpc-Encoding": "gzip"}, query.Unimplemented, "gzip"},
		{"bad timeout", "/cosmos.bank.v1beta1.Query/TotalSupply", frame(&query.QueryTotalSupplyRequest{}), map[string]string{"Grpc-Timeout": "5x"}, query.Internal, "grpc-timeout"},
		{"deadline", "/cosmos.bank.v1beta1.Query/TotalSupply", frame(&query.QueryTotalSupplyRequest{}), map[string]string{"Grpc-Timeout": "1n"}, query.DeadlineExceeded, "deadline"},
	}
	for _, tc := range cases {
		res := rawCall(t, c, addr, tc.path, tc.body, tc.hdr)
		if res.httpStatus != 200 || res.status != int(tc.want) || !strings.Contains(res.message, tc.msg) || len(res.msgs) != 0 {
			t.Errorf("%s: HTTP %d, status %d %q, %d messages; want %d %q", tc.name, res.httpStatus, res.status, res.message, len(res.msgs), tc.want, tc.msg)
		}
	}
	// Not gRPC at all.
	req, _ := http.NewRequest("POST", "http://"+addr+"/cosmos.bank.v1beta1.Query/TotalSupply", nil)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("json over h2: %v %v", resp, err)
	}
	req, _ = http.NewRequest("POST", "http://"+addr+"/cosmos.bank.v1beta1.Query/TotalSupply", nil)
	req.Header.Set("Content-Type", "application/grpc")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusHTTPVersionNotSupported {
		t.Errorf("HTTP/1.1: %v %v", resp, err)
	}
}

func TestEncodeMessage(t *testing.T) {
	if got := encodeMessage("50% off\nnaïve"); got != "50%25 off%0Ana%C3%AFve" {
		t.Errorf("%s", got)
	}
	for in, ok := range map[string]bool{"1S": true, "99999999H": true, "100000000H": false, "": false, "5": false, "-1S": false} {
		if _, err := parseTimeout(in); (err == nil) != ok {
			t.Errorf("timeout %q: %v", in, err)
		}
	}
}

func reflectionCall(t *testing.T, c *http.Client, addr, svc string, reqs ...*ServerReflectionRequest[v1]) []ServerReflectionResponse[v1] {
	t.Helper()
	var body []byte
	for _, r := range reqs {
		body = appendFrame(body, protobuf.Marshal(r))
	}
	res := rawCall(t, c, addr, "/"+svc+"/ServerReflectionInfo", body, nil)
	if res.status != 0 {
		t.Fatalf("reflection: %+v", res)
	}
	out := make([]ServerReflectionResponse[v1], len(res.msgs))
	for i, m := range res.msgs {
		if err := protobuf.Unmarshal(m, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestReflection(t *testing.T) {
	addr := serve(t, 1)
	c := h2c()
	empty, sym, missing := "", "cosmos.staking.v1beta1.Query", "cosmos.nothing.Query"
	file := "cosmos/base/v1beta1/coin.proto"
	for _, svc := range []string{reflectionV1, reflectionV1Alpha} {
		resps := reflectionCall(t, c, addr, svc,
			&ServerReflectionRequest[v1]{ListServices: &empty},
			&ServerReflectionRequest[v1]{FileContainingSymbol: &sym},
			&ServerReflectionRequest[v1]{FileContainingSymbol: &missing},
			&ServerReflectionRequest[v1]{FileByFilename: &file})
		if len(resps) != 4 {
			t.Fatalf("%s: %d answers", svc, len(resps))
		}
		var names []string
		for _, s := range resps[0].ListServicesResponse.Service {
			names = append(names, s.Name)
		}
		for _, want := range []string{"cosmos.bank.v1beta1.Query", "cosmos.staking.v1beta1.Query", "cosmos.base.tendermint.v1beta1.Service", reflectionV1, reflectionV1Alpha} {
			if !strings.Contains(strings.Join(names, " "), want) {
				t.Errorf("%s: %s not listed in %v", svc, want, names)
			}
		}
		fds := resps[1].FileDescriptorResponse.FileDescriptorProto
		var fd protobuf.FileDescriptorProto
		if err := protobuf.Unmarshal(fds[0], &fd); err != nil || fd.Name != "cosmos/staking/v1beta1/query.proto" || fd.Service[0].Name != "Query" {
			t.Errorf("%s: %+v %v", svc, fd.Name, err)
		}
		if len(fds) < 3 {
			t.Errorf("%s: the staking file came without its imports (%d files)", svc, len(fds))
		}
		if e := resps[2].ErrorResponse; e == nil || e.ErrorCode != int32(query.NotFound) {
			t.Errorf("%s: missing symbol: %+v", svc, resps[2])
		}
		// The file asked by name is sent again even though it went out as
		// an import.
		if r := resps[3].FileDescriptorResponse; r == nil || len(r.FileDescriptorProto) != 1 {
			t.Errorf("%s: by filename: %+v", svc, resps[3])
		}
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 2, 8, 1})
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		for {
			msg, err := readFrame(r, 1<<16)
			if err != nil {
				var big *errFrameTooLarge
				if err != io.EOF && err != io.ErrUnexpectedEOF && err != errCompressed && !errors.As(err, &big) && !strings.Contains(err.Error(), "compressed flag") {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(msg) > 1<<16 {
				t.Fatalf("message of %d bytes over the limit", len(msg))
			}
			// What was read re-frames to the same bytes.
			var req query.QueryValidatorsRequest
			protobuf.Unmarshal(msg, &req)
			if got := appendFrame(nil, msg); binary.BigEndian.Uint32(got[1:]) != uint32(len(msg)) {
				t.Fatal("frame length")
			}
		}
	})
}

// A call past the client's rate limit is refused as a gRPC status
// (RESOURCE_EXHAUSTED), not as an HTTP error page.
func TestRateLimitRefusal(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	f := front.New(front.Config{Limits: front.Limits{PerSecond: 1, PerMinute: 60}, Now: func() time.Time { return now }})
	srv, err := f.Listen(listener("127.0.0.1:0", New(query.New(querytest.New(1).Backend())), front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	c := h2c()
	body := appendFrame(nil, protobuf.Marshal(&query.QueryTotalSupplyRequest{}))
	if res := rawCall(t, c, srv.Addr(), "/cosmos.bank.v1beta1.Query/TotalSupply", body, nil); res.status != 0 {
		t.Fatalf("first call: %+v", res)
	}
	res := rawCall(t, c, srv.Addr(), "/cosmos.bank.v1beta1.Query/TotalSupply", body, nil)
	if res.httpStatus != 200 || res.status != int(query.ResourceExhaust) || res.message == "" {
		t.Fatalf("second call: %+v", res)
	}
}

// A connection past the client's cap is ended as it opens, with an
// HTTP/2 GOAWAY (ENHANCE_YOUR_CALM) that carries the reason, on either
// HTTP/2 server; the connection within the cap is served on.
func TestConnCapRefusal(t *testing.T) {
	f := front.New(front.Config{Limits: front.Limits{Conns: 1}})
	srv, err := f.Listen(listener("127.0.0.1:0", New(query.New(querytest.New(1).Backend())), front.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	body := appendFrame(nil, protobuf.Marshal(&query.QueryTotalSupplyRequest{}))
	first := h2c() // keeps its connection open, taking the one slot
	if res := rawCall(t, first, srv.Addr(), "/cosmos.bank.v1beta1.Query/TotalSupply", body, nil); res.status != 0 {
		t.Fatalf("first connection: %+v", res)
	}
	req, _ := http.NewRequest("POST", "http://"+srv.Addr()+"/cosmos.bank.v1beta1.Query/TotalSupply", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/grpc")
	// Go's client reports the code, not the debug data (the front's
	// tests read that).
	if resp, err := h2c().Do(req); err == nil || !strings.Contains(err.Error(), "ENHANCE_YOUR_CALM") {
		if err == nil {
			resp.Body.Close()
		}
		t.Fatalf("second connection: %v", err)
	}
	if res := rawCall(t, first, srv.Addr(), "/cosmos.bank.v1beta1.Query/TotalSupply", body, nil); res.status != 0 {
		t.Fatalf("first connection after the refusal: %+v", res)
	}
}
