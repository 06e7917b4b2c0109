// Package chain holds what makes a sequence of blocks one chain: the chain
// configuration (chain ID and fork schedule), the genesis block, block
// execution and validation, the chain store and the transaction pool.
package chain

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
)

// Config is a chain's identity and fork schedule, in go-ethereum's
// genesis.json shape so that existing genesis files load unchanged. Forks
// up to the Merge activate by block number, later ones by timestamp; a nil
// field means the fork never activates.
type Config struct {
	// ChainID is the genesis's chain ID: the network's identity, which
	// consensus signatures, certificates and the p2p handshake bind.
	// Transactions and CHAINID use ChainIDAt, which is ChainID except on a
	// development chain that changed its ID (chainids.go).
	ChainID uint64 `json:"chainId"`

	HomesteadBlock      *uint64 `json:"homesteadBlock,omitempty"`
	DAOForkBlock        *uint64 `json:"daoForkBlock,omitempty"`
	DAOForkSupport      bool    `json:"daoForkSupport,omitempty"`
	EIP150Block         *uint64 `json:"eip150Block,omitempty"`
	EIP155Block         *uint64 `json:"eip155Block,omitempty"`
	EIP158Block         *uint64 `json:"eip158Block,omitempty"`
	ByzantiumBlock      *uint64 `json:"byzantiumBlock,omitempty"`
	ConstantinopleBlock *uint64 `json:"constantinopleBlock,omitempty"`
	PetersburgBlock     *uint64 `json:"petersburgBlock,omitempty"`
	IstanbulBlock       *uint64 `json:"istanbulBlock,omitempty"`
	MuirGlacierBlock    *uint64 `json:"muirGlacierBlock,omitempty"`
	BerlinBlock         *uint64 `json:"berlinBlock,omitempty"`
	LondonBlock         *uint64 `json:"londonBlock,omitempty"`
	ArrowGlacierBlock   *uint64 `json:"arrowGlacierBlock,omitempty"`
	GrayGlacierBlock    *uint64 `json:"grayGlacierBlock,omitempty"`
	MergeNetsplitBlock  *uint64 `json:"mergeNetsplitBlock,omitempty"`

	ShanghaiTime *uint64 `json:"shanghaiTime,omitempty"`
	CancunTime   *uint64 `json:"cancunTime,omitempty"`
	PragueTime   *uint64 `json:"pragueTime,omitempty"`
	OsakaTime    *uint64 `json:"osakaTime,omitempty"`
	BPO1Time     *uint64 `json:"bpo1Time,omitempty"`
	BPO2Time     *uint64 `json:"bpo2Time,omitempty"`

	// TerminalTotalDifficulty marks the Merge on chains that started with
	// proof of work; blocks after it carry difficulty 0.
	TerminalTotalDifficulty       *BigInt `json:"terminalTotalDifficulty,omitempty"`
	TerminalTotalDifficultyPassed bool    `json:"terminalTotalDifficultyPassed,omitempty"`

	DepositContractAddress *types.Address        `json:"depositContractAddress,omitempty"`
	BlobSchedule           map[string]BlobParams `json:"blobSchedule,omitempty"`

	// Ethash and Clique are accepted for compatibility; chaind trusts
	// proof-of-work seals of imported blocks instead of verifying them.
	Ethash json.RawMessage `json:"ethash,omitempty"`
	Clique json.RawMessage `json:"clique,omitempty"`

	// Impersonation makes the chain's signer accept the marker signatures
	// of impersonated transactions (types.ImpersonatedSignature): a
	// development chain's test helper, set by the node, never by a file.
	Impersonation bool `json:"-"`
	// MaxCodeSize replaces EIP-170's code size limit (and EIP-3860's,
	// doubled) on a development chain, as anvil's --code-size-limit does
	// (evm.Config.MaxCodeSize; evm.NoCodeSizeLimit lifts them): set by the
	// node, never by a file. 0 keeps the protocol's.
	MaxCodeSize uint64 `json:"-"`
	// ChainIDs are the chain ID changes of a development chain
	// (anvil_setChainId), by height (ChainIDAt): set by the node
	// (NewChainIDs), never by a file; nil elsewhere.
	ChainIDs *ChainIDs `json:"-"`
}

// BlobParams are the EIP-4844 / EIP-7840 blob parameters of one fork.
type BlobParams struct {
	Target                uint64 `json:"target"`
	Max                   uint64 `json:"max"`
	BaseFeeUpdateFraction uint64 `json:"baseFeeUpdateFraction"`
}

func active(at *uint64, v uint64) bool { return at != nil && *at <= v }

// IsEIP155 reports whether replay-protected signatures are in force.
func (c *Config) IsEIP155(number uint64) bool { return active(c.EIP155Block, number) }

// IsLondon reports whether EIP-1559 base fees are in force.
func (c *Config) IsLondon(number uint64) bool { return active(c.LondonBlock, number) }

// IsMerged reports whether the block is past the Merge (proof of stake
// rules: no uncles, no block reward, difficulty 0, PREVRANDAO).
func (c *Config) IsMerged(number uint64) bool {
	if c.MergeNetsplitBlock != nil {
		return number >= *c.MergeNetsplitBlock
	}
	return c.TerminalTotalDifficulty != nil && c.TerminalTotalDifficultyPassed
}

// IsPoSHeader reports whether a header follows proof-of-stake rules. On a
// chain that crossed the Merge by a positive terminal total difficulty
// (hive's chains: proof of work up to some height, then proof of stake),
// the height alone cannot say so: as on the beacon chain, a block with
// difficulty 0 is a proof-of-stake block. Elsewhere IsMerged decides.
// Whether the parent's total difficulty really reached the terminal one
// needs the chain's stored totals: Chain checks it (checkTerminal).
func (c *Config) IsPoSHeader(h *types.Header) bool {
	if c.mergesByDifficulty() {
		return h.Difficulty.IsZero()
	}
	return c.IsMerged(h.Number)
}

// mergesByDifficulty reports whether the chain crosses the Merge at a
// positive terminal total difficulty rather than at a fixed height.
func (c *Config) mergesByDifficulty() bool {
	return c.MergeNetsplitBlock == nil && c.TerminalTotalDifficulty != nil && c.TerminalTotalDifficultyPassed &&
		(*big.Int)(c.TerminalTotalDifficulty).Sign() > 0
}

// HeaderFork returns the EVM rules in force for the block with header h.
// It is Fork, except on a chain that crosses the Merge at a positive
// terminal total difficulty: there the height cannot tell a proof-of-work
// block from a proof-of-stake one, and a proof-of-work block runs the
// rules before the Merge (DIFFICULTY, not PREVRANDAO).
func (c *Config) HeaderFork(h *types.Header) forks.Fork {
	return preMerge(c.Fork(h.Number, h.Time), c.IsPoSHeader(h))
}

// ContextFork returns the EVM rules for a block context built by
// BlockContext (possibly with overrides): as HeaderFork, with the
// context's PREVRANDAO marking a proof-of-stake block.
func (c *Config) ContextFork(ctx *evm.BlockContext) forks.Fork {
	return preMerge(c.Fork(ctx.Number, ctx.Time), ctx.Random != nil)
}

// preMerge turns the Paris rules of a proof-of-work block into London's.
func preMerge(f forks.Fork, pos bool) forks.Fork {
	if f == forks.Paris && !pos {
		return forks.London
	}
	return f
}

// Fork returns the EVM rules in force for a block. The forks scheduled
// by time build on London: a block below London's number is not in them
// whatever its time, as in go-ethereum (a real chain never has such a
// block, but a simulated one may be given any number and time).
func (c *Config) Fork(number, time uint64) forks.Fork {
	london := c.IsLondon(number)
	switch {
	case london && active(c.OsakaTime, time):
		return forks.Osaka
	case london && active(c.PragueTime, time):
		return forks.Prague
	case london && active(c.CancunTime, time):
		return forks.Cancun
	case london && active(c.ShanghaiTime, time):
		return forks.Shanghai
	case c.IsMerged(number) && active(c.LondonBlock, number):
		return forks.Paris
	case active(c.LondonBlock, number):
		return forks.London
	case active(c.BerlinBlock, number):
		return forks.Berlin
	case active(c.IstanbulBlock, number):
		return forks.Istanbul
	case active(c.PetersburgBlock, number):
		return forks.Petersburg
	case active(c.ConstantinopleBlock, number):
		return forks.Constantinople
	case active(c.ByzantiumBlock, number):
		return forks.Byzantium
	case active(c.EIP158Block, number):
		return forks.SpuriousDragon
	case active(c.EIP150Block, number):
		return forks.TangerineWhistle
	case active(c.HomesteadBlock, number):
		return forks.Homestead
	}
	return forks.Frontier
}

// Blob returns the blob parameters in force at time, from the config's
// schedule when it has one for the fork, else the fork's defaults.
func (c *Config) Blob(number, time uint64) evm.BlobConfig {
	fork := c.Fork(number, time)
	name := ""
	switch {
	case fork >= forks.Cancun && active(c.BPO2Time, time):
		name = "bpo2"
	case fork >= forks.Cancun && active(c.BPO1Time, time):
		name = "bpo1"
	case fork >= forks.Osaka:
		name = "osaka"
	case fork >= forks.Prague:
		name = "prague"
	case fork >= forks.Cancun:
		name = "cancun"
	}
	if p, ok := c.BlobSchedule[name]; ok {
		return evm.BlobConfig{Target: p.Target, Max: p.Max, UpdateFraction: p.BaseFeeUpdateFraction}
	}
	return evm.BlobSchedule(fork)
}

// Check rejects schedules whose forks are out of order.
func (c *Config) Check() error {
	if c.ChainID == 0 {
		return fmt.Errorf("chain config: chainId must be set")
	}
	blocks := []struct {
		name string
		at   *uint64
	}{
		{"homesteadBlock", c.HomesteadBlock}, {"eip150Block", c.EIP150Block}, {"eip155Block", c.EIP155Block},
		{"eip158Block", c.EIP158Block}, {"byzantiumBlock", c.ByzantiumBlock},
		{"constantinopleBlock", c.ConstantinopleBlock}, {"petersburgBlock", c.PetersburgBlock},
		{"istanbulBlock", c.IstanbulBlock}, {"berlinBlock", c.BerlinBlock}, {"londonBlock", c.LondonBlock},
	}
	var last *uint64
	lastName := ""
	for _, b := range blocks {
		if b.at == nil {
			continue
		}
		if last != nil && *b.at < *last {
			return fmt.Errorf("chain config: %s (%d) is before %s (%d)", b.name, *b.at, lastName, *last)
		}
		last, lastName = b.at, b.name
	}
	times := []struct {
		name string
		at   *uint64
	}{{"shanghaiTime", c.ShanghaiTime}, {"cancunTime", c.CancunTime}, {"pragueTime", c.PragueTime}, {"osakaTime", c.OsakaTime}, {"bpo1Time", c.BPO1Time}, {"bpo2Time", c.BPO2Time}}
	last, lastName = nil, ""
	for _, t := range times {
		if t.at == nil {
			continue
		}
		if last != nil && *t.at < *last {
			return fmt.Errorf("chain config: %s (%d) is before %s (%d)", t.name, *t.at, lastName, *last)
		}
		last, lastName = t.at, t.name
	}
	return nil
}

func u64(v uint64) *uint64 { return &v }

// AllForks returns a config with every fork through Cancun active from
// genesis: the rules chaind's own networks run, matching the fork the
// state-test vectors cover. Prague needs its system contracts (EIP-2935,
// 7002, 7251) in the genesis alloc and joins when those are predeployed.
func AllForks(chainID uint64) *Config {
	z := u64(0)
	return &Config{
		ChainID:        chainID,
		HomesteadBlock: z, EIP150Block: z, EIP155Block: z, EIP158Block: z, ByzantiumBlock: z,
		ConstantinopleBlock: z, PetersburgBlock: z, IstanbulBlock: z, MuirGlacierBlock: z,
		BerlinBlock: z, LondonBlock: z, ArrowGlacierBlock: z, GrayGlacierBlock: z, MergeNetsplitBlock: z,
		ShanghaiTime: z, CancunTime: z,
		TerminalTotalDifficulty: new(BigInt), TerminalTotalDifficultyPassed: true,
	}
}
