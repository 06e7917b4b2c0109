package bls12381

import "errors"

// Input errors. The precompile wrappers return them as is; a precompile
// error consumes all gas, so callers only need errors.Is for tests and logs.
var (
	ErrInvalidLength        = errors.New("bls12381: invalid input length")
	ErrFieldElementTopBytes = errors.New("bls12381: invalid field element top bytes")
	ErrFieldElementRange    = errors.New("bls12381: field element not below the modulus")
	ErrNotOnCurve           = errors.New("bls12381: point is not on the curve")
	ErrNotInSubgroup        = errors.New("bls12381: point is not in the prime-order subgroup")
)
