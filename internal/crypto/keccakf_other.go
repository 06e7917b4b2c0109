//go:build !amd64 || purego

package crypto

// keccakF1600 applies the Keccak-f[1600] permutation to the state.
func keccakF1600(a *[25]uint64) { keccakF1600Generic(a) }

// keccakF1600Digest applies the permutation where only a[0:4] is read
// afterwards (keccak256's last block): a[4:] may be left unpermuted.
func keccakF1600Digest(a *[25]uint64) { keccakF1600Generic(a) }

// hashWordFast reports that no assembly keccak256 runs here.
func hashWordFast(z *[4]uint64, data []byte) bool { return false }
