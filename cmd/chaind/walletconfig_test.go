package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestWalletConfig(t *testing.T) {
	tests := []struct {
		args []string
		want walletConfig
	}{
		{nil, walletConfig{"8118", "0x1fb6", "Chain Mainnet", nativeCurrency{"Chain", "CHAIN", 18},
			[]string{"http://127.0.0.1:8545"}, []string{"http://127.0.0.1:8080"}}},
		{[]string{"--network", "test", "--rpc-url", "https://rpc.example.org", "--explorer-url", "https://scan.example.org"},
			walletConfig{"8119", "0x1fb7", "Chain Testnet", nativeCurrency{"Chain", "CHAIN", 18},
				[]string{"https://rpc.example.org"}, []string{"https://scan.example.org"}}},
		{[]string{"--network=dev", "--chain-id", "31337", "--explorer-url", ""},
			walletConfig{"31337", "0x7a69", "Chain Dev", nativeCurrency{"Chain", "CHAIN", 18},
				[]string{"http://127.0.0.1:8545"}, []string{}}},
		{[]string{"--rpc-url", "http://a:1", "--rpc-url", "http://b:2"},
			walletConfig{"8118", "0x1fb6", "Chain Mainnet", nativeCurrency{"Chain", "CHAIN", 18},
				[]string{"http://a:1", "http://b:2"}, []string{"http://127.0.0.1:8080"}}},
		// The URLs follow the node's own flags.
		{[]string{"--host", "0.0.0.0", "--http.port", "9545", "--explorer.port", "9080"},
			walletConfig{"8118", "0x1fb6", "Chain Mainnet", nativeCurrency{"Chain", "CHAIN", 18},
				[]string{"http://127.0.0.1:9545"}, []string{"http://127.0.0.1:9080"}}},
		{[]string{"--host", "::1", "--explorer.port", "-1"},
			walletConfig{"8118", "0x1fb6", "Chain Mainnet", nativeCurrency{"Chain", "CHAIN", 18},
				[]string{"http://[::1]:8545"}, []string{}}},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if code := runWalletConfig(tc.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errb.String())
		}
		var got walletConfig
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%v: %v in %s", tc.args, err, out.String())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestWalletConfigShape(t *testing.T) {
	// The wire form: chainId is a string, decimals a number, URL lists arrays.
	var out, errb bytes.Buffer
	if code := runWalletConfig(nil, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	var raw map[string]any
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["chainId"].(string); !ok {
		t.Errorf("chainId is %T, want string", raw["chainId"])
	}
	nc, _ := raw["nativeCurrency"].(map[string]any)
	if d, ok := nc["decimals"].(float64); !ok || d != 18 {
		t.Errorf("decimals = %v", nc["decimals"])
	}
	for _, k := range []string{"rpcUrls", "blockExplorerUrls"} {
		if _, ok := raw[k].([]any); !ok {
			t.Errorf("%s is %T, want array", k, raw[k])
		}
	}
	if raw["chainIdHex"] != "0x1fb6" {
		t.Errorf("chainIdHex = %v, want the 0x form wallet_addEthereumChain takes", raw["chainIdHex"])
	}
	if len(raw) != 6 {
		t.Errorf("unexpected fields: %v", raw)
	}
}

func TestWalletConfigErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--network", "moon"},
		{"--rpc-url", "ftp://x"},
		{"--explorer.port", "70000"},
		{"--http.port", "-1"}, // no JSON-RPC URL left
		{"--rpc-url", "not a url"},
		{"--rpc-url", ""},
		{"extra"},
		{"--bogus"},
	} {
		var out, errb bytes.Buffer
		if code := runWalletConfig(args, &out, &errb); code != 2 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q", args, code, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runWalletConfig([]string{"--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage: chaind wallet-config") || errb.Len() != 0 {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
