//go:build amd64 && !purego

package precompile

// blake2fAVX2 runs F on the precompile input in place: it loads h, m and
// t straight from the input bytes (little-endian, as amd64 stores words)
// and writes the new h to out, four state words per instruction.
//
//go:noescape
func blake2fAVX2(out *[64]byte, in *[208]byte, rounds uint64, final uint64)

func blake2fHasAVX2() bool

var blake2fUseAVX2 = blake2fHasAVX2()

// blake2fCompress writes F(h, m, t, final) after rounds rounds to out;
// in is the 208 input bytes after the round count.
func blake2fCompress(out *[64]byte, in *[208]byte, rounds uint32, final bool) {
	if blake2fUseAVX2 {
		var f uint64
		if final {
			f = ^uint64(0)
		}
		blake2fAVX2(out, in, uint64(rounds), f)
		return
	}
	blake2fCompressGeneric(out, in, rounds, final)
}
