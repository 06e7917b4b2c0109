package evm

import (
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Calls, contract creation and self-destruction.

func opCreate(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	if evm.readOnly {
		return nil, ErrWriteProtection
	}
	st := scope.Stack
	value, offset, size := st.pop(), st.pop(), st.peek()
	input := scope.Memory.GetCopy(offset.Uint64(), size.Uint64())
	gas := scope.Contract.Gas
	if evm.fork >= forks.TangerineWhistle {
		gas -= gas / 64 // EIP-150
	}
	scope.Contract.Gas -= gas
	res, addr, returnGas, err := evm.Create(scope.Contract.Address, input, gas, &value)
	pushCreateResult(evm, size, addr, err)
	scope.Contract.Gas += returnGas
	if err == ErrExecutionReverted {
		evm.returnData = res
		return res, nil
	}
	evm.returnData = nil
	return nil, nil
}

func opCreate2(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	if evm.readOnly {
		return nil, ErrWriteProtection
	}
	st := scope.Stack
	value, offset, size, salt := st.pop(), st.pop(), st.pop(), st.peek()
	input := scope.Memory.GetCopy(offset.Uint64(), size.Uint64())
	gas := scope.Contract.Gas
	gas -= gas / 64
	scope.Contract.Gas -= gas
	res, addr, returnGas, err := evm.Create2(scope.Contract.Address, input, gas, &value, salt)
	pushCreateResult(evm, salt, addr, err)
	scope.Contract.Gas += returnGas
	if err == ErrExecutionReverted {
		evm.returnData = res
		return res, nil
	}
	evm.returnData = nil
	return nil, nil
}

// pushCreateResult writes the new address, or zero on failure, into slot.
// Frontier counted a create whose code deposit could not be paid as a
// success.
func pushCreateResult(evm *EVM, slot *uint256.Int, addr types.Address, err error) {
	if err != nil && (evm.fork >= forks.Homestead || err != ErrCodeStoreOutOfGas) {
		slot.Clear()
	} else {
		slot.SetBytes20(addr[:])
	}
}

// callResult finishes a CALL-family operation: it pushes the success
// flag, copies the output to memory and returns unused gas to the frame.
func callResult(evm *EVM, scope *ScopeContext, ret []byte, returnGas uint64, err error, retOffset, retSize *uint256.Int) ([]byte, error) {
	if err != nil {
		scope.Stack.pushSlot().Clear()
	} else {
		scope.Stack.pushSlot().SetOne()
	}
	if err == nil || err == ErrExecutionReverted {
		scope.Memory.Set(retOffset.Uint64(), retSize.Uint64(), ret)
	}
	scope.Contract.Gas += returnGas
	evm.returnData = ret
	return ret, nil
}

func opCall(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	st := scope.Stack
	st.n-- // requested gas; the granted amount is in callGasTemp
	gas := evm.callGasTemp
	addr, value := st.pop(), st.pop()
	inOffset, inSize, retOffset, retSize := st.pop(), st.pop(), st.pop(), st.pop()
	if evm.readOnly && !value.IsZero() {
		return nil, ErrWriteProtection
	}
	if !value.IsZero() {
		gas += callStipend
	}
	args := scope.Memory.GetPtr(inOffset.Uint64(), inSize.Uint64())
	ret, returnGas, err := evm.Call(scope.Contract.Address, types.Address(addr.Bytes20()), args, gas, &value)
	return callResult(evm, scope, ret, returnGas, err, &retOffset, &retSize)
}

func opCallCode(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	st := scope.Stack
	st.n--
	gas := evm.callGasTemp
	addr, value := st.pop(), st.pop()
	inOffset, inSize, retOffset, retSize := st.pop(), st.pop(), st.pop(), st.pop()
	if !value.IsZero() {
		gas += callStipend
	}
	args := scope.Memory.GetPtr(inOffset.Uint64(), inSize.Uint64())
	ret, returnGas, err := evm.CallCode(scope.Contract.Address, types.Address(addr.Bytes20()), args, gas, &value)
	return callResult(evm, scope, ret, returnGas, err, &retOffset, &retSize)
}

func opDelegateCall(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	st := scope.Stack
	st.n--
	gas := evm.callGasTemp
	addr := st.pop()
	inOffset, inSize, retOffset, retSize := st.pop(), st.pop(), st.pop(), st.pop()
	args := scope.Memory.GetPtr(inOffset.Uint64(), inSize.Uint64())
	ret, returnGas, err := evm.DelegateCall(scope.Contract.Caller, scope.Contract.Address, types.Address(addr.Bytes20()), args, gas, &scope.Contract.Value)
	return callResult(evm, scope, ret, returnGas, err, &retOffset, &retSize)
}

func opStaticCall(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	st := scope.Stack
	st.n--
	gas := evm.callGasTemp
	addr := st.pop()
	inOffset, inSize, retOffset, retSize := st.pop(), st.pop(), st.pop(), st.pop()
	args := scope.Memory.GetPtr(inOffset.Uint64(), inSize.Uint64())
	ret, returnGas, err := evm.StaticCall(scope.Contract.Address, types.Address(addr.Bytes20()), args, gas)
	return callResult(evm, scope, ret, returnGas, err, &retOffset, &retSize)
}

func opSelfdestruct(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	if evm.readOnly {
		return nil, ErrWriteProtection
	}
	b := scope.Stack.pop()
	beneficiary := types.Address(b.Bytes20())
	self := scope.Contract.Address
	balance := new(uint256.Int).Set(evm.StateDB.GetBalance(self))
	if evm.Config.Tracer != nil {
		evm.traceEnter(FrameSelfDestruct, self, beneficiary, nil, 0, balance)
		evm.traceExit(0, 0, nil, nil)
	}
	if evm.fork >= forks.Cancun {
		// EIP-6780: the balance always moves; the account only goes away
		// if it was created in this transaction.
		evm.StateDB.SubBalance(self, balance)
		evm.StateDB.AddBalance(beneficiary, balance)
		evm.StateDB.SelfDestruct6780(self)
	} else {
		evm.StateDB.AddBalance(beneficiary, balance)
		evm.StateDB.SelfDestruct(self)
	}
	return nil, errStopToken
}
