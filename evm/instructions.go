package evm

import (
	"math/bits"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The arithmetic, comparison and bitwise operations are written by
// internal/tools/opgen (ops_gen.go); the rest of this file is the
// environment's.

func setBool(z *uint256.Int, b bool) {
	if b {
		z.SetOne()
	} else {
		z.Clear()
	}
}

func opKeccak256(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	offset, size := scope.Stack.pop(), scope.Stack.peek()
	evm.hashToWord(size, scope.Memory.GetPtr(offset.Uint64(), size.Uint64()))
	return nil, nil
}

// hashToWord sets z to keccak256(data).
func hashToWord(z *uint256.Int, data []byte) {
	// One-shot on the stack: x/crypto's legacy Keccak state has no
	// assembly permutation (its Reset, Write and Read cost as much as a
	// third of the permutation for a 64-byte input), ours does.
	crypto.HashWordInto((*[4]uint64)(z), data)
}

// Environment.

func pushAddress(s *Stack, a types.Address) { s.pushSlot().SetBytes20(a[:]) }

func opAddress(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	pushAddress(scope.Stack, scope.Contract.Address)
	return nil, nil
}

func opBalance(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	slot := scope.Stack.peek()
	slot.Set(evm.StateDB.GetBalance(types.Address(slot.Bytes20())))
	return nil, nil
}

func opOrigin(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	pushAddress(scope.Stack, evm.TxContext.Origin)
	return nil, nil
}

func opCaller(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	pushAddress(scope.Stack, scope.Contract.Caller)
	return nil, nil
}

func opCallValue(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.push(&scope.Contract.Value)
	return nil, nil
}

func opCallDataLoad(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	x := scope.Stack.peek()
	var buf [32]byte
	if off, overflow := x.Uint64WithOverflow(); !overflow && off < uint64(len(scope.Contract.Input)) {
		copy(buf[:], scope.Contract.Input[off:])
	}
	x.SetBytes32(buf[:])
	return nil, nil
}

func opCallDataSize(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(uint64(len(scope.Contract.Input)))
	return nil, nil
}

// copyPadded copies src[off:off+size] into dst, zero-filling past the end
// of src.
func copyPadded(dst, src []byte, off *uint256.Int) {
	o, overflow := off.Uint64WithOverflow()
	if overflow || o >= uint64(len(src)) {
		clear(dst)
		return
	}
	n := copy(dst, src[o:])
	clear(dst[n:])
}

func opCallDataCopy(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	memOffset, dataOffset, length := scope.Stack.pop(), scope.Stack.pop(), scope.Stack.pop()
	if l := length.Uint64(); l > 0 {
		copyPadded(scope.Memory.GetPtr(memOffset.Uint64(), l), scope.Contract.Input, &dataOffset)
	}
	return nil, nil
}

func opReturnDataSize(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(uint64(len(evm.returnData)))
	return nil, nil
}

func opReturnDataCopy(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	memOffset, dataOffset, length := scope.Stack.pop(), scope.Stack.pop(), scope.Stack.pop()
	off, overflow := dataOffset.Uint64WithOverflow()
	if overflow {
		return nil, ErrReturnDataOutOfBounds
	}
	end, carry := bits.Add64(off, length.Uint64(), 0)
	if carry != 0 || !length.IsUint64() || end > uint64(len(evm.returnData)) {
		return nil, ErrReturnDataOutOfBounds
	}
	scope.Memory.Set(memOffset.Uint64(), length.Uint64(), evm.returnData[off:end])
	return nil, nil
}

func opExtCodeSize(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	slot := scope.Stack.peek()
	slot.SetUint64(uint64(evm.StateDB.GetCodeSize(types.Address(slot.Bytes20()))))
	return nil, nil
}

func opCodeSize(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(uint64(len(scope.Contract.Code)))
	return nil, nil
}

func opCodeCopy(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	memOffset, codeOffset, length := scope.Stack.pop(), scope.Stack.pop(), scope.Stack.pop()
	if l := length.Uint64(); l > 0 {
		copyPadded(scope.Memory.GetPtr(memOffset.Uint64(), l), scope.Contract.Code, &codeOffset)
	}
	return nil, nil
}

func opExtCodeCopy(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	a := scope.Stack.pop()
	memOffset, codeOffset, length := scope.Stack.pop(), scope.Stack.pop(), scope.Stack.pop()
	if l := length.Uint64(); l > 0 {
		code := evm.StateDB.GetCode(types.Address(a.Bytes20()))
		copyPadded(scope.Memory.GetPtr(memOffset.Uint64(), l), code, &codeOffset)
	}
	return nil, nil
}

// opExtCodeHash is EIP-1052: zero for accounts that do not exist or are
// empty, keccak256 of the code otherwise.
func opExtCodeHash(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	slot := scope.Stack.peek()
	addr := types.Address(slot.Bytes20())
	if evm.StateDB.Empty(addr) {
		slot.Clear()
	} else {
		h := evm.StateDB.GetCodeHash(addr)
		slot.SetBytes32(h[:])
	}
	return nil, nil
}

func opGasprice(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	s := scope.Stack.pushSlot()
	if evm.TxContext.GasPrice != nil {
		s.Set(evm.TxContext.GasPrice)
	} else {
		s.Clear()
	}
	return nil, nil
}

func opBlockhash(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	num := scope.Stack.peek()
	n, overflow := num.Uint64WithOverflow()
	if overflow {
		num.Clear()
		return nil, nil
	}
	var lower uint64
	upper := evm.Context.Number
	if upper > 256 {
		lower = upper - 256
	}
	if n >= lower && n < upper && evm.Context.GetHash != nil {
		h := evm.Context.GetHash(n)
		num.SetBytes32(h[:])
	} else {
		num.Clear()
	}
	return nil, nil
}

func opCoinbase(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	pushAddress(scope.Stack, evm.Context.Coinbase)
	return nil, nil
}

func opTimestamp(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(evm.Context.Time)
	return nil, nil
}

func opNumber(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(evm.Context.Number)
	return nil, nil
}

func opDifficulty(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	s := scope.Stack.pushSlot()
	if evm.Context.Difficulty != nil {
		s.Set(evm.Context.Difficulty)
	} else {
		s.Clear()
	}
	return nil, nil
}

func opRandom(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	s := scope.Stack.pushSlot()
	if evm.Context.Random != nil {
		s.SetBytes32(evm.Context.Random[:])
	} else {
		s.Clear()
	}
	return nil, nil
}

func opGasLimit(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().SetUint64(evm.Context.GasLimit)
	return nil, nil
}

func opChainID(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.push(&evm.chainID)
	return nil, nil
}

func opSelfBalance(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	scope.Stack.pushSlot().Set(evm.StateDB.GetBalance(scope.Contract.Address))
	return nil, nil
}

func opBaseFee(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	s := scope.Stack.pushSlot()
	if evm.Context.BaseFee != nil {
		s.Set(evm.Context.BaseFee)
	} else {
		s.Clear()
	}
	return nil, nil
}

func opBlobHash(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	idx := scope.Stack.peek()
	if i, overflow := idx.Uint64WithOverflow(); !overflow && i < uint64(len(evm.TxContext.BlobHashes)) {
		h := evm.TxContext.BlobHashes[i]
		idx.SetBytes32(h[:])
	} else {
		idx.Clear()
	}
	return nil, nil
}

func opBlobBaseFee(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {
	s := scope.Stack.pushSlot()
	if evm.Context.BlobBaseFee != nil {
		s.Set(evm.Context.BlobBaseFee)
	} else {
		s.Clear()
	}
	return nil, nil
}
