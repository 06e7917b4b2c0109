package main

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func TestParseEther(t *testing.T) {
	for _, tc := range []struct{ in, wei string }{
		{"10000", "10000000000000000000000"}, {"0.5", "500000000000000000"}, {"1.", "1000000000000000000"},
		{".000000000000000001", "1"}, {"0", "0"},
	} {
		got, err := parseEther(tc.in)
		if err != nil || got.Dec() != tc.wei {
			t.Errorf("parseEther(%q) = %v, %v; want %s", tc.in, got, err, tc.wei)
		}
		if back := formatEther(got); tc.in == "10000" && back != "10000" || tc.in == "0.5" && back != "0.5" {
			t.Errorf("formatEther(%s) = %s", got.Dec(), back)
		}
	}
	for _, bad := range []string{"", ".", "-1", "1e3", "0x10", "1.0000000000000000001", strings.Repeat("9", 80)} {
		if _, err := parseEther(bad); err == nil {
			t.Errorf("parseEther(%q) accepted", bad)
		}
	}
}

// TestDevFlagsChecks: --dev's account flags are validated as usage errors.
func TestDevFlagsChecks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dev", "--accounts", "-1"}, "--accounts must be"},
		{[]string{"--dev", "--balance", "lots"}, "--balance"},
		{[]string{"--dev", "--mnemonic", "test test test"}, "--mnemonic"},
		{[]string{"--chain-id", "5"}, "--chain-id applies to --dev only"},
		{[]string{"--accounts", "5"}, "--accounts applies to --dev only"},
		{[]string{"--network", "test", "--mnemonic", "x"}, "--mnemonic applies to --dev only"},
		{[]string{"--dev", "--log.format", "xml"}, "--log.format"},
		{[]string{"dev-genesis", "--accounts", "20000"}, "--accounts must be"},
		{[]string{"dev-genesis", "--chain-id", "0"}, "--chain-id must be positive"},
		{[]string{"dev-genesis", "--hardfork", "shanghai"}, "want cancun, prague or osaka"},
		{[]string{"--hardfork", "prague"}, "--hardfork applies to --dev only"},
		{[]string{"import", "--progress", "0s", "x.rlp"}, "--progress must be positive"},
		{[]string{"--dev", "--base-fee", "1.5"}, "--base-fee \"1.5\": want a whole number of wei"},
		{[]string{"--dev", "--order", "random"}, "--order \"random\": want fees or fifo"},
		{[]string{"--dev", "--code-size-limit", "100", "--disable-code-size-limit"}, "exclude each other"},
		{[]string{"--order", "fifo"}, "--order applies to --dev only"},
		{[]string{"--code-size-limit", "100"}, "--code-size-limit applies to --dev only"},
	} {
		code, _, errOut := runChaind(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestDevBaseFee: --base-fee is the dev genesis block's base fee, as
// anvil's; dev-genesis writes it.
func TestDevBaseFee(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, `null`}, // the protocol's 1 gwei, unnamed
		{[]string{"--base-fee", "0"}, `"0x0"`},
		{[]string{"--base-fee", "7"}, `"0x7"`},
	} {
		code, out, errOut := runChaind(t, append([]string{"dev-genesis", "--accounts", "1"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var g struct {
			BaseFee json.RawMessage `json:"baseFeePerGas"`
		}
		if err := json.Unmarshal([]byte(out), &g); err != nil || (string(g.BaseFee) != c.want && (c.want != "null" || g.BaseFee != nil)) {
			t.Fatalf("%v: baseFeePerGas %s, want %s (%v)", c.args, g.BaseFee, c.want, err)
		}
	}
}

// TestDevGenesisDeterministic: dev-genesis writes the same bytes for the
// same flags, other bytes for other flags, and exactly the block 0 a --dev
// node with those flags starts from.
func TestDevGenesisDeterministic(t *testing.T) {
	_, a, _ := runChaind(t, "dev-genesis", "--accounts", "3", "--balance", "5")
	time.Sleep(1100 * time.Millisecond) // a clock in the genesis would show
	_, b, _ := runChaind(t, "dev-genesis", "--accounts", "3", "--balance", "5")
	_, c, _ := runChaind(t, "dev-genesis", "--accounts", "4", "--balance", "5")
	if a == "" || a != b || a == c {
		t.Fatalf("dev-genesis: same flags gave equal output %v, other flags other output %v", a == b, a != c)
	}
	// --predeploys (default on) puts the CREATE2 deployer and Multicall3
	// in the genesis.
	_, bare, _ := runChaind(t, "dev-genesis", "--accounts", "3", "--balance", "5", "--predeploys=false")
	for _, addr := range []types.Address{chain.Create2Deployer, chain.Multicall3} {
		a, bare, want := strings.ToLower(a), strings.ToLower(bare), strings.ToLower(addr.Hex())
		if !strings.Contains(a, want) || strings.Contains(bare, want) {
			t.Errorf("--predeploys does not switch %s", addr.Hex())
		}
	}
	// --hardfork: the default is chain.DevFork; older forks drop the later
	// fork times and the system contracts only those forks call.
	for _, tc := range []struct {
		fork          string
		prague, osaka bool
	}{{"cancun", false, false}, {"prague", true, false}, {"osaka", true, true}} {
		_, out, _ := runChaind(t, "dev-genesis", "--accounts", "3", "--balance", "5", "--hardfork", tc.fork)
		if strings.Contains(out, `"pragueTime"`) != tc.prague || strings.Contains(out, `"osakaTime"`) != tc.osaka ||
			strings.Contains(strings.ToLower(out), strings.ToLower(chain.WithdrawalQueue.Hex())) != tc.prague {
			t.Errorf("--hardfork %s: fork times or system contracts wrong", tc.fork)
		}
		if (tc.fork == strings.ToLower(chain.DevFork.String())) != (out == a) {
			t.Errorf("--hardfork %s: output equal to the default's: %v", tc.fork, out == a)
		}
	}
	g, err := chain.ParseGenesis([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := genesisHash(g)
	if err != nil {
		t.Fatal(err)
	}
	s, err := buildDev(devFlags{accounts: 3, balance: "5", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(node.Config{Genesis: s.Genesis, HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := n.Chain.Genesis().Hash(); got != fromFile {
		t.Fatalf("--dev node genesis %s, dev-genesis file %s", got, fromFile)
	}
	st, err := n.Chain.StateAt(n.Chain.Head().Root())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := parseEther("5")
	for _, k := range s.Keys {
		if bal := st.GetBalance(types.Address(devload.Address(k))); !bal.Eq(want) {
			t.Fatalf("dev account balance %s, want %s", bal.Dec(), want.Dec())
		}
	}
}

// TestDevExportImportRoundTrip: blocks of a --dev chain, exported, import
// into a data directory started from chaind dev-genesis with the same
// flags, to the same head hash and state root; flags naming another chain
// on that data directory are refused.
func TestDevExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	d := devFlags{accounts: 2, balance: "100", mnemonic: hd.DevMnemonic}
	s, err := buildDev(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(node.Config{Genesis: s.Genesis, DataDir: src, HTTPPort: 0, WSPort: -1,
		Validator: s.Validator, Accounts: s.Keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		n.Close()
		t.Fatal(err)
	}
	cl := devload.NewClient("http://" + n.Addr("http"))
	signer := types.LatestSigner(chain.MainChainID)
	to := devload.Address(s.Keys[1])
	for i := range 6 {
		inner := &types.DynamicFeeTx{ChainID: *uint256.NewInt(chain.MainChainID), Nonce: uint64(i), GasTipCap: *uint256.NewInt(1e9),
			GasFeeCap: *uint256.NewInt(100e9), Gas: 300_000, Value: *uint256.NewInt(uint64(i + 1))}
		if i%2 == 0 {
			inner.To = &to
		} else {
			inner.Data = devload.TokenInitCode()
		}
		tx := types.MustSignNewTx(s.Keys[0], signer, inner)
		if err := cl.SendRaw(tx); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.WaitReceipt(tx.Hash(), 20*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	head := n.Chain.Head()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if head.Number() < 2 {
		t.Fatalf("only %d blocks", head.Number())
	}

	gfile, rlpFile := filepath.Join(dir, "genesis.json"), filepath.Join(dir, "chain.rlp")
	if code, _, errOut := runChaind(t, "dev-genesis", "--accounts", "2", "--balance", "100", "--out", gfile); code != 0 {
		t.Fatalf("dev-genesis: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runChaind(t, "export", "--datadir", src, rlpFile); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	code, out, errOut := runChaind(t, "import", "--genesis", gfile, "--datadir", dst, rlpFile)
	if code != 0 || !strings.Contains(out, head.Hash().Hex()) {
		t.Fatalf("import: exit %d, stdout %q, stderr %q; want head %s", code, out, errOut, head.Hash())
	}
	if !strings.Contains(errOut, "msg=importing file="+rlpFile+" blocks="+itoa(head.Number())) {
		t.Errorf("import log lacks the file's block total %d: %s", head.Number(), errOut)
	}
	c, err := openChain(dst, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Head()
	c.Close()
	if got.Hash() != head.Hash() || got.Root() != head.Root() {
		t.Fatalf("imported head %d %s root %s; exported %d %s root %s", got.Number(), got.Hash(), got.Root(), head.Number(), head.Hash(), head.Root())
	}

	// The source directory holds this dev chain: other chain flags are
	// refused before anything starts, the same ones pass.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dev", "--accounts", "3", "--balance", "100"}, "holds chain ID 8118"},
		{[]string{"--dev", "--accounts", "2", "--balance", "100", "--chain-id", "77"}, "--chain-id 77"},
		{[]string{"--network", "test"}, "--network test"},
		{[]string{"--network", "main"}, "--network main"},
	} {
		code, _, errOut := runChaind(t, append(tc.args, "--datadir", src)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
	stored, _ := storedGenesis(src)
	var rf runFlags
	fs := flag.NewFlagSet("chaind", flag.ContinueOnError)
	rf.define(fs)
	if err := fs.Parse([]string{"--dev", "--accounts", "2", "--balance", "100", "--datadir", src}); err != nil {
		t.Fatal(err)
	}
	same, err := buildDev(rf.devf, rf.chainID)
	if err != nil {
		t.Fatal(err)
	}
	if err := rf.checkDatadir(fs, stored, same); err != nil {
		t.Fatalf("the dev flags the chain was made with are refused: %v", err)
	}
	// A fork made by --dev --fork-url has a genesis of its own (the fork
	// block, or on older data directories its child); --dev continues it,
	// whatever its account flags.
	forked := *stored
	forked.Fork = &chain.ForkPoint{Number: 41}
	other, err := buildDev(devFlags{accounts: 3, balance: "7", mnemonic: rf.devf.mnemonic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := rf.checkDatadir(fs, &forked, other); err != nil {
		t.Fatalf("--dev on a forked chain's data directory refused: %v", err)
	}
	nf := flag.NewFlagSet("chaind", flag.ContinueOnError)
	var rn runFlags
	rn.define(nf)
	if err := nf.Parse([]string{"--network", "test", "--datadir", src}); err != nil {
		t.Fatal(err)
	}
	if err := rn.checkDatadir(nf, &forked, nil); err == nil || !strings.Contains(err.Error(), "holds a fork") {
		t.Fatalf("--network on a forked chain's data directory: %v, want a refusal naming the fork", err)
	}
}

func itoa(n uint64) string { return uint256.NewInt(n).Dec() }

// TestImportProgressLine: a progress line says blocks done of the total,
// the percentage, the rate and the time left at that rate.
func TestImportProgressLine(t *testing.T) {
	attrs := progressAttrs(250, 1000, 50, 3e6, 250)
	got := map[string]any{}
	for i := 0; i < len(attrs); i += 2 {
		got[attrs[i].(string)] = attrs[i+1]
	}
	for k, want := range map[string]any{"blocks": uint64(250), "total": uint64(1000), "percent": "25.0", "blocks/s": "50", "Mgas/s": "3.0", "eta": "15s"} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if eta := progressAttrs(5, 10, 0, 0, 5)[11]; eta != "unknown" {
		t.Errorf("eta with no progress = %v", eta)
	}
}
