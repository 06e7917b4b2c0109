package crypto

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"strconv"
	"testing"

	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // the reference the unrolled code is checked against
)

// The test vectors of the RIPEMD-160 paper's authors.
func TestRipemd160Vectors(t *testing.T) {
	million := bytes.Repeat([]byte("a"), 1_000_000)
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"", "9c1185a5c5e9fc54612808977ee8f548b2258d31"},
		{"a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"},
		{"abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"},
		{"message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"},
		{"abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "12a053384a9c0c88e405a06c27dcf49ada62eb2b"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "b0e20b6e3116640286ed3a87a5713079b21f5189"},
		{string(bytes.Repeat([]byte("1234567890"), 8)), "9b752e45573d4b39f4dbd3323cab82bf63326bfb"},
		{string(million), "52783243c1697bdbe16d37f97f68f08325dc1528"},
	} {
		got := Ripemd160([]byte(tc.in))
		if hex.EncodeToString(got[:]) != tc.want {
			t.Errorf("Ripemd160(%.20q...) = %x, want %s", tc.in, got, tc.want)
		}
	}
}

func refRipemd160(data []byte) []byte {
	h := ripemd160.New()
	h.Write(data)
	return h.Sum(nil)
}

// Every length around the one- and two-block padding boundaries, and
// random longer inputs, against golang.org/x/crypto.
func TestRipemd160MatchesXCrypto(t *testing.T) {
	rng := rand.New(rand.NewSource(160))
	buf := make([]byte, 4096)
	rng.Read(buf)
	for n := 0; n <= 300; n++ {
		if got := Ripemd160(buf[:n]); !bytes.Equal(got[:], refRipemd160(buf[:n])) {
			t.Fatalf("length %d: %x, want %x", n, got, refRipemd160(buf[:n]))
		}
	}
	for i := 0; i < 200; i++ {
		in := buf[rng.Intn(512):][:rng.Intn(3500)]
		if got := Ripemd160(in); !bytes.Equal(got[:], refRipemd160(in)) {
			t.Fatalf("length %d: %x, want %x", len(in), got, refRipemd160(in))
		}
	}
}

func TestRipemd160NoAllocs(t *testing.T) {
	in := make([]byte, 100)
	if n := testing.AllocsPerRun(100, func() { _ = Ripemd160(in) }); n != 0 {
		t.Errorf("Ripemd160 allocates %v times per call, want 0", n)
	}
}

func FuzzRipemd160(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("abc"))
	f.Add(make([]byte, 55))
	f.Add(make([]byte, 56))
	f.Add(make([]byte, 64))
	f.Add(make([]byte, 119))
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := Ripemd160(in), refRipemd160(in); !bytes.Equal(got[:], want) {
			t.Fatalf("%x: %x, want %x", in, got, want)
		}
	})
}

func BenchmarkRipemd160(b *testing.B) {
	for _, n := range []int{32, 64, 1024} {
		in := make([]byte, n)
		b.Run("unrolled/"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				_ = Ripemd160(in)
			}
		})
		b.Run("xcrypto/"+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			h := ripemd160.New()
			var out [32]byte
			for i := 0; i < b.N; i++ {
				h.Reset()
				h.Write(in)
				h.Sum(out[:0])
			}
		})
	}
}
