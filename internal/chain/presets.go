package chain

import (
	"encoding/json"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Chain IDs of chaind's networks.
const (
	MainChainID = 8118
	TestChainID = 8119
)

// DevBalance is what each dev account starts with: 10,000 CHAIN.
var DevBalance = new(uint256.Int).Mul(uint256.NewInt(10_000), uint256.NewInt(1e18))

// devGasLimit is high enough that the block gas limit never caps a dev
// node's throughput (a block of 5,000 ERC-20 transfers uses ~250M gas).
const devGasLimit = 1_000_000_000

// DevGenesis is DevGenesisFork at DevFork.
func DevGenesis(chainID uint64, accounts []types.Address, timestamp uint64) *Genesis {
	g, err := DevGenesisFork(chainID, accounts, timestamp, DevFork)
	if err != nil {
		panic(err) // DevFork is one SetHardfork takes
	}
	return g
}

// DevGenesisFork is the genesis of a throwaway local network: every fork
// through fork (Cancun, Prague or Osaka) from block 0, the system
// contracts those forks call predeployed, and the given accounts funded.
func DevGenesisFork(chainID uint64, accounts []types.Address, timestamp uint64, fork forks.Fork) (*Genesis, error) {
	cfg := AllForks(chainID)
	if err := cfg.SetHardfork(fork); err != nil {
		return nil, err
	}
	g := &Genesis{
		Config:    cfg,
		Timestamp: Uint64(timestamp),
		GasLimit:  devGasLimit,
		ExtraData: []byte("chaind dev"),
		Alloc:     Alloc{},
	}
	for _, a := range accounts {
		g.Alloc[a] = Account{Balance: U256{*DevBalance}}
	}
	AddSystemContracts(g.Alloc, fork)
	return g, nil
}

// MainGenesis and TestGenesis are the genesis blocks of the public
// networks: proof-of-stake chains with the system contracts and the
// default network parameters (a staking section without "params"). Their
// genesis validators, delegations and allocations are added by the launch
// ceremony, which publishes the final genesis.json; until then the presets
// have none, so a node serves them but cannot validate (the staking state
// has no validator set to join).
func MainGenesis() *Genesis { return publicGenesis(MainChainID, "chaind mainnet", 1_735_689_600) }

// TestGenesis is the test network's genesis (see MainGenesis).
func TestGenesis() *Genesis { return publicGenesis(TestChainID, "chaind testnet", 1_735_689_600) }

// publicGenesis builds a public network's genesis. The chain ID is in no
// block header, so the networks' genesis blocks differ by the name in
// their extra data: the genesis hash is what peers compare in the p2p
// handshake and data directories are checked against.
func publicGenesis(chainID uint64, name string, timestamp uint64) *Genesis {
	return &Genesis{
		Config:    AllForks(chainID),
		Timestamp: Uint64(timestamp),
		GasLimit:  60_000_000,
		ExtraData: []byte(name),
		Alloc:     Alloc{},
		Staking:   json.RawMessage(`{"validators":[],"delegations":[]}`),
	}
}

// DevFork is the newest fork a --dev chain runs unless told otherwise:
// the one go-ethereum 1.16.9's dev mode runs (its AllDevChainProtocolChanges
// activates Osaka at time 0), so contracts behave as under geth --dev.
const DevFork = forks.Osaka

// Create2Deployer is the deterministic-deployment proxy that Foundry's
// `new C{salt: s}()` in scripts and many deploy tools call: input
// salt(32) || initcode, output the created address (20 bytes). Its address
// is that of a keyless deployment, the same on every chain.
var Create2Deployer = types.MustAddress("0x4e59b44847b379578588920ca78fbf26c0b4956c")

// create2DeployerCode is the proxy's 69-byte runtime code, as anvil
// predeploys it (its eth_getCode answer, npm @foundry-rs/anvil).
var create2DeployerCode = mustHex("7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3")

// Multicall3 is the batching contract (aggregate, aggregate3, tryAggregate
// and the block getters) that viem, ethers' and web3's multicall helpers
// and forge-std call at one address on every chain. Its runtime code
// (multicall3_code.go) is what its canonical deployment transaction
// created there.
var Multicall3 = types.MustAddress("0xcA11bde05977b3631167028862bE2a173976CA11")

//go:generate go run github.com/chaind/chaind/internal/tools/predeploygen -in testdata/multicall3-deploy.hex -out multicall3_code.go

// AddDevPredeploys puts the contracts dev tools expect on a local chain
// into a: the CREATE2 deployer and Multicall3.
func AddDevPredeploys(a Alloc) {
	a[Create2Deployer] = Account{Code: create2DeployerCode}
	a[Multicall3] = Account{Code: multicall3Code}
}
