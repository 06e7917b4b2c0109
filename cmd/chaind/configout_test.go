package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/node"
)

// TestConfigOutAndDerivation: --derivation-path and --timestamp shape the
// dev chain as anvil's flags do, and --config-out writes the accounts in
// anvil --config-out's shape (the values anvil 1.7.1 wrote for the same
// flags: its first account and key under m/44'/60'/1'/0/).
func TestConfigOutAndDerivation(t *testing.T) {
	s, err := buildDev(devFlags{accounts: 2, balance: "5", mnemonic: hd.DevMnemonic, derivationPath: "m/44'/60'/1'/0/", timestamp: 1_800_000_000}, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(node.Config{Genesis: s.Genesis, HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	gen, err := n.Chain.BlockByNumber(0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "accounts.json")
	if err := writeConfigOut(path, s.Keys, hd.DevMnemonic, "m/44'/60'/1'/0/", gen, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Accounts []string `json:"available_accounts"`
		Keys     []string `json:"private_keys"`
		Wallet   struct {
			DerivationPath string `json:"derivation_path"`
			Mnemonic       string `json:"mnemonic"`
		} `json:"wallet"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var shape map[string]json.RawMessage
	json.Unmarshal(raw, &shape)
	for _, k := range []string{"available_accounts", "private_keys", "wallet", "base_fee", "gas_price", "gas_limit", "genesis_timestamp"} {
		if shape[k] == nil {
			t.Errorf("no %q in %s", k, raw)
		}
	}
	if len(got.Accounts) != 2 || got.Accounts[0] != "0x8c8d35429f74ec245f8ef2f4fd1e551cff97d650" ||
		got.Keys[0] != "0x7797c0f3db8b946604ec2039dfd9763e4ffdc53174342a2ed9b14fa3eda666a5" ||
		got.Wallet.DerivationPath != "m/44'/60'/1'/0/" || got.Wallet.Mnemonic != hd.DevMnemonic {
		t.Fatalf("config-out %s", raw)
	}
	var ts string
	json.Unmarshal(shape["genesis_timestamp"], &ts)
	if ts != "1800000000" || gen.Time() != 1_800_000_000 {
		t.Fatalf("genesis timestamp %s, block 0 at %d", ts, gen.Time())
	}
}

// TestConfigOutFees: with --base-fee 7 --gas-price 9, --config-out writes
// base_fee "7" (the genesis block's, which the chain then has) and
// gas_price "9", as anvil 1.7.1 writes them for those flags.
func TestConfigOutFees(t *testing.T) {
	d := devFlags{accounts: 1, balance: "5", mnemonic: hd.DevMnemonic, baseFee: "7", gasPrice: "9"}
	s, err := buildDev(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(node.Config{Genesis: s.Genesis, HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	gen, err := n.Chain.BlockByNumber(0)
	if err != nil {
		t.Fatal(err)
	}
	if bf := gen.BaseFee(); bf == nil || bf.Uint64() != 7 {
		t.Fatalf("genesis base fee %v, want 7", bf)
	}
	price, err := parseWei(d.gasPrice)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "accounts.json")
	if err := writeConfigOut(path, s.Keys, hd.DevMnemonic, hd.DevPath, gen, price); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	var got struct {
		BaseFee  string `json:"base_fee"`
		GasPrice string `json:"gas_price"`
	}
	if json.Unmarshal(raw, &got) != nil || got.BaseFee != "7" || got.GasPrice != "9" {
		t.Fatalf("config-out %s", raw)
	}
}
