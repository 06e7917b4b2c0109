package evm

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// System contracts the node calls around a block's transactions.
var (
	// SystemAddress is the caller of system calls (EIP-4788 and later).
	SystemAddress = types.MustAddress("0xfffffffffffffffffffffffffffffffffffffffe")
	// BeaconRootsAddress stores parent beacon block roots (EIP-4788, Cancun).
	BeaconRootsAddress = types.MustAddress("0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02")
	// HistoryStorageAddress stores recent block hashes (EIP-2935, Prague).
	HistoryStorageAddress = types.MustAddress("0x0000F90827F1C53a10cb7A02335B175320002935")
	// WithdrawalQueueAddress queues execution-layer withdrawal requests (EIP-7002, Prague).
	WithdrawalQueueAddress = types.MustAddress("0x00000961Ef480Eb55e80D19ad83579A64c007002")
	// ConsolidationQueueAddress queues consolidation requests (EIP-7251, Prague).
	ConsolidationQueueAddress = types.MustAddress("0x0000BBdDc7CE488642fb579F8B00f3a590007251")
)

// SystemCallGas is the gas a system call gets; it is not taken from the
// block's gas limit.
const SystemCallGas = 30_000_000

// SystemCall calls a system contract from SystemAddress with no value and
// SystemCallGas, outside any transaction: no gas is bought or refunded.
// A contract without code is skipped silently (nil, nil), as EIP-4788 and
// EIP-2935 require. Use it at block start with the parent beacon root
// (BeaconRootsAddress, Cancun) and the parent hash (HistoryStorageAddress,
// Prague), and at block end with empty input to read the EIP-7002/7251
// request queues, whose failure makes the block invalid. The caller
// finalises the state afterwards (Finalise(true)).
func (evm *EVM) SystemCall(to types.Address, input []byte) ([]byte, error) {
	if evm.StateDB.GetCodeSize(to) == 0 {
		return nil, nil
	}
	prev := evm.TxContext
	evm.SetTxContext(TxContext{Origin: SystemAddress, GasPrice: new(uint256.Int)})
	defer evm.SetTxContext(prev)
	evm.StateDB.AddAddressToAccessList(to)
	ret, _, err := evm.Call(SystemAddress, to, input, SystemCallGas, new(uint256.Int))
	return ret, err
}
