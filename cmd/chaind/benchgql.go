package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

// benchGraphQL is `chaind bench graphql`: closed-loop load of one GraphQL
// query on any node's /graphql endpoint (chaind or go-ethereum --graphql),
// printed as `chaind bench rpc` prints JSON-RPC load.
func benchGraphQL(args []string) int {
	fs := flag.NewFlagSet("chaind bench graphql", flag.ContinueOnError)
	var lf loadFlags
	lf.define(fs, "http://127.0.0.1:8545/graphql", "GraphQL endpoint")
	query := fs.String("query", "block", "block (a block with its transactions and logs), balance (an account balance), range (10 blocks) or a query text")
	number := fs.Uint64("number", 30, "block: the block; range: the first block")
	addr := fs.String("addr", "0x6295ee1b4f6dd65047762f924ecd367c17eabf8f", "balance: the account")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(), append(lf.checks(), noArgs(fs))...); !ok {
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

	// One checked request first: a bench of error answers measures nothing.
	rc, err := newRawConn(lf.url, body)
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
	return lf.run(loadRequest{body: body, check: checkGraphQL})
}

// checkGraphQL is a cheap check that a GraphQL body is data, not errors.
var checkGraphQL = answerCheck(`"errors"`, `"data"`)
