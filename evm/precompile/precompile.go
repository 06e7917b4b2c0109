// Package precompile holds Ethereum's precompiled contracts and, per fork,
// the set of them that is active. The EVM asks a Set whether a call target
// is a precompile, charges RequiredGas and then calls Run.
//
// Run never panics on hostile input: malformed input is reported as an
// error value (the call fails and consumes all gas given to it), while
// "soft" failures that the specifications define as a successful call with
// empty output (a bad ecrecover or P256 signature) return (nil, nil).
package precompile

import (
	"errors"
	"sort"

	"github.com/chaind/chaind/internal/types"
)

// Contract is one precompiled contract.
type Contract interface {
	// RequiredGas is the gas the call costs for this input. It saturates at
	// math.MaxUint64 instead of overflowing, so an absurd input is simply
	// out of gas.
	RequiredGas(input []byte) uint64
	// Run executes the contract. The returned slice is owned by the caller.
	Run(input []byte) ([]byte, error)
}

// IntoContract is a contract that can write its output into a caller's
// Scratch instead of allocating it. The EVM uses it for calls made by
// contract code, where the output is only read until the next call
// replaces it (a loop hashing with SHA-256 and RIPEMD-160 made two or
// three allocations per call, 5,000 per run of evm-bench's
// TenThousandHashes, all of it on heap the call had not touched yet).
type IntoContract interface {
	Contract
	// RunInto is Run with the output in s (valid until s is used again).
	RunInto(s *Scratch, input []byte) ([]byte, error)
}

// Scratch is what IntoContract outputs live in: one per EVM (not safe
// for concurrent use), reused by every call into it.
type Scratch struct {
	out [32]byte
}

// runFresh is Run of an IntoContract: its output in a scratch of its own,
// which the caller then owns.
func runFresh(c IntoContract, input []byte) ([]byte, error) {
	out, err := c.RunInto(new(Scratch), input)
	return out, err
}

// ErrNotImplemented is returned (possibly wrapped) by a contract whose
// mathematics is not available yet. Conformance runners report a test that
// hits it as skipped, never as passed or failed. Every contract of the
// sets below is implemented today; the value stays part of the API for
// forks that add contracts before their code lands.
var ErrNotImplemented = errors.New("precompile: not implemented")

// Errors returned by Run for malformed input. All of them make the call
// fail; callers usually only need to know that err != nil. The curve
// precompiles return the error values of their packages (bn254,
// bls12381, kzg).
var (
	ErrInputLength    = errors.New("precompile: invalid input length")
	ErrBlake2fFlag    = errors.New("precompile: invalid blake2f final-block flag")
	ErrModExpTooLarge = errors.New("precompile: modexp operand too large")
)

// Set is the collection of precompiles active under one fork. It is
// immutable after construction and safe for concurrent use.
type Set struct {
	// byIndex maps the low two bytes of an address to its contract; every
	// precompile address has eighteen leading zero bytes.
	byIndex []Contract
	addrs   []types.Address
}

type entry struct {
	addr uint16
	c    Contract
}

func newSet(entries ...entry) *Set {
	var max uint16
	for _, e := range entries {
		if e.addr > max {
			max = e.addr
		}
	}
	s := &Set{byIndex: make([]Contract, int(max)+1)}
	for _, e := range entries {
		s.byIndex[e.addr] = e.c
		var a types.Address
		a[18], a[19] = byte(e.addr>>8), byte(e.addr)
		s.addrs = append(s.addrs, a)
	}
	sort.Slice(s.addrs, func(i, j int) bool {
		return string(s.addrs[i][:]) < string(s.addrs[j][:])
	})
	return s
}

// extend returns a new set with the entries of s overridden and extended
// by entries.
func (s *Set) extend(entries ...entry) *Set {
	var all []entry
	for i, c := range s.byIndex {
		if c == nil {
			continue
		}
		replaced := false
		for _, e := range entries {
			if int(e.addr) == i {
				replaced = true
			}
		}
		if !replaced {
			all = append(all, entry{uint16(i), c})
		}
	}
	return newSet(append(all, entries...)...)
}

// Get returns the contract at addr, if addr is a precompile in this set.
func (s *Set) Get(addr types.Address) (Contract, bool) {
	for _, b := range addr[:18] {
		if b != 0 {
			return nil, false
		}
	}
	i := int(addr[18])<<8 | int(addr[19])
	if i >= len(s.byIndex) || s.byIndex[i] == nil {
		return nil, false
	}
	return s.byIndex[i], true
}

// Addresses returns the set's addresses in ascending order, which EIP-2929
// adds to the warm set of every transaction. The slice must not be
// modified.
func (s *Set) Addresses() []types.Address { return s.addrs }

// The precompile sets by the fork that introduced a change. A fork not
// listed here uses the set of the latest earlier fork listed (Frontier and
// Homestead share one set, Constantinople uses Byzantium's, and so on).
var (
	Frontier, Homestead, Byzantium, Istanbul, Berlin, Cancun, Prague, Osaka *Set
)

func init() {
	Homestead = newSet(
		entry{0x01, ecrecover{}},
		entry{0x02, sha256Hash{}},
		entry{0x03, ripemd160Hash{}},
		entry{0x04, identity{}},
	)
	Frontier = Homestead
	Byzantium = Homestead.extend(
		entry{0x05, modExp{gas: modExpGasEIP198}},
		entry{0x06, bn254Add{gas: 500}},
		entry{0x07, bn254Mul{gas: 40000}},
		entry{0x08, bn254Pairing{base: 100000, perPair: 80000}},
	)
	Istanbul = Byzantium.extend(
		entry{0x06, bn254Add{gas: 150}},
		entry{0x07, bn254Mul{gas: 6000}},
		entry{0x08, bn254Pairing{base: 45000, perPair: 34000}},
		entry{0x09, blake2F{}},
	)
	Berlin = Istanbul.extend(
		entry{0x05, modExp{gas: modExpGasEIP2565}},
	)
	Cancun = Berlin.extend(
		entry{0x0a, pointEvaluation{}},
	)
	Prague = Cancun.extend(
		entry{0x0b, blsG1Add{}},
		entry{0x0c, blsG1MSM{}},
		entry{0x0d, blsG2Add{}},
		entry{0x0e, blsG2MSM{}},
		entry{0x0f, blsPairing{}},
		entry{0x10, blsMapFpToG1{}},
		entry{0x11, blsMapFp2ToG2{}},
	)
	Osaka = Prague.extend(
		entry{0x05, modExp{gas: modExpGasEIP7883, limitInput: true}},
		entry{0x100, p256Verify{}},
	)
}

// words is the number of 32-byte words needed for n bytes.
func words(n int) uint64 { return (uint64(n) + 31) / 32 }
