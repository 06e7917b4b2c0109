package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
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

// benchRPC is `chaind bench rpc`: a closed-loop JSON-RPC load generator
// (loadFlags.run) of one method.
func benchRPC(args []string) int {
	fs := flag.NewFlagSet("chaind bench rpc", flag.ContinueOnError)
	var lf loadFlags
	lf.define(fs, "http://127.0.0.1:8545", "JSON-RPC HTTP endpoint")
	method := fs.String("method", "eth_blockNumber", "eth_blockNumber, eth_getBalance or eth_call")
	addr := fs.String("addr", "", "eth_getBalance: account (default: the node's first account)")
	to := fs.String("to", "", "eth_call: contract (default: deploy storage42 with eth_sendTransaction)")
	data := fs.String("data", "0x", "eth_call: calldata")
	initcode := fs.String("initcode", "", "eth_call: file with the hex init code to deploy (default: built-in storage42)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(), append(lf.checks(), noArgs(fs))...); !ok {
		return code
	}
	c := newRPCClient(lf.url, lf.conns)
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
	return lf.run(loadRequest{body: body, check: checkAnswer})
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

// checkAnswer is a cheap check that a JSON-RPC body is a result, not an
// error.
var checkAnswer = answerCheck(`"error"`, `"result"`)

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
