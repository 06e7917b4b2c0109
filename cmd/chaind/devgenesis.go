package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/node/dev"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// devGenesisTime is the timestamp of every --dev genesis. A fixed value
// (2025-01-01 00:00 UTC, as the public networks) instead of the start time
// makes the genesis a function of the flags alone: chaind dev-genesis
// writes the very block 0 a --dev node starts from, so a dev chain's
// export imports anywhere. The first block takes the wall clock.
const devGenesisTime = 1_735_689_600

// maxDevAccounts bounds --accounts: each is derived, funded, held by the
// node and printed at start.
const maxDevAccounts = 10_000

// devFlags are the flags that shape a --dev genesis, shared by the node
// and chaind dev-genesis so that both build the same block 0.
type devFlags struct {
	accounts int
	balance  string
	mnemonic string
	hardfork string // cancun, prague or osaka; "": chain.DevFork
	// noPredeploys leaves the CREATE2 deployer and Multicall3 out of the genesis
	// (--predeploys=false; on by default, chain.AddDevPredeploys).
	noPredeploys bool
	// noMining and autoImpersonate are anvil's --no-mining and
	// --auto-impersonate (node.Config.DevNoMining, DevAutoImpersonate).
	noMining, autoImpersonate bool
	// state is anvil's --state: a dump loaded at start when the file
	// exists, and written on exit.
	state string
	// derivationPath, timestamp and configOut are anvil's
	// --derivation-path (the accounts' base path), --timestamp (the
	// genesis time; 0 the default) and --config-out (the accounts as
	// JSON, written at start).
	derivationPath string
	timestamp      uint64
	configOut      string
	// baseFee is anvil's --base-fee: the genesis block's base fee, which
	// the next blocks follow by EIP-1559 ("": the protocol's 1 gwei).
	// gasPrice is anvil's --gas-price, which, as on anvil with EIP-1559
	// (every chaind chain has it), prices nothing: --config-out reports it.
	baseFee, gasPrice string
	// order, codeSizeLimit and noCodeSizeLimit are anvil's --order,
	// --code-size-limit and --disable-code-size-limit (node.Config.Dev).
	order           string
	codeSizeLimit   uint64
	noCodeSizeLimit bool
}

// devHardforks are the forks --hardfork takes: those chaind's dev genesis
// can start at (their system contracts predeployed).
var devHardforks = []forks.Fork{forks.Cancun, forks.Prague, forks.Osaka}

// fork is the fork --hardfork names.
func (d *devFlags) fork() (forks.Fork, error) {
	if d.hardfork == "" {
		return chain.DevFork, nil
	}
	if f, ok := forks.ByName(d.hardfork); ok && slices.Contains(devHardforks, f) {
		return f, nil
	}
	return 0, fmt.Errorf("--hardfork %q: want cancun, prague or osaka", d.hardfork)
}

func (d *devFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&d.accounts, "accounts", 10, fmt.Sprintf("number of funded dev accounts derived from --mnemonic (0..%d)", maxDevAccounts))
	fs.StringVar(&d.balance, "balance", "10000", "balance of each dev account in ETH (CHAIN), decimals allowed")
	fs.StringVar(&d.mnemonic, "mnemonic", hd.DevMnemonic, "BIP-39 mnemonic the dev accounts are derived from (m/44'/60'/0'/0/i)")
	fs.BoolFunc("predeploys", "predeploy the CREATE2 deployer at "+chain.Create2Deployer.Hex()+" (as anvil does) and Multicall3 at "+chain.Multicall3.Hex()+" (default true; --predeploys=false leaves them out)", func(v string) error {
		on, err := strconv.ParseBool(v)
		d.noPredeploys = !on
		return err
	})
	fs.StringVar(&d.derivationPath, "derivation-path", hd.DevPath, "base path the dev accounts are derived at from --mnemonic (account i at this path + i), as anvil --derivation-path")
	fs.Uint64Var(&d.timestamp, "timestamp", 0, "timestamp of the dev genesis block, in seconds (default: a fixed time in the past), as anvil --timestamp")
	fs.StringVar(&d.configOut, "config-out", "", "write the dev accounts, keys, mnemonic and derivation path to this file as JSON at start, in anvil --config-out's shape")
	fs.StringVar(&d.state, "state", "", "state file in anvil's dump format: loaded at start if it exists, written on exit (anvil --state; anvil reads chaind's and chaind anvil's)")
	fs.BoolVar(&d.noMining, "no-mining", false, "mine no block until asked (evm_mine, anvil_mine, evm_setAutomine, evm_setIntervalMining), as anvil --no-mining")
	fs.BoolVar(&d.autoImpersonate, "auto-impersonate", false, "let eth_sendTransaction send from any address without its key, as anvil --auto-impersonate (anvil_autoImpersonateAccount)")
	fs.StringVar(&d.baseFee, "base-fee", "", "base fee per gas of the dev genesis block in wei, which the next blocks follow by EIP-1559 (default 1000000000), as anvil --base-fee")
	fs.StringVar(&d.gasPrice, "gas-price", "", "gas price in wei reported by --config-out; as anvil's --gas-price with EIP-1559, it sets no fee (eth_gasPrice follows the base fee; default: the genesis base fee)")
	fs.StringVar(&d.order, "order", "fees", "order blocks take pool transactions in: fees (the best tip first) or fifo (as they arrived), as anvil --order")
	fs.Uint64Var(&d.codeSizeLimit, "code-size-limit", 0, "largest contract code in bytes, instead of EIP-170's 24576 (initcode: twice this), as anvil --code-size-limit")
	fs.BoolVar(&d.noCodeSizeLimit, "disable-code-size-limit", false, "lift EIP-170's and EIP-3860's code size limits, as anvil --disable-code-size-limit")
	fs.StringVar(&d.hardfork, "hardfork", strings.ToLower(chain.DevFork.String()), "newest fork active from the dev genesis: cancun, prague or osaka (its system contracts are predeployed)")
}

// checks are the usage rules of the dev flags.
func (d *devFlags) checks() []check {
	_, balErr := parseEther(d.balance)
	_, forkErr := d.fork()
	_, feeErr := d.genesisBaseFee()
	_, priceErr := parseWei(d.gasPrice)
	return []check{
		{feeErr != nil, fmt.Sprintf("--base-fee %q: %v", d.baseFee, feeErr)},
		{priceErr != nil, fmt.Sprintf("--gas-price %q: %v", d.gasPrice, priceErr)},
		{d.order != "fees" && d.order != "fifo", fmt.Sprintf("--order %q: want fees or fifo", d.order)},
		{d.noCodeSizeLimit && d.codeSizeLimit != 0, "--code-size-limit and --disable-code-size-limit exclude each other"},
		{d.accounts < 0 || d.accounts > maxDevAccounts, fmt.Sprintf("--accounts must be 0..%d", maxDevAccounts)},
		{balErr != nil, fmt.Sprintf("--balance %q: %v", d.balance, balErr)},
		{hd.ValidateMnemonic(d.mnemonic) != nil, fmt.Sprintf("--mnemonic: %v", hd.ValidateMnemonic(d.mnemonic))},
		{forkErr != nil, fmt.Sprint(forkErr)},
	}
}

// given names a dev flag set without --dev, which would be ignored.
func (d *devFlags) given(fs *flag.FlagSet) (string, bool) {
	for _, name := range []string{"accounts", "balance", "mnemonic", "hardfork", "predeploys", "no-mining", "auto-impersonate", "state", "derivation-path", "timestamp", "config-out",
		"base-fee", "gas-price", "order", "code-size-limit", "disable-code-size-limit"} {
		if flagSet(fs, name) {
			return name, true
		}
	}
	return "", false
}

// genesisBaseFee is --base-fee in wei; nil when not given.
func (d *devFlags) genesisBaseFee() (*uint256.Int, error) { return parseWei(d.baseFee) }

// parseWei reads a whole number of wei; "" is nil.
func parseWei(s string) (*uint256.Int, error) {
	if s == "" {
		return nil, nil
	}
	v, err := uint256.FromDecimal(s)
	if err != nil {
		return nil, errors.New("want a whole number of wei such as 1000000000")
	}
	return v, nil
}

// options are the dev flags the node's chain and pool take at open.
func (d *devFlags) options() dev.Options {
	o := dev.Options{MaxCodeSize: d.codeSizeLimit, FIFO: d.order == "fifo"}
	if d.noCodeSizeLimit {
		o.MaxCodeSize = evm.NoCodeSizeLimit
	}
	return o
}

// devSetup is what a --dev node starts with.
type devSetup struct {
	Keys      []*secp256k1.PrivateKey // the funded accounts, held by the node
	Balance   *uint256.Int            // each account's genesis balance, in wei
	Validator *secp256k1.PrivateKey   // the block producer, none of Keys
	Genesis   *chain.Genesis
}

// buildDev derives the accounts and builds the dev genesis.
func buildDev(d devFlags, chainID uint64) (*devSetup, error) {
	if chainID == 0 {
		chainID = chain.MainChainID
	}
	bal, err := parseEther(d.balance)
	if err != nil {
		return nil, fmt.Errorf("--balance: %w", err)
	}
	path := d.derivationPath
	if path == "" {
		path = hd.DevPath
	}
	keys, err := hd.DevAccountsAt(d.mnemonic, path, d.accounts)
	if err != nil {
		return nil, fmt.Errorf("dev accounts: %w", err)
	}
	// The dev validator has a key of its own, none of the dev accounts:
	// an account's balance moves only by what it sends and pays.
	val, err := node.DevValidatorKey(0)
	if err != nil {
		return nil, fmt.Errorf("dev validator: %w", err)
	}
	addrs := make([]types.Address, len(keys))
	for i, k := range keys {
		addrs[i] = types.Address(crypto.PrivkeyToAddress(k))
	}
	fork, err := d.fork()
	if err != nil {
		return nil, err
	}
	genesisTime := uint64(devGenesisTime)
	if d.timestamp != 0 {
		genesisTime = d.timestamp
	}
	g, err := chain.DevGenesisFork(chainID, addrs, genesisTime, fork)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		g.Alloc[a] = chain.Account{Balance: chain.U256{Int: *bal}}
	}
	if !d.noPredeploys {
		chain.AddDevPredeploys(g.Alloc)
	}
	if fee, err := d.genesisBaseFee(); err != nil {
		return nil, fmt.Errorf("--base-fee: %w", err)
	} else if fee != nil {
		g.BaseFee = &chain.U256{Int: *fee}
	}
	// The validator's advertised address is loopback whatever --host says:
	// a dev node has no peers, and the genesis must not depend on where
	// the node listens.
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{val}, "127.0.0.1"); err != nil {
		return nil, err
	}
	return &devSetup{Keys: keys, Balance: bal, Validator: val, Genesis: g}, nil
}

// parseEther reads a decimal amount of ether ("10000", "0.5") as wei.
func parseEther(s string) (*uint256.Int, error) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	if whole == "" && frac == "" {
		return nil, errors.New("want a decimal number of ETH such as 10000 or 0.5")
	}
	if len(frac) > 18 {
		return nil, errors.New("more than 18 decimals (1 wei is 1e-18 ETH)")
	}
	digits := whole + frac + strings.Repeat("0", 18-len(frac))
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, errors.New("want a decimal number of ETH such as 10000 or 0.5")
		}
	}
	v, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, errors.New("want a decimal number of ETH such as 10000 or 0.5")
	}
	out, overflow := uint256.FromBig(v)
	if overflow {
		return nil, errors.New("more than 2^256-1 wei")
	}
	return out, nil
}

// formatEther renders wei as ETH without trailing zeros.
func formatEther(wei *uint256.Int) string {
	s := fmt.Sprintf("%019s", wei.Dec())
	whole, frac := s[:len(s)-18], strings.TrimRight(s[len(s)-18:], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// genesisHash is the hash of the block 0 a node builds from g (its system
// contracts included).
func genesisHash(g *chain.Genesis) (types.Hash, error) {
	b, err := g.ToBlock(pos.ForGenesis(g))
	if err != nil {
		return types.Hash{}, err
	}
	return b.Hash(), nil
}

func init() {
	register(command{"dev-genesis", "write the genesis.json chaind --dev starts from: dev-genesis [--accounts N --balance ETH --mnemonic WORDS --hardfork FORK --chain-id ID] > genesis.json", runDevGenesis})
}

func runDevGenesis(args []string) int {
	fs := flag.NewFlagSet("chaind dev-genesis", flag.ContinueOnError)
	var d devFlags
	d.define(fs)
	chainID := fs.Uint64("chain-id", chain.MainChainID, "chain ID")
	out := fs.String("out", "", "file to write (default: standard output)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags] > genesis.json", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(), append(d.checks(), noArgs(fs),
		check{*chainID == 0, "--chain-id must be positive"})...); !ok {
		return code
	}
	s, err := buildDev(d, *chainID)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind dev-genesis:", err)
		return 1
	}
	data, err := json.MarshalIndent(s.Genesis, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind dev-genesis:", err)
		return 1
	}
	data = append(data, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind dev-genesis:", err)
		return 1
	}
	return 0
}

// printDevAccounts lists the dev accounts and their keys, as anvil and
// Hardhat do at start.
func printDevAccounts(w io.Writer, keys []*secp256k1.PrivateKey, balance *uint256.Int, mnemonic, path string, chainID uint64) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "\nAvailable accounts (%s ETH each)\n==================\n", formatEther(balance))
	for i, k := range keys {
		fmt.Fprintf(bw, "(%d) %s\n", i, types.Address(crypto.PrivkeyToAddress(k)).Hex())
	}
	fmt.Fprintf(bw, "\nPrivate keys\n==================\n")
	for i, k := range keys {
		fmt.Fprintf(bw, "(%d) 0x%x\n", i, k.Serialize())
	}
	fmt.Fprintf(bw, "\nWallet\n==================\nMnemonic:        %s\nDerivation path: %s\nChain ID:        %d\n\n", mnemonic, path, chainID)
	fmt.Fprintln(bw, "These keys are public: never send real funds to them.")
}

// configOut is what --config-out writes, in anvil --config-out's shape:
// the accounts and their keys, the wallet they derive from, and the
// genesis block's fee, gas limit and time (numbers as decimal strings).
type configOut struct {
	Accounts []string `json:"available_accounts"`
	Keys     []string `json:"private_keys"`
	Wallet   struct {
		DerivationPath string `json:"derivation_path"`
		Mnemonic       string `json:"mnemonic"`
	} `json:"wallet"`
	BaseFee          string `json:"base_fee"`
	GasPrice         string `json:"gas_price"`
	GasLimit         string `json:"gas_limit"`
	GenesisTimestamp string `json:"genesis_timestamp"`
}

// writeConfigOut writes the dev accounts of a node to path; genesis is
// its chain's block 0.
func writeConfigOut(path string, keys []*secp256k1.PrivateKey, mnemonic, derivationPath string, genesis *types.Block, gasPrice *uint256.Int) error {
	var c configOut
	c.Accounts, c.Keys = []string{}, []string{}
	for _, k := range keys {
		c.Accounts = append(c.Accounts, strings.ToLower(types.Address(crypto.PrivkeyToAddress(k)).Hex()))
		c.Keys = append(c.Keys, fmt.Sprintf("0x%x", k.Serialize()))
	}
	c.Wallet.DerivationPath, c.Wallet.Mnemonic = derivationPath, mnemonic
	// The genesis block's base fee is also the least gas price a first
	// transaction pays.
	var baseFee uint64
	if bf := genesis.BaseFee(); bf != nil {
		baseFee = bf.Uint64()
	}
	c.BaseFee, c.GasPrice = strconv.FormatUint(baseFee, 10), strconv.FormatUint(baseFee, 10)
	if gasPrice != nil {
		c.GasPrice = gasPrice.Dec()
	}
	c.GasLimit = strconv.FormatUint(genesis.GasLimit(), 10)
	c.GenesisTimestamp = strconv.FormatUint(genesis.Time(), 10)
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(js, '\n'), 0o600)
}
