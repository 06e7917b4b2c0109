package backend

import (
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Blocks reads the canonical chain.
type Blocks interface {
	Head() *types.Block
	// BlockByNumber returns a canonical block; ErrNotFound when absent.
	BlockByNumber(n uint64) (*types.Block, error)
	// BlockByHash returns a stored block, canonical or not; ErrNotFound
	// when absent.
	BlockByHash(h types.Hash) (*types.Block, error)
	// CanonicalHash is the hash of canonical block n, zero when absent.
	CanonicalHash(n uint64) types.Hash
}

// Receipts derives the receipts of stored blocks.
type Receipts interface {
	// Receipts returns a block's receipts with every derived field set
	// (block, transaction and log positions, gas used, prices).
	Receipts(b *types.Block) (types.Receipts, error)
}

// TxIndex finds included transactions.
type TxIndex interface {
	// TxLookup gives the block and position of a canonical transaction.
	TxLookup(h types.Hash) (blockHash types.Hash, index int, ok bool)
}

// Blooms reads block blooms without reading blocks, so log queries can
// skip most blocks cheaply.
type Blooms interface {
	// BloomScanner returns a reader for one query (it may cache between
	// calls); ok false means no bloom is stored for that block.
	BloomScanner() func(n uint64) (bloom types.Bloom, ok bool, err error)
}

// HeadFeed delivers new canonical heads.
type HeadFeed interface {
	// SubscribeHeads returns a channel of heads holding up to buffer
	// undelivered ones, and the function that ends the subscription.
	SubscribeHeads(buffer int) (<-chan *types.Block, func())
}

// ChainConfig answers the questions about the chain's rules an interface
// needs to describe blocks and transactions, so that none of them reads
// the chain's configuration directly.
type ChainConfig interface {
	ChainID() uint64
	// Fork is the fork in force for a block of the given number and time.
	Fork(number, time uint64) forks.Fork
	// Signer recovers senders of transactions in such a block.
	Signer(number, time uint64) types.Signer
	// NextBaseFee is the base fee of the child of parent; nil when the
	// child is before London.
	NextBaseFee(parent *types.Header) *uint256.Int
	// BlobParams are the blob limits in force for such a block.
	BlobParams(number, time uint64) BlobParams
	// BlobBaseFee is the blob gas price of the block h; nil before Cancun.
	BlobBaseFee(h *types.Header) *uint256.Int
	// NextBlobBaseFee is the blob gas price of the child of parent; nil
	// when parent is before Cancun.
	NextBlobBaseFee(parent *types.Header) *uint256.Int
	// ForkTimes lists the times of the scheduled time-activated forks in
	// order, past and future.
	ForkTimes() []uint64
	// ForkAt describes the rules in force at time t, every block-numbered
	// fork passed (EIP-7910's view of a fork).
	ForkAt(t uint64) (ForkInfo, error)
}

// BlobParams are a fork's blob limits (EIP-4844, EIP-7691, EIP-7892).
type BlobParams struct {
	Target, Max    uint64 // blobs per block
	UpdateFraction uint64 // base fee update fraction
}

// ForkInfo describes the rules of one fork.
type ForkInfo struct {
	ActivationTime uint64
	Fork           forks.Fork
	ChainID        uint64
	ForkID         [4]byte     // EIP-2124 fork hash
	Blob           *BlobParams // nil before Cancun
	Precompiles    []types.Address
	// SystemContracts maps the names the EIPs give system contract
	// addresses (BEACON_ROOTS_ADDRESS, ...) to the addresses in force.
	SystemContracts map[string]types.Address
}
