package evm

import "github.com/chaind/chaind/internal/forks"

// Each fork's table is the previous fork's table with that fork's EIPs
// applied, so a fork reads as a diff.

var tables [forks.Count]*JumpTable

func tableFor(f forks.Fork) *JumpTable { return tables[f] }

func init() {
	t := newFrontierTable()
	tables[forks.Frontier] = t
	steps := []struct {
		fork  forks.Fork
		apply func(*JumpTable)
	}{
		{forks.Homestead, enableHomestead},
		{forks.TangerineWhistle, enable150},
		{forks.SpuriousDragon, enable160},
		{forks.Byzantium, enableByzantium},
		{forks.Constantinople, enableConstantinople},
		{forks.Petersburg, enablePetersburg},
		{forks.Istanbul, enableIstanbul},
		{forks.Berlin, enable2929},
		{forks.London, enableLondon},
		{forks.Paris, enableParis},
		{forks.Shanghai, enableShanghai},
		{forks.Cancun, enableCancun},
		{forks.Prague, func(*JumpTable) {}}, // EIP-7702 lives in the call paths
		{forks.Osaka, enableOsaka},
	}
	for _, s := range steps {
		next := *t
		s.apply(&next)
		t = &next
		tables[s.fork] = t
	}
	if err := validateTables(); err != nil {
		panic(err)
	}
}

// set defines op in t: its stack bounds come from the instruction's stack
// effect in opInfos, so they are written once for every fork.
func (t *JumpTable) set(op OpCode, exec executionFunc, gas uint64) {
	info := opInfos[op]
	t[op] = operation{execute: exec, constantGas: gas, minStack: info.pop, maxStack: stackLimit + info.pop - info.push}
}

// setDyn defines op with a dynamic gas part and, if mem is set, the memory
// it touches (charged by dyn).
func (t *JumpTable) setDyn(op OpCode, exec executionFunc, gas uint64, dyn gasFunc, mem memorySizeFunc) {
	t.set(op, exec, gas)
	t[op].dynamicGas, t[op].memorySize = dyn, mem
}

func newFrontierTable() *JumpTable {
	t := new(JumpTable)
	for i := range t {
		t[i] = operation{execute: opUndefined, maxStack: stackLimit, undefined: true}
	}
	t.set(STOP, opStop, 0)
	t.set(ADD, opAdd, 3)
	t.set(MUL, opMul, 5)
	t.set(SUB, opSub, 3)
	t.set(DIV, opDiv, 5)
	t.set(SDIV, opSdiv, 5)
	t.set(MOD, opMod, 5)
	t.set(SMOD, opSmod, 5)
	t.set(ADDMOD, opAddmod, 8)
	t.set(MULMOD, opMulmod, 8)
	t.setDyn(EXP, opExp, 10, gasExpFunc(10), nil)
	t.set(SIGNEXTEND, opSignExtend, 5)
	t.set(LT, opLt, 3)
	t.set(GT, opGt, 3)
	t.set(SLT, opSlt, 3)
	t.set(SGT, opSgt, 3)
	t.set(EQ, opEq, 3)
	t.set(ISZERO, opIszero, 3)
	t.set(AND, opAnd, 3)
	t.set(OR, opOr, 3)
	t.set(XOR, opXor, 3)
	t.set(NOT, opNot, 3)
	t.set(BYTE, opByte, 3)
	t.setDyn(KECCAK256, opKeccak256, 30, gasKeccak256, memRange(0, 1))
	t.set(ADDRESS, opAddress, 2)
	t.set(BALANCE, opBalance, 20)
	t.set(ORIGIN, opOrigin, 2)
	t.set(CALLER, opCaller, 2)
	t.set(CALLVALUE, opCallValue, 2)
	t.set(CALLDATALOAD, opCallDataLoad, 3)
	t.set(CALLDATASIZE, opCallDataSize, 2)
	t.setDyn(CALLDATACOPY, opCallDataCopy, 3, gasCopy, memRange(0, 2))
	t.set(CODESIZE, opCodeSize, 2)
	t.setDyn(CODECOPY, opCodeCopy, 3, gasCopy, memRange(0, 2))
	t.set(GASPRICE, opGasprice, 2)
	t.set(EXTCODESIZE, opExtCodeSize, 20)
	t.setDyn(EXTCODECOPY, opExtCodeCopy, 20, gasExtCopy, memRange(1, 3))
	t.set(BLOCKHASH, opBlockhash, 20)
	t.set(COINBASE, opCoinbase, 2)
	t.set(TIMESTAMP, opTimestamp, 2)
	t.set(NUMBER, opNumber, 2)
	t.set(PREVRANDAO, opDifficulty, 2)
	t.set(GASLIMIT, opGasLimit, 2)
	t.set(POP, opPop, 2)
	t.setDyn(MLOAD, opMload, 3, gasMemory, memFixed(32))
	t.setDyn(MSTORE, opMstore, 3, gasMemory, memFixed(32))
	t.setDyn(MSTORE8, opMstore8, 3, gasMemory, memFixed(1))
	t.set(SLOAD, opSload, 50)
	t.setDyn(SSTORE, opSstore, 0, gasSstoreFrontier, nil)
	t.set(JUMP, opJump, 8)
	t.set(JUMPI, opJumpi, 10)
	t.set(PC, opPc, 2)
	t.set(MSIZE, opMsize, 2)
	t.set(GAS, opGas, 2)
	t.set(JUMPDEST, opJumpdest, 1)
	t.set(PUSH1, opPush1, 3)
	t.set(PUSH2, opPush2, 3)
	for i := 3; i <= 32; i++ {
		t.set(PUSH1+OpCode(i-1), makePush(uint64(i)), 3)
	}
	for i := 1; i <= 16; i++ {
		t.set(DUP1+OpCode(i-1), makeDup(i), 3)
		t.set(SWAP1+OpCode(i-1), makeSwap(i), 3)
	}
	for i := 0; i <= 4; i++ {
		t.setDyn(LOG0+OpCode(i), makeLog(i), 375, gasLog(uint64(i)), memRange(0, 1))
	}
	t.setDyn(CREATE, opCreate, 32000, gasCreateFunc(0, false), memRange(1, 2))
	t.setDyn(CALL, opCall, 40, gasCallFunc(true, true), memCallRange(3))
	t.setDyn(CALLCODE, opCallCode, 40, gasCallFunc(true, false), memCallRange(3))
	t.setDyn(RETURN, opReturn, 0, gasMemory, memRange(0, 1))
	t.setDyn(SELFDESTRUCT, opSelfdestruct, 0, gasSelfdestruct, nil)
	return t
}

func enableHomestead(t *JumpTable) {
	t.setDyn(DELEGATECALL, opDelegateCall, 40, gasCallFunc(false, false), memCallRange(2))
}

// enable150 reprices IO-heavy operations (EIP-150).
func enable150(t *JumpTable) {
	t[BALANCE].constantGas = 400
	t[EXTCODESIZE].constantGas = 700
	t[EXTCODECOPY].constantGas = 700
	t[SLOAD].constantGas = 200
	t[CALL].constantGas = 700
	t[CALLCODE].constantGas = 700
	t[DELEGATECALL].constantGas = 700
	t[SELFDESTRUCT].constantGas = 5000
}

// enable160 reprices EXP (EIP-160).
func enable160(t *JumpTable) {
	t[EXP].dynamicGas = gasExpFunc(50)
}

func enableByzantium(t *JumpTable) {
	t.set(RETURNDATASIZE, opReturnDataSize, 2)
	t.setDyn(RETURNDATACOPY, opReturnDataCopy, 3, gasCopy, memRange(0, 2))
	t.setDyn(STATICCALL, opStaticCall, 700, gasCallFunc(false, false), memCallRange(2))
	t.setDyn(REVERT, opRevert, 0, gasMemory, memRange(0, 1))
}

func enableConstantinople(t *JumpTable) {
	t.set(SHL, opSHL, 3)
	t.set(SHR, opSHR, 3)
	t.set(SAR, opSAR, 3)
	t.set(EXTCODEHASH, opExtCodeHash, 400)
	t.setDyn(CREATE2, opCreate2, 32000, gasCreateFunc(6, false), memRange(1, 2))
	t[SSTORE].dynamicGas = gasSstoreEIP1283
}

// enablePetersburg drops EIP-1283 again.
func enablePetersburg(t *JumpTable) {
	t[SSTORE].dynamicGas = gasSstoreFrontier
}

func enableIstanbul(t *JumpTable) {
	t[BALANCE].constantGas = 700 // EIP-1884
	t[EXTCODEHASH].constantGas = 700
	t[SLOAD].constantGas = 800
	t.set(CHAINID, opChainID, 2)            // EIP-1344
	t.set(SELFBALANCE, opSelfBalance, 5)    // EIP-1884
	t[SSTORE].dynamicGas = gasSstoreEIP2200 // EIP-2200
}

// enable2929 moves account and storage reads to warm/cold pricing.
func enable2929(t *JumpTable) {
	for _, code := range []OpCode{BALANCE, EXTCODESIZE, EXTCODEHASH} {
		t[code].constantGas = warmStorageRead
		t[code].dynamicGas = gasAccountAccess
	}
	t[EXTCODECOPY].constantGas = warmStorageRead
	t[EXTCODECOPY].dynamicGas = gasExtCodeCopyBerlin
	t[SLOAD].constantGas = 0
	t[SLOAD].dynamicGas = gasSloadBerlin
	t[SSTORE].dynamicGas = gasSstoreEIP2929
	for _, code := range []OpCode{CALL, CALLCODE, DELEGATECALL, STATICCALL} {
		t[code].constantGas = warmStorageRead
	}
}

func enableLondon(t *JumpTable) {
	t.set(BASEFEE, opBaseFee, 2)            // EIP-3198
	t[SSTORE].dynamicGas = gasSstoreEIP3529 // EIP-3529; SELFDESTRUCT's refund goes in gasSelfdestruct
}

func enableParis(t *JumpTable) {
	t[PREVRANDAO].execute = opRandom // EIP-4399
}

func enableShanghai(t *JumpTable) {
	t.set(PUSH0, opPush0, 2) // EIP-3855
	t[CREATE].dynamicGas = gasCreateFunc(0, true)
	t[CREATE2].dynamicGas = gasCreateFunc(6, true)
}

func enableCancun(t *JumpTable) {
	t.set(BLOBHASH, opBlobHash, 3)                 // EIP-4844
	t.set(BLOBBASEFEE, opBlobBaseFee, 2)           // EIP-7516
	t.set(TLOAD, opTload, warmStorageRead)         // EIP-1153
	t.set(TSTORE, opTstore, warmStorageRead)       // EIP-1153
	t.setDyn(MCOPY, opMcopy, 3, gasCopy, memMcopy) // EIP-5656
}

func enableOsaka(t *JumpTable) {
	t.set(CLZ, opCLZ, 5) // EIP-7939
}
