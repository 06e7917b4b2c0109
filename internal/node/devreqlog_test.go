package node

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/devload"
)

// TestDevRequestLog: each served call is logged as npx hardhat node
// prints it — the method, for a sent transaction its hash, sender,
// recipient, gas and block — a polled method's repeats at debug only, and
// nothing once logging is disabled.
func TestDevRequestLog(t *testing.T) {
	var buf lockedBuffer
	n := newDevToolsNodeWith(t, func(c *Config) { c.Log = slog.New(slog.NewJSONHandler(&buf, nil)) })
	n.StartConsole()
	h := n.Handler()
	from := devload.Address(n.cfg.Accounts[0]).Hex()
	to := "0x00000000000000000000000000000000000000ee"
	devCall(t, h, "eth_blockNumber", `[]`)
	devCall(t, h, "eth_blockNumber", `[]`)
	r := devCall(t, h, "eth_sendTransaction", `[{"from":"`+from+`","to":"`+to+`","value":"0x1"}]`)
	var hash string
	json.Unmarshal(r.Result, &hash)
	devCall(t, h, "eth_call", `[{"from":"`+from+`","to":"`+to+`"}]`)
	devCall(t, h, "eth_getBalance", `["zz","latest"]`)
	devCall(t, h, "hardhat_setLoggingEnabled", `[false]`)
	devCall(t, h, "eth_chainId", `[]`)

	type line struct {
		Msg, Method, Tx, From, To, Err string
		GasUsed, GasLimit, Block       any
	}
	var rpcs []line
	for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var l line
		if json.Unmarshal([]byte(s), &l) == nil && l.Msg == "rpc" {
			rpcs = append(rpcs, l)
		}
	}
	methods := []string{}
	for _, l := range rpcs {
		methods = append(methods, l.Method)
	}
	// hardhat_setLoggingEnabled(false) is served before it is observed:
	// neither it nor the call after it is logged.
	want := "eth_blockNumber eth_sendTransaction eth_call eth_getBalance"
	if got := strings.Join(methods, " "); got != want {
		t.Fatalf("logged %q, want %q\n%s", got, want, buf.String())
	}
	sent := rpcs[1]
	if !strings.EqualFold(sent.Tx, hash) || !strings.EqualFold(sent.From, from) || !strings.EqualFold(sent.To, to) ||
		fmt.Sprint(sent.GasUsed) != "21000" || sent.Block == nil || sent.Block == "pending" {
		t.Fatalf("send line %+v", sent)
	}
	if c := rpcs[2]; !strings.EqualFold(c.From, from) || !strings.EqualFold(c.To, to) {
		t.Fatalf("call line %+v", c)
	}
	if e := rpcs[3]; e.Err == "" {
		t.Fatalf("failed call line %+v", e)
	}
}
