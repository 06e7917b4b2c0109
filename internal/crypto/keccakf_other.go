//go:build !amd64 || purego

package crypto

// keccakF1600 applies the Keccak-f[1600] permutation to the state.
func keccakF1600(a *[25]uint64) { keccakF1600Generic(a) }
