package evm

import "fmt"

// OpCode is one byte of EVM code read as an instruction.
type OpCode byte

// The instruction set, named as the Yellow Paper and the EIPs name it. A
// name here says what the byte means in the fork that has it; which fork
// has it is the jump table's business (jumptable.go).
const (
	STOP       OpCode = 0x00
	ADD        OpCode = 0x01
	MUL        OpCode = 0x02
	SUB        OpCode = 0x03
	DIV        OpCode = 0x04
	SDIV       OpCode = 0x05
	MOD        OpCode = 0x06
	SMOD       OpCode = 0x07
	ADDMOD     OpCode = 0x08
	MULMOD     OpCode = 0x09
	EXP        OpCode = 0x0a
	SIGNEXTEND OpCode = 0x0b

	LT     OpCode = 0x10
	GT     OpCode = 0x11
	SLT    OpCode = 0x12
	SGT    OpCode = 0x13
	EQ     OpCode = 0x14
	ISZERO OpCode = 0x15
	AND    OpCode = 0x16
	OR     OpCode = 0x17
	XOR    OpCode = 0x18
	NOT    OpCode = 0x19
	BYTE   OpCode = 0x1a
	SHL    OpCode = 0x1b
	SHR    OpCode = 0x1c
	SAR    OpCode = 0x1d
	CLZ    OpCode = 0x1e

	KECCAK256 OpCode = 0x20

	ADDRESS        OpCode = 0x30
	BALANCE        OpCode = 0x31
	ORIGIN         OpCode = 0x32
	CALLER         OpCode = 0x33
	CALLVALUE      OpCode = 0x34
	CALLDATALOAD   OpCode = 0x35
	CALLDATASIZE   OpCode = 0x36
	CALLDATACOPY   OpCode = 0x37
	CODESIZE       OpCode = 0x38
	CODECOPY       OpCode = 0x39
	GASPRICE       OpCode = 0x3a
	EXTCODESIZE    OpCode = 0x3b
	EXTCODECOPY    OpCode = 0x3c
	RETURNDATASIZE OpCode = 0x3d
	RETURNDATACOPY OpCode = 0x3e
	EXTCODEHASH    OpCode = 0x3f

	BLOCKHASH   OpCode = 0x40
	COINBASE    OpCode = 0x41
	TIMESTAMP   OpCode = 0x42
	NUMBER      OpCode = 0x43
	PREVRANDAO  OpCode = 0x44 // DIFFICULTY before the merge (EIP-4399)
	GASLIMIT    OpCode = 0x45
	CHAINID     OpCode = 0x46
	SELFBALANCE OpCode = 0x47
	BASEFEE     OpCode = 0x48
	BLOBHASH    OpCode = 0x49
	BLOBBASEFEE OpCode = 0x4a

	POP      OpCode = 0x50
	MLOAD    OpCode = 0x51
	MSTORE   OpCode = 0x52
	MSTORE8  OpCode = 0x53
	SLOAD    OpCode = 0x54
	SSTORE   OpCode = 0x55
	JUMP     OpCode = 0x56
	JUMPI    OpCode = 0x57
	PC       OpCode = 0x58
	MSIZE    OpCode = 0x59
	GAS      OpCode = 0x5a
	JUMPDEST OpCode = 0x5b
	TLOAD    OpCode = 0x5c
	TSTORE   OpCode = 0x5d
	MCOPY    OpCode = 0x5e
	PUSH0    OpCode = 0x5f

	// PUSH1..PUSH32, DUP1..DUP16, SWAP1..SWAP16 and LOG0..LOG4 are runs:
	// the n-th of a run is its first plus n-1 (LOG0 plus n).
	PUSH1  OpCode = 0x60
	PUSH2  OpCode = 0x61
	PUSH32 OpCode = 0x7f
	DUP1   OpCode = 0x80
	DUP16  OpCode = 0x8f
	SWAP1  OpCode = 0x90
	SWAP16 OpCode = 0x9f
	LOG0   OpCode = 0xa0
	LOG4   OpCode = 0xa4

	CREATE       OpCode = 0xf0
	CALL         OpCode = 0xf1
	CALLCODE     OpCode = 0xf2
	RETURN       OpCode = 0xf3
	DELEGATECALL OpCode = 0xf4
	CREATE2      OpCode = 0xf5
	STATICCALL   OpCode = 0xfa
	REVERT       OpCode = 0xfd
	INVALID      OpCode = 0xfe // designated invalid (EIP-141): never defined
	SELFDESTRUCT OpCode = 0xff
)

// opInfo is what an instruction is, fork aside: its name and its stack
// effect. The jump tables take pop and push from here, so an operation's
// stack bounds are written once.
type opInfo struct {
	name      string
	pop, push int
}

var opInfos = func() [256]opInfo {
	var t [256]opInfo
	set := func(op OpCode, name string, pop, push int) { t[op] = opInfo{name, pop, push} }
	for _, o := range []struct {
		op        OpCode
		name      string
		pop, push int
	}{
		{STOP, "STOP", 0, 0}, {ADD, "ADD", 2, 1}, {MUL, "MUL", 2, 1}, {SUB, "SUB", 2, 1},
		{DIV, "DIV", 2, 1}, {SDIV, "SDIV", 2, 1}, {MOD, "MOD", 2, 1}, {SMOD, "SMOD", 2, 1},
		{ADDMOD, "ADDMOD", 3, 1}, {MULMOD, "MULMOD", 3, 1}, {EXP, "EXP", 2, 1}, {SIGNEXTEND, "SIGNEXTEND", 2, 1},
		{LT, "LT", 2, 1}, {GT, "GT", 2, 1}, {SLT, "SLT", 2, 1}, {SGT, "SGT", 2, 1}, {EQ, "EQ", 2, 1},
		{ISZERO, "ISZERO", 1, 1}, {AND, "AND", 2, 1}, {OR, "OR", 2, 1}, {XOR, "XOR", 2, 1},
		{NOT, "NOT", 1, 1}, {BYTE, "BYTE", 2, 1}, {SHL, "SHL", 2, 1}, {SHR, "SHR", 2, 1},
		{SAR, "SAR", 2, 1}, {CLZ, "CLZ", 1, 1},
		{KECCAK256, "KECCAK256", 2, 1},
		{ADDRESS, "ADDRESS", 0, 1}, {BALANCE, "BALANCE", 1, 1}, {ORIGIN, "ORIGIN", 0, 1},
		{CALLER, "CALLER", 0, 1}, {CALLVALUE, "CALLVALUE", 0, 1}, {CALLDATALOAD, "CALLDATALOAD", 1, 1},
		{CALLDATASIZE, "CALLDATASIZE", 0, 1}, {CALLDATACOPY, "CALLDATACOPY", 3, 0},
		{CODESIZE, "CODESIZE", 0, 1}, {CODECOPY, "CODECOPY", 3, 0}, {GASPRICE, "GASPRICE", 0, 1},
		{EXTCODESIZE, "EXTCODESIZE", 1, 1}, {EXTCODECOPY, "EXTCODECOPY", 4, 0},
		{RETURNDATASIZE, "RETURNDATASIZE", 0, 1}, {RETURNDATACOPY, "RETURNDATACOPY", 3, 0},
		{EXTCODEHASH, "EXTCODEHASH", 1, 1},
		{BLOCKHASH, "BLOCKHASH", 1, 1}, {COINBASE, "COINBASE", 0, 1}, {TIMESTAMP, "TIMESTAMP", 0, 1},
		{NUMBER, "NUMBER", 0, 1}, {PREVRANDAO, "PREVRANDAO", 0, 1}, {GASLIMIT, "GASLIMIT", 0, 1},
		{CHAINID, "CHAINID", 0, 1}, {SELFBALANCE, "SELFBALANCE", 0, 1}, {BASEFEE, "BASEFEE", 0, 1},
		{BLOBHASH, "BLOBHASH", 1, 1}, {BLOBBASEFEE, "BLOBBASEFEE", 0, 1},
		{POP, "POP", 1, 0}, {MLOAD, "MLOAD", 1, 1}, {MSTORE, "MSTORE", 2, 0}, {MSTORE8, "MSTORE8", 2, 0},
		{SLOAD, "SLOAD", 1, 1}, {SSTORE, "SSTORE", 2, 0}, {JUMP, "JUMP", 1, 0}, {JUMPI, "JUMPI", 2, 0},
		{PC, "PC", 0, 1}, {MSIZE, "MSIZE", 0, 1}, {GAS, "GAS", 0, 1}, {JUMPDEST, "JUMPDEST", 0, 0},
		{TLOAD, "TLOAD", 1, 1}, {TSTORE, "TSTORE", 2, 0}, {MCOPY, "MCOPY", 3, 0}, {PUSH0, "PUSH0", 0, 1},
		{CREATE, "CREATE", 3, 1}, {CALL, "CALL", 7, 1}, {CALLCODE, "CALLCODE", 7, 1},
		{RETURN, "RETURN", 2, 0}, {DELEGATECALL, "DELEGATECALL", 6, 1}, {CREATE2, "CREATE2", 4, 1},
		{STATICCALL, "STATICCALL", 6, 1}, {REVERT, "REVERT", 2, 0}, {INVALID, "INVALID", 0, 0},
		{SELFDESTRUCT, "SELFDESTRUCT", 1, 0},
	} {
		set(o.op, o.name, o.pop, o.push)
	}
	for n := 1; n <= 32; n++ {
		set(PUSH1+OpCode(n-1), fmt.Sprintf("PUSH%d", n), 0, 1)
	}
	for n := 1; n <= 16; n++ {
		set(DUP1+OpCode(n-1), fmt.Sprintf("DUP%d", n), n, n+1)
		set(SWAP1+OpCode(n-1), fmt.Sprintf("SWAP%d", n), n+1, n+1)
	}
	for n := 0; n <= 4; n++ {
		set(LOG0+OpCode(n), fmt.Sprintf("LOG%d", n), 2+n, 0)
	}
	return t
}()

// String returns the instruction's mnemonic, or go-ethereum's wording for
// a byte no fork defines, which traces print.
func (op OpCode) String() string {
	if name := opInfos[op].name; name != "" {
		return name
	}
	return fmt.Sprintf("opcode %#x not defined", byte(op))
}

// IsPush reports whether op is PUSH1..PUSH32, which carry immediate data.
func (op OpCode) IsPush() bool { return op >= PUSH1 && op <= PUSH32 }
