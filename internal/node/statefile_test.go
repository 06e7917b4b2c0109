package node

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestStateFile: --state's file round-trips between chaind nodes, holds
// what anvil requires of a dump it loads (its block environment, a best
// block number it has), and a dump anvil 1.7.1 wrote
// (testdata/anvil-1.7.1-state.json: a slot set with anvil_setStorageAt,
// two blocks mined) loads into chaind.
func TestStateFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	a := types.Address{0xaa, 0x01}
	slot, val := types.Hash{31: 1}, types.Hash{31: 0x2a}

	n1 := newDevToolsNode(t)
	d1 := n1.DevTools()
	if err := d1.SetBalance(ctx, a, uint256.NewInt(12345)); err != nil {
		t.Fatal(err)
	}
	if err := d1.SetStorageAt(ctx, a, slot, val); err != nil {
		t.Fatal(err)
	}
	if err := d1.WriteStateFile(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Block *struct {
			Number   types.HexUint64 `json:"number"`
			GasLimit uint64          `json:"gas_limit"`
		} `json:"block"`
		Best     *uint64                    `json:"best_block_number"`
		Accounts map[string]json.RawMessage `json:"accounts"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if file.Block == nil || file.Block.GasLimit == 0 || file.Best == nil || *file.Best != 0 || file.Accounts[a.Hex()] == nil {
		t.Fatalf("not what anvil loads: %.300s", raw)
	}

	n2 := newDevToolsNode(t)
	d2 := n2.DevTools()
	if err := d2.LoadStateFile(ctx, filepath.Join(t.TempDir(), "missing.json")); err != nil {
		t.Fatalf("a missing file: %v", err)
	}
	if err := d2.LoadStateFile(ctx, path); err != nil {
		t.Fatal(err)
	}
	st, _ := n2.view.State(n2.Chain.Head().HeaderRef())
	if st.GetBalance(a).Uint64() != 12345 || st.GetState(a, slot) != val {
		t.Fatalf("after loading: balance %v, slot %v", st.GetBalance(a), st.GetState(a, slot))
	}

	// anvil's own dump.
	if err := d2.LoadStateFile(ctx, filepath.Join("testdata", "anvil-1.7.1-state.json")); err != nil {
		t.Fatal(err)
	}
	// anvil's first dev account, and slot 0 of the EIP-2935 history
	// contract (block 1's parent hash). (The slot anvil_setStorageAt set
	// on an account with nothing else is dropped: an empty account does
	// not exist after EIP-161, on chaind as on go-ethereum.)
	var dev0 types.Address
	dev0.UnmarshalText([]byte("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"))
	hist := types.Address{2: 0xf9, 3: 0x08, 4: 0x27, 5: 0xf1, 6: 0xc5, 7: 0x3a, 8: 0x10, 9: 0xcb, 10: 0x7a, 11: 0x02, 12: 0x33, 13: 0x5b, 14: 0x17, 15: 0x53, 16: 0x20, 17: 0x00, 18: 0x29, 19: 0x35}
	st, _ = n2.view.State(n2.Chain.Head().HeaderRef())
	if got := st.GetBalance(dev0).Dec(); got != "10000000000000000000000" {
		t.Fatalf("anvil's dump: balance of %s = %s", dev0.Hex(), got)
	}
	if got := st.GetState(hist, types.Hash{}).Hex(); got != "0xc25a431a00c31e1d12a8fc9767ac01d2c8aed234f37ea7a0d1b1fa026e6887b5" {
		t.Fatalf("anvil's dump: slot 0 of %s = %s", hist.Hex(), got)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"accounts": 5}`), 0o644)
	if err := d2.LoadStateFile(ctx, bad); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("a malformed file: %v", err)
	}

	t.Run("anvil reads it", func(t *testing.T) { anvilReads(t, path, a) })
}

// anvilReads starts anvil (ANVIL, or anvil on PATH: npm @foundry-rs/anvil)
// on chaind's state file and asks it for the account's balance.
func anvilReads(t *testing.T, path string, a types.Address) {
	bin := os.Getenv("ANVIL")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("anvil"); err != nil {
			t.Skip("anvil not installed (npm @foundry-rs/anvil; or set ANVIL to its binary)")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--port", "0", "--load-state", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	listen := regexp.MustCompile(`Listening on (127\.0\.0\.1:\d+)`)
	sc := bufio.NewScanner(out)
	var addr, log string
	for sc.Scan() {
		log += sc.Text() + "\n"
		if m := listen.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		t.Fatalf("anvil refused chaind's state file:\n%s", log)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["` + a.Hex() + `","latest"]}`
	resp, err := http.Post("http://"+addr, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r rpcReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Error != nil || string(r.Result) != `"0x3039"` {
		t.Fatalf("anvil: balance %s %+v, want 0x3039", r.Result, r.Error)
	}
}
