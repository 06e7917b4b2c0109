package precompile

import "github.com/chaind/chaind/evm/precompile/bn254"

// The alt_bn128 (BN254) precompiles of EIP-196 and EIP-197, repriced by
// EIP-1108 in Istanbul.

// bn254PairLen is the size of one (G1, G2) pair of the pairing input.
const bn254PairLen = 192

// bn254Add (0x06).
type bn254Add struct{ gas uint64 }

func (c bn254Add) RequiredGas([]byte) uint64      { return c.gas }
func (bn254Add) Run(input []byte) ([]byte, error) { return bn254.Add(input) }

// bn254Mul (0x07).
type bn254Mul struct{ gas uint64 }

func (c bn254Mul) RequiredGas([]byte) uint64      { return c.gas }
func (bn254Mul) Run(input []byte) ([]byte, error) { return bn254.ScalarMul(input) }

// bn254Pairing (0x08).
type bn254Pairing struct{ base, perPair uint64 }

func (c bn254Pairing) RequiredGas(input []byte) uint64 {
	return c.base + c.perPair*uint64(len(input)/bn254PairLen)
}
func (bn254Pairing) Run(input []byte) ([]byte, error) { return bn254.PairingCheck(input) }
