package evm

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// StateDB is the world state as the EVM sees it during one transaction.
// The state package implements it; snapshots make every call frame
// revertible.
type StateDB interface {
	CreateAccount(types.Address)  // new account, keeps existing balance
	CreateContract(types.Address) // mark as created in the current tx (EIP-6780)

	SubBalance(types.Address, *uint256.Int)
	AddBalance(types.Address, *uint256.Int)
	GetBalance(types.Address) *uint256.Int // caller must not mutate

	GetNonce(types.Address) uint64
	SetNonce(types.Address, uint64)

	GetCodeHash(types.Address) types.Hash // zero hash for non-existent accounts
	GetCode(types.Address) []byte
	GetCodeSize(types.Address) int
	SetCode(types.Address, []byte)

	AddRefund(uint64)
	SubRefund(uint64)
	GetRefund() uint64

	GetCommittedState(types.Address, types.Hash) types.Hash // value at start of tx
	GetState(types.Address, types.Hash) types.Hash
	// SlotState is what SSTORE's gas asks in one lookup: the committed
	// and the current value and whether the slot is in the access list.
	SlotState(types.Address, types.Hash) (committed, current types.Hash, warm bool)
	SetState(types.Address, types.Hash, types.Hash)
	GetStorageRoot(types.Address) types.Hash // for the EIP-7610 collision check

	GetTransientState(types.Address, types.Hash) types.Hash
	SetTransientState(types.Address, types.Hash, types.Hash)

	SelfDestruct(types.Address)     // pre-Cancun semantics: mark destructed, zero balance
	SelfDestruct6780(types.Address) // only destructs if created in this tx
	HasSelfDestructed(types.Address) bool

	Exist(types.Address) bool
	Empty(types.Address) bool // EIP-161 empty

	AddressInAccessList(types.Address) bool
	SlotInAccessList(types.Address, types.Hash) (addressOk, slotOk bool)
	AddAddressToAccessList(types.Address)
	AddSlotToAccessList(types.Address, types.Hash)

	Snapshot() int
	RevertToSnapshot(int)

	AddLog(*types.Log)
}
