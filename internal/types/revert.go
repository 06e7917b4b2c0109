package types

import (
	"encoding/binary"

	"github.com/holiman/uint256"
)

var panicReasons = map[uint64]string{
	0x00: "generic panic",
	0x01: "assert(false)",
	0x11: "arithmetic underflow or overflow",
	0x12: "division or modulo by zero",
	0x21: "enum overflow",
	0x22: "invalid encoded storage byte array accessed",
	0x31: "out-of-bounds array access; popping on an empty array",
	0x32: "out-of-bounds access of an array or bytesN",
	0x41: "out of memory",
	0x51: "uninitialized function",
}

// UnpackRevert decodes Solidity's Error(string) and Panic(uint256) revert
// payloads.
func UnpackRevert(data []byte) (string, bool) {
	if len(data) < 4 {
		return "", false
	}
	switch binary.BigEndian.Uint32(data) {
	case 0x08c379a0: // Error(string)
		body := data[4:]
		if len(body) < 64 {
			return "", false
		}
		off := new(uint256.Int).SetBytes(body[:32])
		if !off.IsUint64() || off.Uint64()+32 > uint64(len(body)) {
			return "", false
		}
		o := off.Uint64()
		n := new(uint256.Int).SetBytes(body[o : o+32])
		if !n.IsUint64() || o+32+n.Uint64() > uint64(len(body)) {
			return "", false
		}
		return string(body[o+32 : o+32+n.Uint64()]), true
	case 0x4e487b71: // Panic(uint256)
		if len(data) != 36 {
			return "", false
		}
		code := new(uint256.Int).SetBytes(data[4:])
		if code.IsUint64() {
			if r, ok := panicReasons[code.Uint64()]; ok {
				return r, true
			}
		}
		return "unknown panic code: " + code.Hex(), true
	}
	return "", false
}
