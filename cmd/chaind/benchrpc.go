package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// storage42Initcode stores 42 in slot 0 and deploys a runtime that returns
// SLOAD(0): the cheapest eth_call that still reads state.
//
//	init:    PUSH1 42 PUSH1 0 SSTORE
//	         PUSH1 11 PUSH1 17 PUSH1 0 CODECOPY  (runtime follows at byte 17)
//	         PUSH1 11 PUSH1 0 RETURN
//	runtime: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
const storage42Initcode = "602a600055" + "600b6011600039" + "600b6000f3" + "60005460005260206000f3"

// benchRPC is `chaind bench rpc`: a closed-loop JSON-RPC load generator.
// Each of --conns workers owns one keep-alive connection and sends the
// next request as soon as the last answer is read, so req/s is what the
// node sustains at that concurrency and the latencies are per request.
func benchRPC(args []string) int {
	fs := flag.NewFlagSet("chaind bench rpc", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:8545", "JSON-RPC HTTP endpoint")
	conns := fs.Int("conns", 32, "concurrent connections (one worker each)")
	duration := fs.Duration("duration", 10*time.Second, "measured time per run")
	warmup := fs.Duration("warmup", time.Second, "unmeasured load before each run")
	runs := fs.Int("runs", 1, "runs; with more than one the medians are printed last")
	method := fs.String("method", "eth_blockNumber", "eth_blockNumber, eth_getBalance or eth_call")
	addr := fs.String("addr", "", "eth_getBalance: account (default: the node's first account)")
	to := fs.String("to", "", "eth_call: contract (default: deploy storage42 with eth_sendTransaction)")
	data := fs.String("data", "0x", "eth_call: calldata")
	initcode := fs.String("initcode", "", "eth_call: file with the hex init code to deploy (default: built-in storage42)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*conns < 1 || *duration <= 0 || *runs < 1, "--conns, --duration and --runs must be positive"},
		check{*warmup < 0, "--warmup must not be negative"},
		noArgs(fs),
	); !ok {
		return code
	}
	c := newRPCClient(*url, *conns)
	var params string
	switch *method {
	case "eth_blockNumber":
		params = "[]"
	case "eth_getBalance":
		a := *addr
		if a == "" {
			var err error
			if a, err = c.firstAccount(); err != nil {
				a = "0x0000000000000000000000000000000000000000"
			}
		}
		params = fmt.Sprintf(`[%q,"latest"]`, a)
	case "eth_call":
		target := *to
		if target == "" {
			code := storage42Initcode
			if *initcode != "" {
				b, err := os.ReadFile(*initcode)
				if err != nil {
					fmt.Fprintln(os.Stderr, "chaind bench rpc:", err)
					return 1
				}
				code = strings.TrimPrefix(strings.TrimSpace(string(b)), "0x")
			}
			if _, err := hex.DecodeString(code); err != nil {
				fmt.Fprintln(os.Stderr, "chaind bench rpc: init code is not hex:", err)
				return 1
			}
			var err error
			if target, err = c.deploy(code); err != nil {
				fmt.Fprintln(os.Stderr, "chaind bench rpc: deploy:", err)
				return 1
			}
			fmt.Printf("deployed %s\n", target)
		}
		params = fmt.Sprintf(`[{"to":%q,"data":%q},"latest"]`, target, *data)
	default:
		fmt.Fprintf(os.Stderr, "chaind bench rpc: unsupported --method %q\n", *method)
		return 2
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + *method + `","params":` + params + `}`)

	// One checked request first: a bench of error answers measures nothing.
	res, err := c.do(body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind bench rpc:", err)
		return 1
	}
	fmt.Printf("%s %s -> %s\n", *method, params, res)

	var all []benchResult
	for i := 0; i < *runs; i++ {
		if *warmup > 0 {
			c.load(body, *conns, *warmup)
		}
		r := c.load(body, *conns, *duration)
		all = append(all, r)
		fmt.Printf("run %d: %s\n", i+1, r)
	}
	if *runs > 1 {
		fmt.Printf("median of %d: %s\n", *runs, medianResult(all))
	}
	for _, r := range all {
		if r.errors > 0 {
			return 1
		}
	}
	return 0
}

type rpcClient struct {
	url  string
	http *http.Client
}

func newRPCClient(url string, conns int) *rpcClient {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	return &rpcClient{url: url, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// do sends one request and returns its result, or the error object as an error.
func (c *rpcClient) do(body []byte) (json.RawMessage, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("bad response %q: %w", b, err)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("error %d: %s", r.Error.Code, r.Error.Message)
	}
	return r.Result, nil
}

func (c *rpcClient) call(method, params string, out any) error {
	res, err := c.do([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return json.Unmarshal(res, out)
}

func (c *rpcClient) firstAccount() (string, error) {
	var accts []string
	if err := c.call("eth_accounts", "[]", &accts); err != nil {
		return "", err
	}
	if len(accts) == 0 {
		return "", errors.New("the node holds no accounts")
	}
	return accts[0], nil
}

// deploy creates a contract from the node's first account and waits for
// its receipt.
func (c *rpcClient) deploy(initcode string) (string, error) {
	from, err := c.firstAccount()
	if err != nil {
		return "", err
	}
	var hash string
	if err := c.call("eth_sendTransaction", fmt.Sprintf(`[{"from":%q,"input":"0x%s","gas":"0x30000"}]`, from, initcode), &hash); err != nil {
		return "", err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var rc *struct {
			Status          string `json:"status"`
			ContractAddress string `json:"contractAddress"`
		}
		if err := c.call("eth_getTransactionReceipt", fmt.Sprintf(`[%q]`, hash), &rc); err != nil {
			// go-ethereum answers this while it builds its index after start.
			if !strings.Contains(err.Error(), "indexing is in progress") {
				return "", err
			}
		}
		if rc != nil {
			if rc.Status != "0x1" {
				return "", fmt.Errorf("deployment %s failed", hash)
			}
			return rc.ContractAddress, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("deployment %s not mined within 60s", hash)
}

type benchResult struct {
	requests, errors int
	elapsed          time.Duration
	p50, p90, p99    time.Duration
	p999, max        time.Duration
	firstErr         error
}

func (r benchResult) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r benchResult) String() string {
	s := fmt.Sprintf("%d requests in %.1fs: %.0f req/s  p50 %s  p99 %s  max %s  errors %d  (p90 %s  p99.9 %s)",
		r.requests, r.elapsed.Seconds(), r.rate(), fmtLatency(r.p50), fmtLatency(r.p99), fmtLatency(r.max), r.errors,
		fmtLatency(r.p90), fmtLatency(r.p999))
	if r.firstErr != nil {
		s += " (first: " + r.firstErr.Error() + ")"
	}
	return s
}

func fmtLatency(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// load runs conns closed-loop workers for d and collects every latency.
func (c *rpcClient) load(body []byte, conns int, d time.Duration) benchResult {
	return c.loadChecked(body, conns, d, checkAnswer)
}

// loadChecked is load with the protocol's own check of an answer.
func (c *rpcClient) loadChecked(body []byte, conns int, d time.Duration, checkAnswer func([]byte) error) benchResult {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type worker struct {
		lat      []time.Duration
		errors   int
		firstErr error
	}
	ws := make([]worker, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range ws {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.lat = make([]time.Duration, 0, 1<<14)
			buf := make([]byte, 0, 4096)
			rc, err := newRawConn(c.url, body)
			if err != nil {
				w.errors, w.firstErr = 1, err
				return
			}
			defer rc.close()
			for ctx.Err() == nil {
				t0 := time.Now()
				buf, err = rc.roundTrip(buf)
				if err == nil {
					err = checkAnswer(buf)
				}
				w.lat = append(w.lat, time.Since(t0))
				if err != nil {
					w.errors++
					if w.firstErr == nil {
						w.firstErr = err
					}
				}
			}
		}(&ws[i])
	}
	wg.Wait()
	r := benchResult{elapsed: time.Since(start)}
	var lat []time.Duration
	for _, w := range ws {
		lat = append(lat, w.lat...)
		r.errors += w.errors
		if r.firstErr == nil {
			r.firstErr = w.firstErr
		}
	}
	r.requests = len(lat)
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		r.p50 = lat[len(lat)/2]
		r.p90 = lat[min(len(lat)-1, len(lat)*90/100)]
		r.p99 = lat[min(len(lat)-1, len(lat)*99/100)]
		r.p999 = lat[min(len(lat)-1, len(lat)*999/1000)]
		r.max = lat[len(lat)-1]
	}
	return r
}

var (
	errMarker    = []byte(`"error"`)
	resultMarker = []byte(`"result"`)
)

// checkAnswer is a cheap check that a body is a result, not an error (the
// full decode was done once before the run).
func checkAnswer(b []byte) error {
	if bytes.Contains(b, errMarker) || !bytes.Contains(b, resultMarker) {
		return fmt.Errorf("answer %.200s", b)
	}
	return nil
}

func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// medianResult is the run with the median request rate, with each latency
// figure replaced by the median of that figure over the runs.
func medianResult(rs []benchResult) benchResult {
	med := func(f func(benchResult) time.Duration) time.Duration {
		v := make([]time.Duration, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	sorted := append([]benchResult(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].rate() < sorted[j].rate() })
	m := sorted[len(sorted)/2]
	m.p50 = med(func(r benchResult) time.Duration { return r.p50 })
	m.p90 = med(func(r benchResult) time.Duration { return r.p90 })
	m.p99 = med(func(r benchResult) time.Duration { return r.p99 })
	m.p999 = med(func(r benchResult) time.Duration { return r.p999 })
	m.max = med(func(r benchResult) time.Duration { return r.max })
	m.errors = 0
	for _, r := range rs {
		m.errors += r.errors
	}
	m.firstErr = nil
	return m
}
