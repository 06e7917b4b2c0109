//go:build !amd64 || purego

package precompile

func blake2fCompress(out *[64]byte, in *[208]byte, rounds uint32, final bool) {
	blake2fCompressGeneric(out, in, rounds, final)
}
