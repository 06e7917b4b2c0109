package backend

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// StateReader opens the world state of a block.
type StateReader interface {
	// StateAt opens the state after block h; an error when it is not
	// kept (pruned) or cannot be read.
	StateAt(h *types.Header) (State, error)
}

// State is the world state of one block, read only. The values it
// returns must not be modified.
type State interface {
	Balance(addr types.Address) *uint256.Int
	Nonce(addr types.Address) uint64
	Code(addr types.Address) []byte
	Storage(addr types.Address, key types.Hash) types.Hash
}

// Proofs serves Merkle proofs of accounts and storage (EIP-1186).
type Proofs interface {
	// Proof proves addr and the given storage keys of it against the
	// state root of block h.
	Proof(h *types.Header, addr types.Address, keys []types.Hash) (*AccountProof, error)
}

// AccountProof is an account, its storage slots and the trie nodes that
// prove them.
type AccountProof struct {
	Address     types.Address
	Proof       [][]byte // account trie nodes, root first
	Balance     *uint256.Int
	Nonce       uint64
	CodeHash    types.Hash
	StorageHash types.Hash
	Storage     []StorageProof // in the order asked
}

// StorageProof is one storage slot and the storage trie nodes proving it.
type StorageProof struct {
	Key   types.Hash
	Value types.Hash
	Proof [][]byte
}
