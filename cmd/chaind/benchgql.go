package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// benchGraphQL is `chaind bench graphql`: closed-loop load of one GraphQL
// query on any node's /graphql endpoint (chaind or go-ethereum --graphql),
// printed as `chaind bench rpc` prints JSON-RPC load.
func benchGraphQL(args []string) int {
	fs := flag.NewFlagSet("chaind bench graphql", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:8545/graphql", "GraphQL endpoint")
	conns := fs.Int("conns", 32, "concurrent connections (one worker each)")
	duration := fs.Duration("duration", 10*time.Second, "measured time per run")
	warmup := fs.Duration("warmup", time.Second, "unmeasured load before each run")
	runs := fs.Int("runs", 1, "runs; with more than one the medians are printed last")
	query := fs.String("query", "block", "block (a block with its transactions and logs), balance (an account balance), range (10 blocks) or a query text")
	number := fs.Uint64("number", 30, "block: the block; range: the first block")
	addr := fs.String("addr", "0x6295ee1b4f6dd65047762f924ecd367c17eabf8f", "balance: the account")
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
	q := *query
	switch q {
	case "block":
		q = fmt.Sprintf(`{ block(number: %d) { number hash gasUsed transactions { hash nonce from { address } to { address } value gas gasPrice inputData status gasUsed logs { index topics data account { address } } } } }`, *number)
	case "balance":
		q = fmt.Sprintf(`{ block { account(address: %q) { balance } } }`, *addr)
	case "range":
		q = fmt.Sprintf(`{ blocks(from: %d, to: %d) { number hash parent { hash } gasUsed gasLimit timestamp transactionCount } }`, *number, *number+9)
	}
	body, _ := json.Marshal(map[string]string{"query": q})
	c := newRPCClient(*url, *conns)

	// One checked request first: a bench of error answers measures nothing.
	rc, err := newRawConn(*url, body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind bench graphql:", err)
		return 1
	}
	res, err := rc.roundTrip(nil)
	rc.close()
	if err == nil {
		err = checkGraphQL(res)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind bench graphql:", err)
		return 1
	}
	fmt.Printf("%s -> %.300s\n", q, res)

	var all []benchResult
	for i := 0; i < *runs; i++ {
		if *warmup > 0 {
			c.loadChecked(body, *conns, *warmup, checkGraphQL)
		}
		r := c.loadChecked(body, *conns, *duration, checkGraphQL)
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

var (
	gqlErrors = []byte(`"errors"`)
	gqlData   = []byte(`"data"`)
)

// checkGraphQL is a cheap check that a body is data, not errors.
func checkGraphQL(b []byte) error {
	if bytes.Contains(b, gqlErrors) || !bytes.Contains(b, gqlData) {
		return fmt.Errorf("answer %.200s", b)
	}
	return nil
}
