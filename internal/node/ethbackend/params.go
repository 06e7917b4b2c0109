package ethbackend

import (
	"encoding/binary"
	"hash/crc32"
	"slices"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// ChainID is the chain ID of the next block, which transactions sent now
// are signed for (eth_chainId): the genesis's, unless a development chain
// changed it (chain.Config.ChainIDAt).
func (b *Backend) ChainID() uint64 { return b.chain.Config.ChainIDAt(b.chain.Head().Number() + 1) }

// GenesisConfig is the backend's chain config with ChainID the genesis's:
// the network's identity, which its consensus binds and the Cosmos side
// (CometBFT headers and status, the SDK queries) reports. A development
// chain's anvil_setChainId moves only the execution chain ID (ChainID).
func (b *Backend) GenesisConfig() backend.ChainConfig { return genesisConfig{b} }

type genesisConfig struct{ *Backend }

func (g genesisConfig) ChainID() uint64 { return g.chain.Config.ChainID }

func (b *Backend) Fork(number, time uint64) forks.Fork { return b.chain.Config.Fork(number, time) }

// Signer recovers the senders of a block's transactions: with the
// chain's ID, except in a fork's genesis that is the upstream's fork
// block, whose transactions the upstream's chain ID signed (a fork may
// take another).
func (b *Backend) Signer(number, time uint64) types.Signer {
	s := b.chain.Config.Signer(number, time)
	if id, ok := b.upstreamChainID(number); ok && id != b.chain.Config.ChainIDAt(number) {
		s = types.NewSigner(id, s.Fork())
	}
	return s
}

// NextBaseFee is the base fee of the child of parent, as the pool admits
// by it and the proposer builds with it (chainview.View.NextBlockParams).
func (b *Backend) NextBaseFee(parent *types.Header) *uint256.Int {
	return b.view.NextBlockParams(parent, nil).BaseFee
}

func (b *Backend) BlobParams(number, time uint64) backend.BlobParams {
	bc := b.chain.Config.Blob(number, time)
	return backend.BlobParams{Target: bc.Target, Max: bc.Max, UpdateFraction: bc.UpdateFraction}
}

func (b *Backend) BlobBaseFee(h *types.Header) *uint256.Int {
	if h.ExcessBlobGas == nil {
		return nil
	}
	return b.chain.Config.Blob(h.Number, h.Time).BaseFee(*h.ExcessBlobGas)
}

// NextBlobBaseFee takes the child to come one second after parent, the
// earliest it can be, for the fork and blob schedule in force.
func (b *Backend) NextBlobBaseFee(parent *types.Header) *uint256.Int {
	if parent.ExcessBlobGas == nil {
		return nil
	}
	return b.view.NextBlockParams(parent, nil).BlobBaseFee
}

func (b *Backend) ForkTimes() []uint64 { return timeForks(b.chain.Config) }

// timeForks lists the timestamp-activated forks of a config in order.
func timeForks(c *chain.Config) []uint64 {
	var out []uint64
	for _, t := range []*uint64{c.ShanghaiTime, c.CancunTime, c.PragueTime, c.OsakaTime, c.BPO1Time, c.BPO2Time} {
		if t != nil {
			out = append(out, *t)
		}
	}
	return out
}

// ForkID is the EIP-2124 fork hash of a chain at (number, time): CRC32 of
// the genesis hash extended by every fork block and time passed so far.
func ForkID(c *chain.Config, genesis *types.Header, number, time uint64) [4]byte {
	var blocks []uint64
	for _, b := range []*uint64{c.HomesteadBlock, c.DAOForkBlock, c.EIP150Block, c.EIP155Block, c.EIP158Block,
		c.ByzantiumBlock, c.ConstantinopleBlock, c.PetersburgBlock, c.IstanbulBlock, c.MuirGlacierBlock,
		c.BerlinBlock, c.LondonBlock, c.ArrowGlacierBlock, c.GrayGlacierBlock, c.MergeNetsplitBlock} {
		if b != nil && *b != 0 {
			blocks = append(blocks, *b)
		}
	}
	slices.Sort(blocks)
	blocks = slices.Compact(blocks)
	var times []uint64
	for _, t := range timeForks(c) {
		if t > genesis.Time {
			times = append(times, t)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	gh := genesis.Hash()
	sum := crc32.ChecksumIEEE(gh[:])
	var buf [8]byte
	for _, b := range blocks {
		if b > number {
			break
		}
		binary.BigEndian.PutUint64(buf[:], b)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:])
	}
	for _, t := range times {
		if t > time {
			break
		}
		binary.BigEndian.PutUint64(buf[:], t)
		sum = crc32.Update(sum, crc32.IEEETable, buf[:])
	}
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], sum)
	return out
}

// ForkAt describes the fork in force at time t, all block forks passed.
func (b *Backend) ForkAt(t uint64) (backend.ForkInfo, error) {
	gen, err := b.chain.BlockByNumber(0)
	if err != nil {
		return backend.ForkInfo{}, err
	}
	cfg := b.chain.Config
	const allBlocks = ^uint64(0)
	fork := cfg.Fork(allBlocks, t)
	fi := backend.ForkInfo{
		ActivationTime:  t,
		Fork:            fork,
		ChainID:         b.ChainID(),
		ForkID:          ForkID(cfg, gen.HeaderRef(), allBlocks, t),
		SystemContracts: map[string]types.Address{},
	}
	if fork >= forks.Cancun {
		bp := b.BlobParams(allBlocks, t)
		fi.Blob = &bp
		fi.SystemContracts["BEACON_ROOTS_ADDRESS"] = evm.BeaconRootsAddress
	}
	if fork >= forks.Prague {
		fi.SystemContracts["HISTORY_STORAGE_ADDRESS"] = evm.HistoryStorageAddress
		fi.SystemContracts["WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS"] = evm.WithdrawalQueueAddress
		fi.SystemContracts["CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS"] = evm.ConsolidationQueueAddress
		var dc types.Address
		if cfg.DepositContractAddress != nil {
			dc = *cfg.DepositContractAddress
		}
		fi.SystemContracts["DEPOSIT_CONTRACT_ADDRESS"] = dc
	}
	fi.Precompiles = evm.NewEVM(evm.BlockContext{}, nil, cfg.ChainID, fork).PrecompileAddresses()
	return fi, nil
}
