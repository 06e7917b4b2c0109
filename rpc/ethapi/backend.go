package ethapi

import "github.com/chaind/chaind/internal/backend"

// Backend is everything the Ethereum namespaces read, run or change: the
// chain, its rules, world state, execution, the pool and the network.
// The node implements it; tests may implement parts of it.
type Backend interface {
	backend.Blocks
	backend.Receipts
	backend.TxIndex
	backend.Blooms
	backend.HeadFeed
	backend.ChainConfig
	backend.StateReader
	backend.Proofs
	backend.TxPool
	backend.PendingFeed
	backend.Network
	backend.Executor
	backend.Tracer
	backend.BlockBuilder
	backend.PendingBlocks
	backend.Difficulty
	backend.Retention
	backend.BlobPool
}
