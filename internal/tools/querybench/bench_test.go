package querybench

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chaind/chaind/cometrpc"
	"github.com/chaind/chaind/grpcsrv"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/chaind/chaind/lcd"
)

// workers is how many calls are in flight at once on every path.
const workers = 32

// rounds is how many times the paths take turns within one run.
const rounds = 10

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// queries are the benchmarked calls: the same request on each path. The
// validators page (100 of 200, about 30 KB) is the heavy one; a balance
// is the light one, where per-call overheads dominate.
var queries = []struct {
	name, grpcPath, restPath string
	req                      protobuf.Message
}{
	{"validators", "/cosmos.staking.v1beta1.Query/Validators", "/cosmos/staking/v1beta1/validators", &query.QueryValidatorsRequest{}},
	{"balance", "/cosmos.bank.v1beta1.Query/Balance", "/cosmos/bank/v1beta1/balances/" + query.Bech32(query.AccountPrefix, querytest.Addr(1)) + "/by_denom?denom=achain",
		&query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: "achain"}},
}

// paths starts the three listeners over one query layer and returns their
// base URLs.
func paths(b *testing.B) (grpcAddr, restURL, cometURL string) {
	b.Helper()
	fake := querytest.New(200)
	qb := fake.Backend()
	q := query.New(qb)
	f := front.New(front.Config{})
	start := func(l front.Listener) string {
		srv, err := f.Listen(l)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { srv.Shutdown(context.Background()) })
		return srv.Addr()
	}
	grpcAddr = start(grpcsrv.Listener("127.0.0.1:0", grpcsrv.New(q), front.Options{}))
	restURL = "http://" + start(lcd.Listener("127.0.0.1:0", lcd.New(q), front.Options{}))
	cs := cometrpc.New(q, cometrpc.Backend{Blocks: qb.Blocks, Consensus: qb.Consensus, Network: qb.Network})
	cometURL = "http://" + start(cometrpc.Listener("127.0.0.1:0", cs, front.Options{}))
	return grpcAddr, restURL, cometURL
}

// BenchmarkQueryPaths runs each query on each path, the paths taking
// turns in rounds within one run, and reports each path's calls/s and
// CPU per call and its ratio to gRPC's rate in the same round (medians
// over the rounds). Running each path as its own sub-benchmark, as this
// did before, measured them seconds apart (-count repeats a
// sub-benchmark back to back, it does not alternate them), which on a
// shared machine whose load swings several-fold within seconds made the
// ratios a matter of timing. The clients are Go's own: HTTP/2 on one
// connection for gRPC, as gRPC clients connect; HTTP/1.1 keep-alive
// connections, one per worker, for REST and abci_query, as browsers and
// cosmjs connect. Every answer is checked, not just counted.
func BenchmarkQueryPaths(b *testing.B) {
	grpcAddr, restURL, cometURL := paths(b)
	h2 := new(http.Protocols)
	h2.SetUnencryptedHTTP2(true)
	grpcClient := &http.Client{Transport: &http.Transport{Protocols: h2, MaxConnsPerHost: 1}}
	h1Client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: workers, MaxIdleConnsPerHost: workers}}
	// The abci_query client reads each answer whole to check it; its
	// buffers are reused, so the client's allocations do not weigh on
	// the path being measured (the others stream theirs to io.Discard).
	bufs := sync.Pool{New: func() any { return new(bytes.Buffer) }}
	for _, qc := range queries {
		msg := protobuf.Marshal(qc.req)
		frame := append([]byte{0, byte(len(msg) >> 24), byte(len(msg) >> 16), byte(len(msg) >> 8), byte(len(msg))}, msg...)
		grpcCall := func() error {
			req, _ := http.NewRequest("POST", "http://"+grpcAddr+qc.grpcPath, bytes.NewReader(frame))
			req.Header = http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}}
			resp, err := grpcClient.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if err != nil {
				return err
			}
			if st := resp.Trailer.Get("Grpc-Status"); st != "0" || n < 5 {
				return fmt.Errorf("grpc-status %q, %d bytes", st, n)
			}
			return nil
		}
		restCall := func() error {
			resp, err := h1Client.Get(restURL + qc.restPath)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return err
			}
			if resp.StatusCode != 200 {
				return fmt.Errorf("REST status %d", resp.StatusCode)
			}
			return nil
		}
		abciBody := `{"jsonrpc":"2.0","id":1,"method":"abci_query","params":{"path":"` + qc.grpcPath + `","data":"` + hex.EncodeToString(msg) + `"}}`
		abciCall := func() error {
			resp, err := h1Client.Post(cometURL, "application/json", strings.NewReader(abciBody))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			bp := bufs.Get().(*bytes.Buffer)
			defer bufs.Put(bp)
			bp.Reset()
			if _, err := bp.ReadFrom(resp.Body); err != nil {
				return err
			}
			body := bp.Bytes()
			if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"code":0,`)) {
				return fmt.Errorf("abci_query: %d %.200s", resp.StatusCode, body)
			}
			return nil
		}
		paths := []struct {
			name string
			do   func() error
		}{{"grpc", grpcCall}, {"rest", restCall}, {"abci_query", abciCall}}
		for _, p := range paths {
			if err := p.do(); err != nil {
				b.Fatalf("%s %s: %v", qc.name, p.name, err)
			}
		}
		b.Run(qc.name, func(b *testing.B) {
			// The paths take turns in short rounds, so that whatever else
			// the machine runs slows them alike; each path's rate and its
			// ratio to gRPC's in the same round are reported as medians
			// over the rounds.
			per := max(b.N/rounds, 1)
			rates := make([][]float64, len(paths))
			ratios := make([][]float64, len(paths))
			cpu := make([]float64, len(paths))
			b.ResetTimer()
			for range rounds {
				var grpcRate float64
				for i, p := range paths {
					s := querytest.Load(workers, per, p.do)
					if s.Errors > 0 {
						b.Fatalf("%s: %d errors, first: %v", p.name, s.Errors, s.FirstErr)
					}
					if i == 0 {
						grpcRate = s.Rate()
					}
					rates[i] = append(rates[i], s.Rate())
					ratios[i] = append(ratios[i], s.Rate()/grpcRate)
					cpu[i] += float64(s.CPU.Microseconds()) / float64(s.Calls) / rounds
				}
			}
			b.StopTimer()
			for i, p := range paths {
				b.ReportMetric(median(rates[i]), p.name+"-calls/s")
				b.ReportMetric(float64(cpu[i]), p.name+"-cpu-µs/call")
				if i > 0 {
					b.ReportMetric(median(ratios[i]), p.name+"/grpc")
				}
			}
		})
	}
}
