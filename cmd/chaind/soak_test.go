package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

// clientFrom is an HTTP client whose connections come from a loopback
// address of its own, so the node keeps its limits apart from the others'.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 1}}
}

// metricValue reads one unlabelled sample of the node's /metrics.
func metricValue(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("%s missing from /metrics", name)
	return 0
}

// TestSoakPublicLimits runs mixed load from 20 loopback clients against a
// --public node: 10 honest ones at half the per-second limit, which must
// never be refused, and 10 abusive ones at twice it (single calls,
// batches and more connections than allowed), which must be. Resident
// memory stays bounded, and once the clients leave the node's goroutines
// fall back to where they started. CHAIND_SOAK (a duration, default 60s)
// sets the length.
func TestSoakPublicLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("a 60 s soak; skipped with -short")
	}
	dur := 60 * time.Second
	if v, err := time.ParseDuration(os.Getenv("CHAIND_SOAK")); err == nil {
		dur = v
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.Setenv(asChaindEnv, "1")
	p, err := devload.Start(exe, "--dev", "--public", "--block-time", "1s", "--http.port", "0", "--ws.port", "-1", "--metrics", "--metrics.port", "0",
		"--explorer.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1")
	os.Unsetenv(asChaindEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(10 * time.Second)
	var metricsURL string
	re := regexp.MustCompile(`listening kind=metrics addr=(\S+)`)
	for i := 0; i < 100 && metricsURL == ""; i++ {
		if m := re.FindStringSubmatch(p.Log()); m != nil {
			metricsURL = "http://" + m[1] + "/metrics"
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if metricsURL == "" {
		t.Fatalf("no metrics listener logged:\n%s", p.Log())
	}
	goroutinesBefore := metricValue(t, metricsURL, "go_goroutines")

	calls := []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000001","latest"]}`,
		`{"jsonrpc":"2.0","id":3,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000004","data":"0x1234"},"latest"]}`,
		`{"jsonrpc":"2.0","id":4,"method":"eth_getLogs","params":[{"fromBlock":"0x0","toBlock":"latest"}]}`,
	}
	batch := "[" + strings.Join(calls, ",") + "]" // 4 calls
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var (
		wg                 sync.WaitGroup
		honestOK, abuseOK  atomic.Int64
		honestRefused      atomic.Int64
		abuseRefused, errs atomic.Int64
		firstHonestRefusal atomic.Value
		maxRSS             atomic.Uint64
	)
	send := func(c *http.Client, body string) (int, error) {
		resp, err := c.Post(p.URL, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for i := 0; i < 10; i++ {
		// Honest: 5 calls a second (half of 10/s; 300 a minute of 600).
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := clientFrom(fmt.Sprintf("127.0.0.%d", 10+i))
			defer c.CloseIdleConnections() // leaving: hang up
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				code, err := send(c, calls[n%len(calls)])
				switch {
				case err != nil:
					errs.Add(1)
				case code == http.StatusOK:
					honestOK.Add(1)
				default:
					honestRefused.Add(1)
					firstHonestRefusal.CompareAndSwap(nil, fmt.Sprintf("client %d call %d: HTTP %d", i, n, code))
				}
			}
		}(i)
		// Abusive: 20 calls a second, half of them in batches, from 8
		// connections (the cap is 5).
		for k := 0; k < 8; k++ {
			wg.Add(1)
			go func(i, k int) {
				defer wg.Done()
				c := clientFrom(fmt.Sprintf("127.0.0.%d", 50+i))
				defer c.CloseIdleConnections()
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for n := 0; ; n++ {
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
					}
					body := calls[n%len(calls)]
					if k%2 == 0 {
						body = batch
					}
					if code, err := send(c, body); err == nil && code == http.StatusOK {
						abuseOK.Add(1)
					} else if err == nil && code == http.StatusTooManyRequests {
						abuseRefused.Add(1)
					}
				}
			}(i, k)
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if rss, err := p.RSS(); err == nil && rss > maxRSS.Load() {
				maxRSS.Store(rss)
			}
		}
	}()
	wg.Wait()
	t.Logf("%v: honest %d ok, %d refused; abusive %d ok, %d refused; %d transport errors; peak RSS %d MiB",
		dur, honestOK.Load(), honestRefused.Load(), abuseOK.Load(), abuseRefused.Load(), errs.Load(), maxRSS.Load()>>20)
	if honestRefused.Load() > 0 {
		t.Errorf("honest clients under the limit were refused %d times (first: %v)", honestRefused.Load(), firstHonestRefusal.Load())
	}
	if errs.Load() > 0 {
		t.Errorf("%d honest calls failed in transport", errs.Load())
	}
	if honestOK.Load() == 0 || abuseRefused.Load() == 0 {
		t.Errorf("the load did not exercise the limits: %d honest answers, %d refusals of abusers", honestOK.Load(), abuseRefused.Load())
	}
	if limit := uint64(128 << 20); maxRSS.Load() > limit {
		t.Errorf("peak RSS %d MiB, want ≤ %d MiB", maxRSS.Load()>>20, limit>>20)
	}
	// The clients are gone: within a few seconds the node holds no more
	// goroutines than before (connections, handlers, timers all ended).
	// The margin covers the consensus engine's own comings and goings; a
	// leak per client (20 of them, 90 connections) is far above it.
	deadline := time.Now().Add(15 * time.Second)
	var after float64
	for {
		after = metricValue(t, metricsURL, "go_goroutines")
		if after <= goroutinesBefore+5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if after > goroutinesBefore+5 {
		t.Errorf("%v goroutines after the clients left, %v before", after, goroutinesBefore)
	}
}
