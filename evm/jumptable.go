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
}

// stack bounds: an operation popping pop items and pushing push items.
func bounds(pop, push int) (minStack, maxStack int) {
	return pop, stackLimit + pop - push
}

func op(exec executionFunc, gas uint64, pop, push int) operation {
	lo, hi := bounds(pop, push)
	return operation{execute: exec, constantGas: gas, minStack: lo, maxStack: hi}
}

func opDyn(exec executionFunc, gas uint64, dyn gasFunc, mem memorySizeFunc, pop, push int) operation {
	o := op(exec, gas, pop, push)
	o.dynamicGas, o.memorySize = dyn, mem
	return o
}

func newFrontierTable() *JumpTable {
	t := new(JumpTable)
	for i := range t {
		t[i] = operation{execute: opUndefined, maxStack: stackLimit, undefined: true}
	}
	t[0x00] = op(opStop, 0, 0, 0)
	t[0x01] = op(opAdd, 3, 2, 1)
	t[0x02] = op(opMul, 5, 2, 1)
	t[0x03] = op(opSub, 3, 2, 1)
	t[0x04] = op(opDiv, 5, 2, 1)
	t[0x05] = op(opSdiv, 5, 2, 1)
	t[0x06] = op(opMod, 5, 2, 1)
	t[0x07] = op(opSmod, 5, 2, 1)
	t[0x08] = op(opAddmod, 8, 3, 1)
	t[0x09] = op(opMulmod, 8, 3, 1)
	t[0x0a] = opDyn(opExp, 10, gasExpFunc(10), nil, 2, 1)
	t[0x0b] = op(opSignExtend, 5, 2, 1)
	t[0x10] = op(opLt, 3, 2, 1)
	t[0x11] = op(opGt, 3, 2, 1)
	t[0x12] = op(opSlt, 3, 2, 1)
	t[0x13] = op(opSgt, 3, 2, 1)
	t[0x14] = op(opEq, 3, 2, 1)
	t[0x15] = op(opIszero, 3, 1, 1)
	t[0x16] = op(opAnd, 3, 2, 1)
	t[0x17] = op(opOr, 3, 2, 1)
	t[0x18] = op(opXor, 3, 2, 1)
	t[0x19] = op(opNot, 3, 1, 1)
	t[0x1a] = op(opByte, 3, 2, 1)
	t[0x20] = opDyn(opKeccak256, 30, gasKeccak256, memRange(0, 1), 2, 1)
	t[0x30] = op(opAddress, 2, 0, 1)
	t[0x31] = op(opBalance, 20, 1, 1)
	t[0x32] = op(opOrigin, 2, 0, 1)
	t[0x33] = op(opCaller, 2, 0, 1)
	t[0x34] = op(opCallValue, 2, 0, 1)
	t[0x35] = op(opCallDataLoad, 3, 1, 1)
	t[0x36] = op(opCallDataSize, 2, 0, 1)
	t[0x37] = opDyn(opCallDataCopy, 3, gasCopy, memRange(0, 2), 3, 0)
	t[0x38] = op(opCodeSize, 2, 0, 1)
	t[0x39] = opDyn(opCodeCopy, 3, gasCopy, memRange(0, 2), 3, 0)
	t[0x3a] = op(opGasprice, 2, 0, 1)
	t[0x3b] = op(opExtCodeSize, 20, 1, 1)
	t[0x3c] = opDyn(opExtCodeCopy, 20, gasExtCopy, memRange(1, 3), 4, 0)
	t[0x40] = op(opBlockhash, 20, 1, 1)
	t[0x41] = op(opCoinbase, 2, 0, 1)
	t[0x42] = op(opTimestamp, 2, 0, 1)
	t[0x43] = op(opNumber, 2, 0, 1)
	t[0x44] = op(opDifficulty, 2, 0, 1)
	t[0x45] = op(opGasLimit, 2, 0, 1)
	t[0x50] = op(opPop, 2, 1, 0)
	t[0x51] = opDyn(opMload, 3, gasMemory, memFixed(32), 1, 1)
	t[0x52] = opDyn(opMstore, 3, gasMemory, memFixed(32), 2, 0)
	t[0x53] = opDyn(opMstore8, 3, gasMemory, memFixed(1), 2, 0)
	t[0x54] = op(opSload, 50, 1, 1)
	t[0x55] = opDyn(opSstore, 0, gasSstoreFrontier, nil, 2, 0)
	t[0x56] = op(opJump, 8, 1, 0)
	t[0x57] = op(opJumpi, 10, 2, 0)
	t[0x58] = op(opPc, 2, 0, 1)
	t[0x59] = op(opMsize, 2, 0, 1)
	t[0x5a] = op(opGas, 2, 0, 1)
	t[0x5b] = op(opJumpdest, 1, 0, 0)
	t[0x60] = op(opPush1, 3, 0, 1)
	t[0x61] = op(opPush2, 3, 0, 1)
	for i := 3; i <= 32; i++ {
		t[0x5f+i] = op(makePush(uint64(i)), 3, 0, 1)
	}
	for i := 1; i <= 16; i++ {
		t[0x7f+i] = op(makeDup(i), 3, i, i+1)
		t[0x8f+i] = op(makeSwap(i), 3, i+1, i+1)
	}
	for i := 0; i <= 4; i++ {
		t[0xa0+i] = opDyn(makeLog(i), 375, gasLog(uint64(i)), memRange(0, 1), 2+i, 0)
	}
	t[0xf0] = opDyn(opCreate, 32000, gasCreateFunc(0, false), memRange(1, 2), 3, 1)
	t[0xf1] = opDyn(opCall, 40, gasCallFunc(true, true), memCallRange(3), 7, 1)
	t[0xf2] = opDyn(opCallCode, 40, gasCallFunc(true, false), memCallRange(3), 7, 1)
	t[0xf3] = opDyn(opReturn, 0, gasMemory, memRange(0, 1), 2, 0)
	t[0xff] = opDyn(opSelfdestruct, 0, gasSelfdestruct, nil, 1, 0)
	return t
}

func enableHomestead(t *JumpTable) {
	t[0xf4] = opDyn(opDelegateCall, 40, gasCallFunc(false, false), memCallRange(2), 6, 1)
}

// enable150 reprices IO-heavy operations (EIP-150).
func enable150(t *JumpTable) {
	t[0x31].constantGas = 400
	t[0x3b].constantGas = 700
	t[0x3c].constantGas = 700
	t[0x54].constantGas = 200
	t[0xf1].constantGas = 700
	t[0xf2].constantGas = 700
	t[0xf4].constantGas = 700
	t[0xff].constantGas = 5000
}

// enable160 reprices EXP (EIP-160).
func enable160(t *JumpTable) {
	t[0x0a].dynamicGas = gasExpFunc(50)
}

func enableByzantium(t *JumpTable) {
	t[0x3d] = op(opReturnDataSize, 2, 0, 1)
	t[0x3e] = opDyn(opReturnDataCopy, 3, gasCopy, memRange(0, 2), 3, 0)
	t[0xfa] = opDyn(opStaticCall, 700, gasCallFunc(false, false), memCallRange(2), 6, 1)
	t[0xfd] = opDyn(opRevert, 0, gasMemory, memRange(0, 1), 2, 0)
}

func enableConstantinople(t *JumpTable) {
	t[0x1b] = op(opSHL, 3, 2, 1)
	t[0x1c] = op(opSHR, 3, 2, 1)
	t[0x1d] = op(opSAR, 3, 2, 1)
	t[0x3f] = op(opExtCodeHash, 400, 1, 1)
	t[0xf5] = opDyn(opCreate2, 32000, gasCreateFunc(6, false), memRange(1, 2), 4, 1)
	t[0x55].dynamicGas = gasSstoreEIP1283
}

// enablePetersburg drops EIP-1283 again.
func enablePetersburg(t *JumpTable) {
	t[0x55].dynamicGas = gasSstoreFrontier
}

func enableIstanbul(t *JumpTable) {
	t[0x31].constantGas = 700 // EIP-1884
	t[0x3f].constantGas = 700
	t[0x54].constantGas = 800
	t[0x46] = op(opChainID, 2, 0, 1)      // EIP-1344
	t[0x47] = op(opSelfBalance, 5, 0, 1)  // EIP-1884
	t[0x55].dynamicGas = gasSstoreEIP2200 // EIP-2200
}

// enable2929 moves account and storage reads to warm/cold pricing.
func enable2929(t *JumpTable) {
	for _, code := range []byte{0x31, 0x3b, 0x3f} {
		t[code].constantGas = warmStorageRead
		t[code].dynamicGas = gasAccountAccess
	}
	t[0x3c].constantGas = warmStorageRead
	t[0x3c].dynamicGas = gasExtCodeCopyBerlin
	t[0x54].constantGas = 0
	t[0x54].dynamicGas = gasSloadBerlin
	t[0x55].dynamicGas = gasSstoreEIP2929
	for _, code := range []byte{0xf1, 0xf2, 0xf4, 0xfa} {
		t[code].constantGas = warmStorageRead
	}
}

func enableLondon(t *JumpTable) {
	t[0x48] = op(opBaseFee, 2, 0, 1)      // EIP-3198
	t[0x55].dynamicGas = gasSstoreEIP3529 // EIP-3529; SELFDESTRUCT's refund goes in gasSelfdestruct
}

func enableParis(t *JumpTable) {
	t[0x44].execute = opRandom // EIP-4399
}

func enableShanghai(t *JumpTable) {
	t[0x5f] = op(opPush0, 2, 0, 1) // EIP-3855
	t[0xf0].dynamicGas = gasCreateFunc(0, true)
	t[0xf5].dynamicGas = gasCreateFunc(6, true)
}

func enableCancun(t *JumpTable) {
	t[0x49] = op(opBlobHash, 3, 1, 1)                    // EIP-4844
	t[0x4a] = op(opBlobBaseFee, 2, 0, 1)                 // EIP-7516
	t[0x5c] = op(opTload, warmStorageRead, 1, 1)         // EIP-1153
	t[0x5d] = op(opTstore, warmStorageRead, 2, 0)        // EIP-1153
	t[0x5e] = opDyn(opMcopy, 3, gasCopy, memMcopy, 3, 0) // EIP-5656
}

func enableOsaka(t *JumpTable) {
	t[0x1e] = op(opCLZ, 5, 1, 1) // EIP-7939
}
