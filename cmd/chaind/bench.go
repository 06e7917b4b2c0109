package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

func init() {
	register(command{"bench", "measure a node: bench startup | idle | dev | rpc | graphql | state | devnet (see bench --help)", runBench})
}

func runBench(args []string) int {
	if len(args) == 0 || wantsHelp(args) {
		fmt.Println(`usage: chaind bench startup [--runs 20]     chaind --dev: process start to the first answered eth_chainId
       chaind bench idle [--wait 10s]       resident memory of an idle chaind --dev
       chaind bench dev [flags]             sustained throughput of signed raw transactions (bench dev --help)
       chaind bench rpc [flags]             JSON-RPC request rate and latency (bench rpc --help)
       chaind bench graphql [flags]         GraphQL request rate and latency (bench graphql --help)
       chaind bench state [flags]           a node at scale: N accounts and token holders (bench state --help)
       chaind bench devnet [flags]          a devnet of validator processes idle, then under a transfer load: missed blocks, tx/s, intervals (bench devnet --help)`)
		return 0
	}
	switch args[0] {
	case "startup":
		return benchStartup(args[1:])
	case "idle":
		return benchIdle(args[1:])
	case "dev":
		return benchDev(args[1:])
	case "rpc":
		return benchRPC(args[1:])
	case "graphql":
		return benchGraphQL(args[1:])
	case "state":
		return benchState(args[1:])
	case "devnet":
		return benchDevnet(args[1:])
	}
	return usageError("chaind bench", fmt.Sprintf("unknown benchmark %q (startup, idle, dev, rpc, graphql, state or devnet)", args[0]))
}

// selfBinary is the chaind the benchmarks start as children.
func selfBinary(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return os.Executable()
}

func freePort() (int, error) { return freeLoopbackPort("127.0.0.1") }

func benchStartup(args []string) int {
	fs := flag.NewFlagSet("chaind bench startup", flag.ContinueOnError)
	runs := fs.Int("runs", 20, "number of starts; the median is reported")
	method := fs.String("method", "eth_chainId", "the JSON-RPC method whose first answer ends a start")
	bin := fs.String("bin", "", "chaind binary to start (default: this one)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*runs < 1, "--runs must be at least 1"},
		noArgs(fs),
	); !ok {
		return code
	}
	exe, err := selfBinary(*bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind bench:", err)
		return 1
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":` + strconv.Quote(*method) + `,"params":[]}`)
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var times []time.Duration
	for i := 0; i < *runs; i++ {
		port, err := freePort()
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind bench:", err)
			return 1
		}
		url := "http://127.0.0.1:" + strconv.Itoa(port)
		cmd := exec.Command(exe, "--dev", "--http.port", strconv.Itoa(port), "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1", "--log-level", "warn")
		start := time.Now()
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "chaind bench:", err)
			return 1
		}
		var took time.Duration
		for {
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err == nil {
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 && bytes.Contains(answer, []byte(`"result"`)) {
					took = time.Since(start)
					break
				}
			}
			if time.Since(start) > 20*time.Second {
				cmd.Process.Kill()
				cmd.Wait()
				fmt.Fprintln(os.Stderr, "chaind bench: no answer within 20s")
				return 1
			}
			time.Sleep(500 * time.Microsecond)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		times = append(times, took)
		fmt.Printf("run %2d: %s\n", i+1, took.Round(100*time.Microsecond))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("chaind --dev, process start to first %s answer: median %s (min %s, max %s, %d runs; load average %s)\n",
		*method, times[len(times)/2].Round(100*time.Microsecond), times[0].Round(100*time.Microsecond), times[len(times)-1].Round(100*time.Microsecond), len(times), loadAvg())
	return 0
}

func benchIdle(args []string) int {
	fs := flag.NewFlagSet("chaind bench idle", flag.ContinueOnError)
	wait := fs.Duration("wait", 10*time.Second, "how long the node idles before its RSS is read")
	runs := fs.Int("runs", 3, "number of nodes measured; the median is reported")
	bin := fs.String("bin", "", "chaind binary to start (default: this one)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*runs < 1, "--runs must be at least 1"},
		check{*wait < 0, "--wait must not be negative"},
		noArgs(fs),
	); !ok {
		return code
	}
	exe, err := selfBinary(*bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind bench:", err)
		return 1
	}
	var rss []uint64
	for i := 0; i < *runs; i++ {
		p, err := devload.Start(exe, "--dev", "--http.port", "0", "--ws.port", "0", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1")
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind bench:", err)
			return 1
		}
		time.Sleep(*wait)
		r, err := p.RSS()
		p.Stop(5 * time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind bench:", err)
			return 1
		}
		rss = append(rss, r)
		fmt.Printf("run %d: VmRSS %.1f MiB after %s idle\n", i+1, float64(r)/(1<<20), *wait)
	}
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	fmt.Printf("idle RSS of chaind --dev: median %.1f MiB (%d runs)\n", float64(rss[len(rss)/2])/(1<<20), len(rss))
	return 0
}
