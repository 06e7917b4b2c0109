package evm

import (
	"math/bits"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Gas constants that appear in more than one place.
const (
	callStipend          = 2300
	callValueTransfer    = 9000
	callNewAccount       = 25000
	sstoreSentry         = 2300 // EIP-2200: SSTORE needs more than this left
	coldAccountAccess    = 2600 // EIP-2929
	coldSload            = 2100
	warmStorageRead      = 100
	selfdestructRefund   = 24000
	createBySelfdestruct = 25000
	keccakWordGas        = 6 // KECCAK256, per word hashed
)

func toWords(size uint64) uint64 { return (size + 31) / 32 }

// calcMemSize returns off+length, or overflow; a zero length needs no
// memory whatever the offset.
func calcMemSize(off, length *uint256.Int) (uint64, bool) {
	if !length.IsUint64() {
		return 0, true
	}
	l := length.Uint64()
	if l == 0 {
		return 0, false
	}
	if !off.IsUint64() {
		return 0, true
	}
	sum, carry := bits.Add64(off.Uint64(), l, 0)
	return sum, carry != 0
}

func memFixed(n uint64) memorySizeFunc {
	return func(s *Stack) (uint64, bool) {
		off := s.back(0)
		if !off.IsUint64() {
			return 0, true
		}
		sum, carry := bits.Add64(off.Uint64(), n, 0)
		return sum, carry != 0
	}
}

// memRange is the memory size for an operation whose offset and length are
// the stack items at depths o and l.
func memRange(o, l int) memorySizeFunc {
	return func(s *Stack) (uint64, bool) { return calcMemSize(s.back(o), s.back(l)) }
}

func memMcopy(s *Stack) (uint64, bool) {
	a, ov1 := calcMemSize(s.back(0), s.back(2))
	b, ov2 := calcMemSize(s.back(1), s.back(2))
	return max(a, b), ov1 || ov2
}

// memCallRange covers both the input and the output area of a call whose
// input offset sits at depth in.
func memCallRange(in int) memorySizeFunc {
	return func(s *Stack) (uint64, bool) {
		a, ov1 := calcMemSize(s.back(in), s.back(in+1))
		b, ov2 := calcMemSize(s.back(in+2), s.back(in+3))
		return max(a, b), ov1 || ov2
	}
}

func safeAdd(a, b uint64) (uint64, error) {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return 0, ErrGasUintOverflow
	}
	return s, nil
}

func safeMul(a, b uint64) (uint64, error) {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return 0, ErrGasUintOverflow
	}
	return lo, nil
}

func gasMemory(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	return memoryGasCost(mem, memorySize)
}

// gasWords charges memory expansion plus perWord for each word of the
// length at stack depth l.
func gasWords(l int, perWord uint64) gasFunc {
	return func(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
		gas, err := memoryGasCost(mem, memorySize)
		if err != nil {
			return 0, err
		}
		length := s.back(l)
		if !length.IsUint64() {
			return 0, ErrGasUintOverflow
		}
		w, err := safeMul(toWords(length.Uint64()), perWord)
		if err != nil {
			return 0, err
		}
		return safeAdd(gas, w)
	}
}

var (
	gasCopy    = gasWords(2, 3)
	gasExtCopy = gasWords(3, 3)
	keccakGas  = gasWords(1, keccakWordGas)
)

// gasKeccak256 is a function of its own, so the table's validation can
// tell it from the other gasWords (the interpreter's KECCAK256 fast path
// charges the same).
func gasKeccak256(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	return keccakGas(evm, c, s, mem, memorySize)
}

func gasExpFunc(perByte uint64) gasFunc {
	return func(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
		bytes := uint64((s.back(1).BitLen() + 7) / 8)
		return bytes * perByte, nil
	}
}

func gasLog(n uint64) gasFunc {
	return func(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
		gas, err := memoryGasCost(mem, memorySize)
		if err != nil {
			return 0, err
		}
		size := s.back(1)
		if !size.IsUint64() {
			return 0, ErrGasUintOverflow
		}
		d, err := safeMul(size.Uint64(), 8)
		if err != nil {
			return 0, err
		}
		if gas, err = safeAdd(gas, d); err != nil {
			return 0, err
		}
		return safeAdd(gas, 375*n)
	}
}

// gasCreateFunc charges memory, hashing of the init code for CREATE2 and,
// from Shanghai, EIP-3860's per-word initcode cost and size limit.
func gasCreateFunc(hashWords uint64, shanghai bool) gasFunc {
	return func(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
		gas, err := memoryGasCost(mem, memorySize)
		if err != nil {
			return 0, err
		}
		size := s.back(2)
		if !size.IsUint64() {
			return 0, ErrGasUintOverflow
		}
		n := size.Uint64()
		if _, limit := CodeSizeLimits(evm.Config.MaxCodeSize); shanghai && n > limit {
			return 0, ErrGasUintOverflow
		}
		per := hashWords
		if shanghai {
			per += 2
		}
		w, err := safeMul(toWords(n), per)
		if err != nil {
			return 0, err
		}
		return safeAdd(gas, w)
	}
}

// callGas is the gas handed to a callee: all requested gas before EIP-150,
// after it at most all but one 64th of what is left.
func callGas(eip150 bool, available, base uint64, requested *uint256.Int) (uint64, error) {
	if eip150 {
		if available < base {
			return 0, ErrOutOfGas
		}
		available -= base
		capped := available - available/64
		if !requested.IsUint64() || capped < requested.Uint64() {
			return capped, nil
		}
	}
	if !requested.IsUint64() {
		return 0, ErrGasUintOverflow
	}
	return requested.Uint64(), nil
}

// gasCallFunc builds the dynamic gas of one CALL-family opcode. The value
// is at stack depth 2 for CALL and CALLCODE; DELEGATECALL and STATICCALL
// transfer none.
func gasCallFunc(hasValue, isCall bool) gasFunc {
	return func(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
		var gas uint64
		addr := types.Address(s.back(1).Bytes20())
		if evm.fork >= forks.Berlin {
			if !evm.addressWarm(addr) {
				evm.StateDB.AddAddressToAccessList(addr)
				gas = coldAccountAccess - warmStorageRead
			}
			if evm.fork >= forks.Prague {
				if target, ok := ParseDelegation(evm.StateDB.GetCode(addr)); ok {
					if evm.addressWarm(target) {
						gas += warmStorageRead
					} else {
						evm.StateDB.AddAddressToAccessList(target)
						gas += coldAccountAccess
					}
				}
			}
		}
		transfers := hasValue && !s.back(2).IsZero()
		if isCall {
			if evm.fork >= forks.SpuriousDragon {
				if transfers && evm.StateDB.Empty(addr) {
					gas += callNewAccount
				}
			} else if !evm.StateDB.Exist(addr) {
				gas += callNewAccount
			}
		}
		if transfers {
			gas += callValueTransfer
		}
		m, err := memoryGasCost(mem, memorySize)
		if err != nil {
			return 0, err
		}
		if gas, err = safeAdd(gas, m); err != nil {
			return 0, err
		}
		evm.callGasTemp, err = callGas(evm.fork >= forks.TangerineWhistle, c.Gas, gas, s.back(0))
		if err != nil {
			return 0, err
		}
		return safeAdd(gas, evm.callGasTemp)
	}
}

// addressWarm reports whether addr is warm in the current transaction
// (EIP-2929): a precompile of the fork by rule, any other address by the
// state's access list.
func (evm *EVM) addressWarm(addr types.Address) bool {
	return evm.precs.isWarm(addr) || evm.StateDB.AddressInAccessList(addr)
}

// gasAccountAccess charges EIP-2929's cold surcharge for the account at
// the top of the stack (BALANCE, EXTCODESIZE, EXTCODEHASH); the warm cost
// is the constant part.
func gasAccountAccess(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	addr := types.Address(s.back(0).Bytes20())
	if !evm.addressWarm(addr) {
		evm.StateDB.AddAddressToAccessList(addr)
		return coldAccountAccess - warmStorageRead, nil
	}
	return 0, nil
}

func gasExtCodeCopyBerlin(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	gas, err := gasExtCopy(evm, c, s, mem, memorySize)
	if err != nil {
		return 0, err
	}
	cold, _ := gasAccountAccess(evm, c, s, mem, memorySize)
	return safeAdd(gas, cold)
}

func gasSloadBerlin(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	slot := types.Hash(s.back(0).Bytes32())
	if _, ok := evm.StateDB.SlotInAccessList(c.Address, slot); !ok {
		evm.StateDB.AddSlotToAccessList(c.Address, slot)
		return coldSload, nil
	}
	return warmStorageRead, nil
}

// gasSstoreFrontier is the original rule: 20000 to set a zero slot, 5000
// otherwise, 15000 refunded for clearing.
func gasSstoreFrontier(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	if evm.readOnly {
		return 0, ErrWriteProtection
	}
	cur := evm.StateDB.GetState(c.Address, types.Hash(s.back(0).Bytes32()))
	val := s.back(1)
	switch {
	case cur.IsZero() && !val.IsZero():
		return 20000, nil
	case !cur.IsZero() && val.IsZero():
		evm.StateDB.AddRefund(15000)
		return 5000, nil
	default:
		return 5000, nil
	}
}

// sstoreCosts parametrises net gas metering, which EIP-1283, EIP-2200,
// EIP-2929 and EIP-3529 all share with different numbers.
type sstoreCosts struct {
	sentry      bool   // EIP-2200: fail when gas left <= 2300
	noop        uint64 // value unchanged or slot already dirty
	init        uint64 // zero -> non-zero on a clean slot
	clean       uint64 // non-zero -> other on a clean slot
	clearRefund uint64
	coldSlot    bool // EIP-2929 surcharge for a cold slot
}

func gasSstoreNet(p sstoreCosts) gasFunc {
	return func(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
		if evm.readOnly {
			return 0, ErrWriteProtection
		}
		if p.sentry && c.Gas <= sstoreSentry {
			return 0, ErrOutOfGas
		}
		slot := types.Hash(s.back(0).Bytes32())
		// One lookup for what the rules below ask; warming goes through
		// AddSlotToAccessList, which access-list recorders watch.
		orig, cur, warm := evm.StateDB.SlotState(c.Address, slot)
		var cost uint64
		if p.coldSlot && !warm {
			evm.StateDB.AddSlotToAccessList(c.Address, slot)
			cost = coldSload
		}
		val := types.Hash(s.back(1).Bytes32())
		if types.SameHash(&cur, &val) {
			return cost + p.noop, nil
		}
		origZero := orig.IsZero()
		if types.SameHash(&orig, &cur) {
			if origZero {
				return cost + p.init, nil
			}
			if val.IsZero() {
				evm.StateDB.AddRefund(p.clearRefund)
			}
			return cost + p.clean, nil
		}
		// Dirty slot: undo earlier refunds as the value moves around.
		if !origZero {
			if cur.IsZero() {
				evm.StateDB.SubRefund(p.clearRefund)
			} else if val.IsZero() {
				evm.StateDB.AddRefund(p.clearRefund)
			}
		}
		if types.SameHash(&orig, &val) {
			if origZero {
				evm.StateDB.AddRefund(p.init - p.noop)
			} else {
				evm.StateDB.AddRefund(p.clean - p.noop)
			}
		}
		return cost + p.noop, nil
	}
}

var (
	gasSstoreEIP1283 = gasSstoreNet(sstoreCosts{noop: 200, init: 20000, clean: 5000, clearRefund: 15000})
	gasSstoreEIP2200 = gasSstoreNet(sstoreCosts{sentry: true, noop: 800, init: 20000, clean: 5000, clearRefund: 15000})
	gasSstoreEIP2929 = gasSstoreNet(sstoreCosts{sentry: true, noop: warmStorageRead, init: 20000, clean: 5000 - coldSload, clearRefund: 15000, coldSlot: true})
	gasSstoreEIP3529 = gasSstoreNet(sstoreCosts{sentry: true, noop: warmStorageRead, init: 20000, clean: 5000 - coldSload, clearRefund: 4800, coldSlot: true})
)

func gasSelfdestruct(evm *EVM, c *Contract, s *Stack, mem *Memory, memorySize uint64) (uint64, error) {
	var gas uint64
	addr := types.Address(s.back(0).Bytes20())
	if evm.fork >= forks.Berlin && !evm.addressWarm(addr) {
		evm.StateDB.AddAddressToAccessList(addr)
		gas = coldAccountAccess
	}
	if evm.fork >= forks.SpuriousDragon {
		if evm.StateDB.Empty(addr) && !evm.StateDB.GetBalance(c.Address).IsZero() {
			gas += createBySelfdestruct
		}
	} else if evm.fork >= forks.TangerineWhistle && !evm.StateDB.Exist(addr) {
		gas += createBySelfdestruct
	}
	if evm.fork < forks.London && !evm.StateDB.HasSelfDestructed(c.Address) {
		evm.StateDB.AddRefund(selfdestructRefund)
	}
	return gas, nil
}
