package node

import (
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/store"
)

// OpenChain opens the chain of g on kv, preparing g first: a genesis with a
// staking section is only the chain's genesis once its system contracts
// are in it, so opening it unprepared would build another block 0 (and a
// store holding the prepared one would refuse it). Every opener of a
// chain for a node — the node itself and the commands that work on a data
// directory offline — goes through here.
func OpenChain(g *chain.Genesis, kv store.KV) (*chain.Chain, error) {
	if err := PrepareGenesis(g); err != nil {
		return nil, err
	}
	return chain.Open(g, kv)
}
