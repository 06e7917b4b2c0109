package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// walletConfig is the wallet network configuration. By default it is
// exactly EIP-3085's AddEthereumChainParameter, which wallet_addEthereumChain
// takes as it is: chainId in 0x hex, and no key the EIP does not name
// (MetaMask refuses unknown keys, and a blockExplorerUrls that is present
// but empty). With --format spec it is the shape the network's own
// documentation gives: chainId as a decimal string and both URL lists
// always present.
type walletConfig struct {
	ChainID           string         `json:"chainId"`
	ChainName         string         `json:"chainName"`
	NativeCurrency    nativeCurrency `json:"nativeCurrency"`
	RPCURLs           []string       `json:"rpcUrls"`
	BlockExplorerURLs []string       `json:"blockExplorerUrls,omitempty"`
}

// specWalletConfig is walletConfig in the spec's shape: the explorer list
// is always there, empty when the node serves no explorer (this field
// hides the embedded one).
type specWalletConfig struct {
	walletConfig
	BlockExplorerURLs []string `json:"blockExplorerUrls"`
}

type nativeCurrency struct {
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
}

// walletNetworks are the networks a wallet can be configured for: the main
// network (chain ID 8118), the test network (8119), and a --dev chain, which
// shares the main chain ID unless --chain-id says otherwise.
var walletNetworks = map[string]struct {
	chainID uint64
	name    string
}{
	"main": {8118, "Chain Mainnet"},
	"test": {8119, "Chain Testnet"},
	"dev":  {8118, "Chain Dev"},
}

func init() {
	register(command{"wallet-config", "print the wallet network configuration as JSON", func(args []string) int {
		return runWalletConfig(args, os.Stdout, os.Stderr)
	}})
}

// urlList is a repeatable URL flag: the first use replaces the default.
type urlList struct {
	urls []string
	set  bool
}

func (l *urlList) String() string { return strings.Join(l.urls, ",") }

func (l *urlList) Set(s string) error {
	if !l.set {
		l.urls, l.set = nil, true
	}
	if s == "" {
		return nil // an explicit empty value means "none"
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	l.urls = append(l.urls, s)
	return nil
}

func runWalletConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chaind wallet-config", flag.ContinueOnError)
	network := fs.String("network", "main", "network: main, test or dev")
	chainID := fs.Uint64("chain-id", 0, "override the chain ID (default: the network's)")
	// By default the URLs are the node's, from the same flags, CHAIND_*
	// variables or config file the node is started with.
	host := fs.String("host", "127.0.0.1", "address the node listens on")
	httpPort := fs.Int("http.port", 8545, "the node's JSON-RPC port")
	explorerPort := fs.Int("explorer.port", 8080, "the node's explorer port (-1: it serves none)")
	config := fs.String("config", "", "the node's JSON file of flag values")
	format := fs.String("format", "eip3085", "eip3085: wallet_addEthereumChain's parameter (hex chainId); spec: the network documentation's shape (decimal chainId)")
	rpc, explorer := &urlList{}, &urlList{}
	fs.Var(rpc, "rpc-url", "JSON-RPC URL wallets should use (repeatable; default from --host and --http.port)")
	fs.Var(explorer, "explorer-url", "block explorer URL (repeatable, empty for none; default from --host and --explorer.port)")
	if code, ok := parseFlagsTo(fs, "chaind wallet-config [--network main|test|dev] [--chain-id N] [--format eip3085|spec] [--host H --http.port N --explorer.port N | --rpc-url URL --explorer-url URL]\n\nPrints the network configuration a wallet needs to add this chain, as JSON.", args, stdout, stderr); !ok {
		return code
	}
	if err := applyEnvAndConfig(fs, *config); err != nil {
		fmt.Fprintf(stderr, "chaind wallet-config: %v\n", err)
		return 2
	}
	if !portOK(*httpPort) || !portOK(*explorerPort) {
		fmt.Fprintln(stderr, "chaind wallet-config: ports must be -1..65535")
		return 2
	}
	if !rpc.set && *httpPort > 0 {
		rpc.urls = []string{nodeURL(*host, *httpPort)}
	}
	if !explorer.set && *explorerPort > 0 {
		explorer.urls = []string{nodeURL(*host, *explorerPort)}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chaind wallet-config: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	n, ok := walletNetworks[*network]
	if !ok {
		fmt.Fprintf(stderr, "chaind wallet-config: unknown network %q (main, test or dev)\n", *network)
		return 2
	}
	if *format != "eip3085" && *format != "spec" {
		fmt.Fprintf(stderr, "chaind wallet-config: unknown --format %q (eip3085 or spec)\n", *format)
		return 2
	}
	if len(rpc.urls) == 0 {
		fmt.Fprintln(stderr, "chaind wallet-config: at least one --rpc-url is needed")
		return 2
	}
	id := n.chainID
	if *chainID != 0 {
		id = *chainID
	}
	eip := walletConfig{
		ChainID:           "0x" + strconv.FormatUint(id, 16),
		ChainName:         n.name,
		NativeCurrency:    nativeCurrency{Name: "Chain", Symbol: "CHAIN", Decimals: 18},
		RPCURLs:           rpc.urls,
		BlockExplorerURLs: explorer.urls,
	}
	var cfg any = eip
	if *format == "spec" {
		eip.ChainID = strconv.FormatUint(id, 10)
		cfg = specWalletConfig{walletConfig: eip, BlockExplorerURLs: append([]string{}, explorer.urls...)}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(cfg); err != nil {
		fmt.Fprintf(stderr, "chaind wallet-config: %v\n", err)
		return 1
	}
	return 0
}

// nodeURL is the http URL a wallet on this machine reaches a node port
// at: a node listening on every address is reached on loopback.
func nodeURL(host string, port int) string {
	switch host {
	case "", "0.0.0.0", "::", "[::]":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port))
}
