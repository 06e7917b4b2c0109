package devload

import (
	"fmt"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// TokenAddress is where GenesisWithToken places the token.
var TokenAddress = types.MustAddress("0x00000000000000000000000000000000000e2c20")

// GenesisWithToken is a dev genesis funding senders with ether and, at
// TokenAddress, the ERC-20 token with a balance for each of them.
func GenesisWithToken(chainID uint64, senders []*secp256k1.PrivateKey, timestamp uint64) *chain.Genesis {
	addrs := make([]types.Address, len(senders))
	for i, k := range senders {
		addrs[i] = Address(k)
	}
	g := chain.DevGenesis(chainID, addrs, timestamp)
	storage := map[types.Hash]types.Hash{}
	per := TokenSupply.Bytes32() // every sender holds the full supply: overflow is unreachable with 1-unit transfers
	for _, a := range addrs {
		storage[TokenSlot(a)] = types.Hash(per)
	}
	g.Alloc[TokenAddress] = chain.Account{Code: TokenRuntime(), Storage: storage}
	return g
}

// GenerateChain builds blocks of the given workload on g (made by
// GenesisWithToken for the same senders) with chaind's own block builder,
// perBlock transactions per block spread over the senders.
func GenerateChain(g *chain.Genesis, senders []*secp256k1.PrivateKey, kind Kind, blocks, perBlock int) ([]*types.Block, error) {
	c, err := chain.Open(g, store.NewMem(), nil)
	if err != nil {
		return nil, err
	}
	s := NewSigner(g.Config.ChainID)
	nonces := make([]uint64, len(senders))
	out := make([]*types.Block, 0, blocks)
	for b := 0; b < blocks; b++ {
		var txs []*types.Transaction
		for i, k := range senders {
			n := perBlock / len(senders)
			if i < perBlock%len(senders) {
				n++
			}
			w, err := s.Workload(kind, k, nonces[i], n, TokenAddress)
			if err != nil {
				return nil, err
			}
			nonces[i] += uint64(n)
			txs = append(txs, w...)
		}
		head := c.Head()
		built, err := c.BuildBlock(chain.BuildParams{Coinbase: Address(senders[0]), Time: head.Time() + 1}, txs)
		if err != nil {
			return nil, err
		}
		if got := len(built.Block.Transactions()); got != len(txs) {
			return nil, fmt.Errorf("devload: block %d took %d of %d transactions", built.Block.Number(), got, len(txs))
		}
		for _, r := range built.Receipts {
			if r.Status != types.ReceiptStatusSuccessful {
				return nil, fmt.Errorf("devload: a workload transaction failed in block %d", built.Block.Number())
			}
		}
		if err := c.CommitBuilt(built); err != nil {
			return nil, err
		}
		out = append(out, built.Block)
	}
	return out, nil
}
