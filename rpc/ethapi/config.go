package ethapi

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"slices"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// forkConfig is one fork's entry of eth_config (EIP-7910).
type forkConfig struct {
	ActivationTime  uint64                   `json:"activationTime"`
	BlobSchedule    *blobScheduleJSON        `json:"blobSchedule"`
	ChainID         types.HexUint64          `json:"chainId"`
	ForkID          types.HexBytes           `json:"forkId"`
	Precompiles     map[string]types.Address `json:"precompiles"`
	SystemContracts map[string]types.Address `json:"systemContracts"`
}

type blobScheduleJSON struct {
	Target                uint64 `json:"target"`
	Max                   uint64 `json:"max"`
	BaseFeeUpdateFraction uint64 `json:"baseFeeUpdateFraction"`
}

// precompileNames are the EIP-7910 names of the precompiled contracts.
var precompileNames = map[types.Address]string{
	types.BytesToAddress([]byte{0x01}):       "ECREC",
	types.BytesToAddress([]byte{0x02}):       "SHA256",
	types.BytesToAddress([]byte{0x03}):       "RIPEMD160",
	types.BytesToAddress([]byte{0x04}):       "ID",
	types.BytesToAddress([]byte{0x05}):       "MODEXP",
	types.BytesToAddress([]byte{0x06}):       "BN254_ADD",
	types.BytesToAddress([]byte{0x07}):       "BN254_MUL",
	types.BytesToAddress([]byte{0x08}):       "BN254_PAIRING",
	types.BytesToAddress([]byte{0x09}):       "BLAKE2F",
	types.BytesToAddress([]byte{0x0a}):       "KZG_POINT_EVALUATION",
	types.BytesToAddress([]byte{0x0b}):       "BLS12_G1ADD",
	types.BytesToAddress([]byte{0x0c}):       "BLS12_G1MSM",
	types.BytesToAddress([]byte{0x0d}):       "BLS12_G2ADD",
	types.BytesToAddress([]byte{0x0e}):       "BLS12_G2MSM",
	types.BytesToAddress([]byte{0x0f}):       "BLS12_PAIRING_CHECK",
	types.BytesToAddress([]byte{0x10}):       "BLS12_MAP_FP_TO_G1",
	types.BytesToAddress([]byte{0x11}):       "BLS12_MAP_FP2_TO_G2",
	types.BytesToAddress([]byte{0x01, 0x00}): "P256VERIFY",
}

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

// forkAt describes the fork in force at time t, all block forks passed.
func (api *ethAPI) forkAt(genesis *types.Header, t uint64) *forkConfig {
	cfg := api.b.Config()
	const allBlocks = ^uint64(0)
	fork := cfg.Fork(allBlocks, t)
	fc := &forkConfig{
		ActivationTime:  t,
		ChainID:         types.HexUint64(cfg.ChainID),
		Precompiles:     map[string]types.Address{},
		SystemContracts: map[string]types.Address{},
	}
	id := ForkID(cfg, genesis, allBlocks, t)
	fc.ForkID = id[:]
	if fork >= forks.Cancun {
		b := cfg.Blob(allBlocks, t)
		fc.BlobSchedule = &blobScheduleJSON{Target: b.Target, Max: b.Max, BaseFeeUpdateFraction: b.UpdateFraction}
		fc.SystemContracts["BEACON_ROOTS_ADDRESS"] = evm.BeaconRootsAddress
	}
	if fork >= forks.Prague {
		fc.SystemContracts["HISTORY_STORAGE_ADDRESS"] = evm.HistoryStorageAddress
		fc.SystemContracts["WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS"] = evm.WithdrawalQueueAddress
		fc.SystemContracts["CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS"] = evm.ConsolidationQueueAddress
		var dc types.Address
		if cfg.DepositContractAddress != nil {
			dc = *cfg.DepositContractAddress
		}
		fc.SystemContracts["DEPOSIT_CONTRACT_ADDRESS"] = dc
	}
	vm := evm.NewEVM(evm.BlockContext{}, nil, cfg.ChainID, fork)
	for _, a := range vm.PrecompileAddresses() {
		if name, ok := precompileNames[a]; ok {
			fc.Precompiles[name] = a
		}
	}
	return fc
}

// config is eth_config (EIP-7910): the fork in force at the head, the
// next scheduled one and the last scheduled one (null when none).
func (api *ethAPI) config(context.Context, rpc.Params) (any, error) {
	gen, err := api.b.BlockByNumber(0)
	if err != nil {
		return nil, err
	}
	head := api.b.Head().HeaderRef()
	var cur uint64
	var next, last *uint64
	for _, t := range timeForks(api.b.Config()) {
		if t <= head.Time {
			cur = t
			continue
		}
		if next == nil {
			next = &t
		}
		last = &t
	}
	out := struct {
		Current *forkConfig `json:"current"`
		Next    *forkConfig `json:"next"`
		Last    *forkConfig `json:"last"`
	}{Current: api.forkAt(gen.HeaderRef(), cur)}
	if next != nil {
		out.Next = api.forkAt(gen.HeaderRef(), *next)
	}
	if last != nil {
		out.Last = api.forkAt(gen.HeaderRef(), *last)
	}
	return out, nil
}
