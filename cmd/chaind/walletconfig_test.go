package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestWalletConfig(t *testing.T) {
	nc := nativeCurrency{"Chain", "CHAIN", 18}
	tests := []struct {
		args []string
		want walletConfig
	}{
		{nil, walletConfig{"0x1fb6", "Chain Mainnet", nc, []string{"http://127.0.0.1:8545"}, []string{"http://127.0.0.1:8080"}}},
		{[]string{"--network", "test", "--rpc-url", "https://rpc.example.org", "--explorer-url", "https://scan.example.org"},
			walletConfig{"0x1fb7", "Chain Testnet", nc, []string{"https://rpc.example.org"}, []string{"https://scan.example.org"}}},
		{[]string{"--network=dev", "--chain-id", "31337", "--explorer-url", ""},
			walletConfig{"0x7a69", "Chain Dev", nc, []string{"http://127.0.0.1:8545"}, nil}},
		{[]string{"--rpc-url", "http://a:1", "--rpc-url", "http://b:2"},
			walletConfig{"0x1fb6", "Chain Mainnet", nc, []string{"http://a:1", "http://b:2"}, []string{"http://127.0.0.1:8080"}}},
		// The URLs follow the node's own flags.
		{[]string{"--host", "0.0.0.0", "--http.port", "9545", "--explorer.port", "9080"},
			walletConfig{"0x1fb6", "Chain Mainnet", nc, []string{"http://127.0.0.1:9545"}, []string{"http://127.0.0.1:9080"}}},
		{[]string{"--host", "::1", "--explorer.port", "-1"},
			walletConfig{"0x1fb6", "Chain Mainnet", nc, []string{"http://[::1]:8545"}, nil}},
		// The spec's shape: a decimal chain ID.
		{[]string{"--format", "spec", "--network", "test"},
			walletConfig{"8119", "Chain Testnet", nc, []string{"http://127.0.0.1:8545"}, []string{"http://127.0.0.1:8080"}}},
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

// TestWalletConfigShape pins the wire form key by key: by default exactly
// EIP-3085's parameter (wallet_addEthereumChain refuses any other key, a
// decimal chainId and an empty blockExplorerUrls), and with --format spec
// the network documentation's shape.
func TestWalletConfigShape(t *testing.T) {
	tests := []struct {
		args    []string
		chainID string
		keys    []string
	}{
		{nil, "0x1fb6", []string{"blockExplorerUrls", "chainId", "chainName", "nativeCurrency", "rpcUrls"}},
		{[]string{"--explorer.port", "-1"}, "0x1fb6", []string{"chainId", "chainName", "nativeCurrency", "rpcUrls"}},
		{[]string{"--format", "spec"}, "8118", []string{"blockExplorerUrls", "chainId", "chainName", "nativeCurrency", "rpcUrls"}},
		{[]string{"--format", "spec", "--explorer.port", "-1"}, "8118", []string{"blockExplorerUrls", "chainId", "chainName", "nativeCurrency", "rpcUrls"}},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if code := runWalletConfig(tc.args, &out, &errb); code != 0 {
			t.Fatal(errb.String())
		}
		var raw map[string]any
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range raw {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, tc.keys) {
			t.Errorf("%v: keys %v, want %v", tc.args, keys, tc.keys)
		}
		if raw["chainId"] != tc.chainID {
			t.Errorf("%v: chainId = %#v, want %q", tc.args, raw["chainId"], tc.chainID)
		}
		nc, _ := raw["nativeCurrency"].(map[string]any)
		if d, ok := nc["decimals"].(float64); !ok || d != 18 {
			t.Errorf("%v: decimals = %v", tc.args, nc["decimals"])
		}
		for _, k := range []string{"rpcUrls", "blockExplorerUrls"} {
			if v, ok := raw[k]; ok {
				if _, ok := v.([]any); !ok {
					t.Errorf("%v: %s is %T, want array", tc.args, k, v)
				}
			}
		}
	}
}

func TestWalletConfigErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--network", "moon"},
		{"--format", "decimal"},
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
