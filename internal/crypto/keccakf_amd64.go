//go:build amd64 && !purego

package crypto

import "golang.org/x/sys/cpu"

// keccakF1600AVX512 is the permutation with the state in 25 EVEX xmm
// registers (keccakf_amd64.s, written by gen_keccakf.go with the Go
// version): about half the instructions of the Go code, which spills
// most of the state every round, in a one-round loop small enough to
// stay in the instruction cache beside the interpreter. It needs AVX-512
// F and VL, with the OS saving the registers (x/sys/cpu checks both).
//
//go:noescape
func keccakF1600AVX512(a *[25]uint64)

// keccakF1600DigestAVX512 is keccakF1600AVX512 whose last round computes
// and stores only a[0:4]; the rest of a is left as it was.
//
//go:noescape
func keccakF1600DigestAVX512(a *[25]uint64)

// keccak256Word32AVX512 and keccak256Word64AVX512 are keccak256 of a
// 32- or 64-byte input, the digest stored as HashWord's number (least
// significant word first): the state is built in the registers, the
// permutation is keccakF1600DigestAVX512's.
//
//go:noescape
func keccak256Word32AVX512(out *[4]uint64, in *[32]byte)

//go:noescape
func keccak256Word64AVX512(out *[4]uint64, in *[64]byte)

var useKeccakAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// keccakF1600 applies the Keccak-f[1600] permutation to the state.
func keccakF1600(a *[25]uint64) {
	if useKeccakAVX512 {
		keccakF1600AVX512(a)
		return
	}
	keccakF1600Generic(a)
}

// keccakF1600Digest applies the permutation where only a[0:4] is read
// afterwards (keccak256's last block): a[4:] may be left unpermuted.
func keccakF1600Digest(a *[25]uint64) {
	if useKeccakAVX512 {
		keccakF1600DigestAVX512(a)
		return
	}
	keccakF1600Generic(a)
}

// hashWordFast sets z to HashWord(data) when the assembly has a whole
// keccak256 for data's length, and reports whether it did.
func hashWordFast(z *[4]uint64, data []byte) bool {
	if !useKeccakAVX512 {
		return false
	}
	switch len(data) {
	case 32:
		keccak256Word32AVX512(z, (*[32]byte)(data))
	case 64:
		keccak256Word64AVX512(z, (*[64]byte)(data))
	default:
		return false
	}
	return true
}
