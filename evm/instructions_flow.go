package evm

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Stack, memory, storage and control flow.

func opMload(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	v := scope.Stack.peek()
	off := v.Uint64()
	v.SetBytes32(scope.Memory.store[off : off+32])
	return nil, nil
}

func opMstore(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	off, val := scope.Stack.pop(), scope.Stack.pop()
	scope.Memory.Set32(off.Uint64(), &val)
	return nil, nil
}

func opMstore8(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	off, val := scope.Stack.pop(), scope.Stack.pop()
	scope.Memory.store[off.Uint64()] = byte(val.Uint64())
	return nil, nil
}

func opMcopy(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	dst, src, length := scope.Stack.pop(), scope.Stack.pop(), scope.Stack.pop()
	scope.Memory.Copy(dst.Uint64(), src.Uint64(), length.Uint64())
	return nil, nil
}

func opSload(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	loc := scope.Stack.peek()
	v := evm.StateDB.GetState(scope.Contract.Address, types.Hash(loc.Bytes32()))
	loc.SetBytes32(v[:])
	return nil, nil
}

func opSstore(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	if evm.readOnly {
		return nil, ErrWriteProtection
	}
	loc, val := scope.Stack.pop(), scope.Stack.pop()
	evm.StateDB.SetState(scope.Contract.Address, types.Hash(loc.Bytes32()), types.Hash(val.Bytes32()))
	return nil, nil
}

func opTload(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	loc := scope.Stack.peek()
	v := evm.StateDB.GetTransientState(scope.Contract.Address, types.Hash(loc.Bytes32()))
	loc.SetBytes32(v[:])
	return nil, nil
}

func opTstore(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	if evm.readOnly {
		return nil, ErrWriteProtection
	}
	loc, val := scope.Stack.pop(), scope.Stack.pop()
	evm.StateDB.SetTransientState(scope.Contract.Address, types.Hash(loc.Bytes32()), types.Hash(val.Bytes32()))
	return nil, nil
}

func opPc(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(*pc)
	return nil, nil
}

func opMsize(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(uint64(scope.Memory.Len()))
	return nil, nil
}

func opGas(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(scope.Contract.Gas)
	return nil, nil
}

func opPush0(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().Clear()
	return nil, nil
}

func opPush1(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	code := scope.Contract.Code
	*pc++
	s := scope.Stack.pushSlot()
	if *pc < uint64(len(code)) {
		s.SetUint64(uint64(code[*pc]))
	} else {
		s.Clear()
	}
	return nil, nil
}

func opPush2(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	code := scope.Contract.Code
	s := scope.Stack.pushSlot()
	if p := *pc; p+2 < uint64(len(code)) {
		s.SetUint64(uint64(code[p+1])<<8 | uint64(code[p+2]))
	} else {
		pushPadded(s, code, p+1, 2)
	}
	*pc += 2
	return nil, nil
}

// makePush returns PUSHn for n bytes of immediate data; data running past
// the end of code reads as zero bytes on the right.
func makePush(n uint64) executionFunc {
	return func(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
		pushPadded(scope.Stack.pushSlot(), scope.Contract.Code, *pc+1, n)
		*pc += n
		return nil, nil
	}
}

func pushPadded(s *uint256.Int, code []byte, start, n uint64) {
	var buf [32]byte
	if start < uint64(len(code)) {
		copy(buf[:n], code[start:min(start+n, uint64(len(code)))])
	}
	s.SetBytes(buf[:n])
}

func makeDup(n int) executionFunc {
	return func(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
		scope.Stack.dup(n)
		return nil, nil
	}
}

func makeSwap(n int) executionFunc {
	return func(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
		scope.Stack.swap(n)
		return nil, nil
	}
}

// logAlloc holds a log and its topics in one place (see logSlab); LOG is
// frequent in token contracts and every log outlives the frame.
type logAlloc struct {
	log    types.Log
	topics [4]types.Hash
}

func makeLog(n int) executionFunc {
	return func(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
		if evm.readOnly {
			return nil, ErrWriteProtection
		}
		st := scope.Stack
		if !evm.keepsLogs() {
			st.n -= 2 + n // the interpreter checked the stack, charged the gas and grew memory
			return nil, nil
		}
		mStart, mSize := st.pop(), st.pop()
		la := evm.logs.newLog()
		for i := 0; i < n; i++ {
			t := st.pop()
			la.topics[i] = t.Bytes32()
		}
		la.log = types.Log{
			Address:     scope.Contract.Address,
			Topics:      la.topics[:n:n],
			Data:        evm.logs.copyData(scope.Memory.GetPtr(mStart.Uint64(), mSize.Uint64())),
			BlockNumber: evm.Context.Number,
		}
		evm.StateDB.AddLog(&la.log)
		if evm.Config.Tracer != nil {
			evm.traceLog(&la.log)
		}
		return nil, nil
	}
}

func opStop(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) { return nil, errStopToken }

func opReturn(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	off, size := scope.Stack.pop(), scope.Stack.pop()
	return scope.Memory.GetCopy(off.Uint64(), size.Uint64()), errStopToken
}

func opRevert(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	off, size := scope.Stack.pop(), scope.Stack.pop()
	ret := scope.Memory.GetCopy(off.Uint64(), size.Uint64())
	return ret, ErrExecutionReverted
}

func opUndefined(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	return nil, ErrInvalidOpCode
}
