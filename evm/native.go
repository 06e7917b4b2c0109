package evm

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// NativeContract is a stateful contract written in Go that lives at a fixed
// address of a chain (its staking and governance system contracts). Unlike
// a precompile it sees the call's context (caller, value, static mode),
// reads and writes the world state under its own address, emits logs and
// charges gas as it goes. A call reaches it by CALL or STATICCALL;
// DELEGATECALL and CALLCODE run the account's code instead, so a contract
// cannot borrow a system contract's identity.
type NativeContract interface {
	RunNative(c *NativeCall) ([]byte, error)
}

// NativeCall is one call of a native contract.
type NativeCall struct {
	EVM      *EVM
	Caller   types.Address
	Address  types.Address
	Value    *uint256.Int // already moved to Address
	Input    []byte
	ReadOnly bool // a static call: any state change fails with ErrWriteProtection
	Gas      uint64
}

// UseGas charges n gas; ErrOutOfGas when the call has less left.
func (c *NativeCall) UseGas(n uint64) error {
	if c.Gas < n {
		c.Gas = 0
		return ErrOutOfGas
	}
	c.Gas -= n
	return nil
}

// SetNatives installs the chain's native contracts in this EVM. Calls to
// their addresses run them before any code the accounts hold.
func (evm *EVM) SetNatives(m map[types.Address]NativeContract) { evm.natives = m }

// errNativePanic reports a native contract that panicked; the call fails
// like a precompile error instead of taking the node down.
var errNativePanic = errors.New("native contract panicked")

// runNative runs a native contract in its own frame. Errors other than a
// revert consume all gas, as for code.
func (evm *EVM) runNative(nc NativeContract, caller, addr types.Address, input []byte, gas uint64, value *uint256.Int, readOnly bool) (ret []byte, left uint64, err error) {
	evm.depth++
	defer func() { evm.depth-- }()
	c := &NativeCall{EVM: evm, Caller: caller, Address: addr, Value: value, Input: input, ReadOnly: readOnly || evm.readOnly, Gas: gas}
	defer func() {
		if r := recover(); r != nil {
			ret, left, err = nil, 0, fmt.Errorf("%w: %v", errNativePanic, r)
		}
	}()
	evm.returnData = nil
	ret, err = nc.RunNative(c)
	return ret, c.Gas, err
}
