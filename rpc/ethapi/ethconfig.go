package ethapi

import (
	"context"

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

// forkAt describes the fork in force at time t, all block forks passed.
func (api *ethAPI) forkAt(t uint64) (*forkConfig, error) {
	fi, err := api.b.ForkAt(t)
	if err != nil {
		return nil, err
	}
	fc := &forkConfig{
		ActivationTime:  t,
		ChainID:         types.HexUint64(fi.ChainID),
		ForkID:          fi.ForkID[:],
		Precompiles:     map[string]types.Address{},
		SystemContracts: map[string]types.Address{},
	}
	if b := fi.Blob; b != nil {
		fc.BlobSchedule = &blobScheduleJSON{Target: b.Target, Max: b.Max, BaseFeeUpdateFraction: b.UpdateFraction}
	}
	for name, a := range fi.SystemContracts {
		fc.SystemContracts[name] = a
	}
	for _, a := range fi.Precompiles {
		if name, ok := precompileNames[a]; ok {
			fc.Precompiles[name] = a
		}
	}
	return fc, nil
}

// config is eth_config (EIP-7910): the fork in force at the head, the
// next scheduled one and the last scheduled one (null when none).
func (api *ethAPI) config(context.Context, rpc.Params) (any, error) {
	head := api.b.Head().HeaderRef()
	var cur uint64
	var next, last *uint64
	for _, t := range api.b.ForkTimes() {
		if t <= head.Time {
			cur = t
			continue
		}
		if next == nil {
			next = &t
		}
		last = &t
	}
	var (
		out struct {
			Current *forkConfig `json:"current"`
			Next    *forkConfig `json:"next"`
			Last    *forkConfig `json:"last"`
		}
		err error
	)
	if out.Current, err = api.forkAt(cur); err != nil {
		return nil, err
	}
	if next != nil {
		if out.Next, err = api.forkAt(*next); err != nil {
			return nil, err
		}
	}
	if last != nil {
		if out.Last, err = api.forkAt(*last); err != nil {
			return nil, err
		}
	}
	return out, nil
}
