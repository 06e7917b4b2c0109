package blocktests

import (
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

// chainID is the chain every blockchain test is signed for.
const chainID = 1

func at(v uint64) *uint64 { return &v }

// Network returns the chain configuration a test's "network" names: a fork
// from genesis, or a transition "AToBAtN" (block N) / "AToBAtTime15k"
// (timestamp 15,000).
func Network(name string) (*chain.Config, bool) {
	z := at(0)
	switch name {
	case "Cancun":
		return chain.AllForks(chainID), true
	case "FrontierToHomesteadAt5":
		return &chain.Config{ChainID: chainID, HomesteadBlock: at(5)}, true
	case "HomesteadToDaoAt5":
		return &chain.Config{ChainID: chainID, HomesteadBlock: z, DAOForkBlock: at(5), DAOForkSupport: true}, true
	case "ByzantiumToConstantinopleFixAt5":
		return &chain.Config{ChainID: chainID, HomesteadBlock: z, EIP150Block: z, EIP155Block: z, EIP158Block: z,
			ByzantiumBlock: z, ConstantinopleBlock: at(5), PetersburgBlock: at(5)}, true
	case "BerlinToLondonAt5":
		return &chain.Config{ChainID: chainID, HomesteadBlock: z, EIP150Block: z, EIP155Block: z, EIP158Block: z,
			ByzantiumBlock: z, ConstantinopleBlock: z, PetersburgBlock: z, IstanbulBlock: z, MuirGlacierBlock: z,
			BerlinBlock: z, LondonBlock: at(5)}, true
	case "ParisToShanghaiAtTime15k":
		c := chain.AllForks(chainID)
		c.CancunTime = nil
		c.ShanghaiTime = at(15_000)
		return c, true
	}
	return nil, false
}

// GenesisOf is the genesis whose block 0 has h's fields and alloc as its
// state.
func GenesisOf(cfg *chain.Config, h *types.Header, alloc chain.Alloc) *chain.Genesis {
	g := &chain.Genesis{
		Config:     cfg,
		Nonce:      chain.Uint64(h.Nonce.Uint64()),
		Timestamp:  chain.Uint64(h.Time),
		ExtraData:  append(chain.Bytes(nil), h.Extra...),
		GasLimit:   chain.Uint64(h.GasLimit),
		Mixhash:    h.MixDigest,
		Coinbase:   h.Coinbase,
		Alloc:      alloc,
		Number:     chain.Uint64(h.Number),
		GasUsed:    chain.Uint64(h.GasUsed),
		ParentHash: h.ParentHash,
	}
	g.Difficulty.Int = h.Difficulty
	if h.BaseFee != nil {
		g.BaseFee = &chain.U256{}
		g.BaseFee.Int = *h.BaseFee
	}
	if h.ExcessBlobGas != nil {
		v := chain.Uint64(*h.ExcessBlobGas)
		g.ExcessBlobGas = &v
	}
	if h.BlobGasUsed != nil {
		v := chain.Uint64(*h.BlobGasUsed)
		g.BlobGasUsed = &v
	}
	return g
}
