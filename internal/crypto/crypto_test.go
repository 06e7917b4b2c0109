package crypto

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir is the shared conformance vector folder, found relative to
// this package (internal/crypto → repo root → ../shared/vectors).
func vectorsDir(t *testing.T) string {
	d := filepath.Join("..", "..", "..", "shared", "vectors")
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Skipf("conformance vectors not found at %s; skipping", d)
	}
	return d
}

func TestKeyAddrVectors(t *testing.T) {
	path := filepath.Join(vectorsDir(t), "ethereum-tests", "BasicTests", "keyaddrtest.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s unreadable (%v); skipping", path, err)
	}
	var cases []struct {
		Seed string `json:"seed"`
		Key  string `json:"key"`
		Addr string `json:"addr"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in keyaddrtest.json")
	}
	// sig_of_emptystring is deliberately not checked: it does not recover
	// to addr under any digest of the empty string (see vectors/README.md).
	for _, c := range cases {
		key := Keccak256([]byte(c.Seed))
		if got := hex.EncodeToString(key[:]); got != c.Key {
			t.Errorf("%s: key %s, want %s", c.Seed, got, c.Key)
		}
		k, err := ToPrivateKey(key[:])
		if err != nil {
			t.Fatalf("%s: %v", c.Seed, err)
		}
		addr := AddressOf(k)
		if got := hex.EncodeToString(addr[:]); got != c.Addr {
			t.Errorf("%s: address %s, want %s", c.Seed, got, c.Addr)
		}
	}
}

func TestKeccakKnownAnswers(t *testing.T) {
	tests := map[string]string{
		"":    "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
		"abc": "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
	}
	for in, want := range tests {
		h := Keccak256([]byte(in))
		var h2 [32]byte
		HashInto(&h2, []byte(in)[:len(in)/2], []byte(in)[len(in)/2:])
		if hex.EncodeToString(h[:]) != want || h2 != h {
			t.Errorf("keccak256(%q) = %x / %x, want %s", in, h, h2, want)
		}
	}
	if got := Keccak256Slice([]byte("abc")); hex.EncodeToString(got) != tests["abc"] {
		t.Errorf("Keccak256Slice = %x", got)
	}
}

func TestHashIntoDoesNotAllocate(t *testing.T) {
	data := make([]byte, 100)
	var out [32]byte
	HashInto(&out, data)
	if n := testing.AllocsPerRun(100, func() { HashInto(&out, data) }); n != 0 {
		t.Errorf("HashInto allocates %.0f times", n)
	}
}

func TestValidateSignatureValues(t *testing.T) {
	one := [32]byte{31: 1}
	nMinus1 := curveOrder
	nMinus1[31]--
	half := curveHalfOrder
	halfPlus1 := curveHalfOrder
	halfPlus1[31]++
	var zero [32]byte
	tests := []struct {
		name string
		v    byte
		r, s [32]byte
		lowS bool
		err  error
	}{
		{"ok", 0, one, one, true, nil},
		{"v=1", 1, nMinus1, half, true, nil},
		{"v=2", 2, one, one, false, ErrInvalidRecoveryID},
		{"r=0", 0, zero, one, false, ErrInvalidSignature},
		{"s=0", 0, one, zero, false, ErrInvalidSignature},
		{"r=N", 0, curveOrder, one, false, ErrInvalidSignature},
		{"s=N", 0, one, curveOrder, false, ErrInvalidSignature},
		{"s=N-1 high allowed", 0, one, nMinus1, false, nil},
		{"s=N-1 high refused", 0, one, nMinus1, true, ErrHighS},
		{"s=N/2+1", 0, one, halfPlus1, true, ErrHighS},
	}
	for _, tc := range tests {
		err := ValidateSignatureValues(tc.v, &tc.r, &tc.s, tc.lowS)
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	if err := ValidateSignature(make([]byte, 64), false); !errors.Is(err, ErrInvalidSignature) {
		t.Errorf("short signature: %v", err)
	}
}

func TestSignLowSAndNormalize(t *testing.T) {
	key, err := PrivateKeyFromHex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	if err != nil {
		t.Fatal(err)
	}
	if got := PrivateKeyHex(key); got != "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" {
		t.Fatalf("PrivateKeyHex = %s", got)
	}
	want := AddressOf(key)
	if hex.EncodeToString(want[:]) != "f39fd6e51aad88f6f4ce6ab8827279cfffb92266" {
		t.Fatalf("address %x", want)
	}
	for i := 0; i < 50; i++ {
		d := Keccak256([]byte{byte(i)})
		sig := Sign(d, key)
		if err := ValidateSignature(sig[:], true); err != nil {
			t.Fatalf("Sign produced %v", err)
		}
		// Flip to the high-s twin, check it is refused, then normalise back.
		high := sig
		NormalizeS(&high) // already low: no change
		if high != sig {
			t.Fatal("NormalizeS changed a low-s signature")
		}
		s := (*[32]byte)(high[32:64])
		var n [32]byte
		subFromOrder(&n, s)
		*s = n
		high[64] ^= 1
		if err := ValidateSignature(high[:], true); !errors.Is(err, ErrHighS) {
			t.Fatalf("high-s twin: %v", err)
		}
		if a, err := RecoverAddress(d, high[:]); err != nil || a != want {
			t.Fatalf("high-s twin recovers %x, %v", a, err)
		}
		NormalizeS(&high)
		if high != sig {
			t.Fatalf("NormalizeS gave %x, want %x", high, sig)
		}
	}
}

// subFromOrder sets out = N - s by schoolbook subtraction, independently of
// the scalar type used by NormalizeS.
func subFromOrder(out, s *[32]byte) {
	var borrow int
	for i := 31; i >= 0; i-- {
		d := int(curveOrder[i]) - int(s[i]) - borrow
		borrow = 0
		if d < 0 {
			d += 256
			borrow = 1
		}
		out[i] = byte(d)
	}
}

func TestKeyEncodings(t *testing.T) {
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pub := k.PubKey()
	c := CompressPubkey(pub)
	if len(c) != 33 {
		t.Fatalf("compressed length %d", len(c))
	}
	back, err := DecompressPubkey(c)
	if err != nil || !back.IsEqual(pub) {
		t.Fatalf("DecompressPubkey: %v", err)
	}
	u := FromPubkey(pub)
	back, err = UnmarshalPubkey(u)
	if err != nil || !back.IsEqual(pub) {
		t.Fatalf("UnmarshalPubkey: %v", err)
	}
	k2, err := ToPrivateKey(FromPrivateKey(k))
	if err != nil || !k2.Key.Equals(&k.Key) {
		t.Fatalf("key round trip: %v", err)
	}
	bad := [][]byte{nil, c[:32], append([]byte{0x04}, c[1:]...), bytes.Repeat([]byte{0xff}, 33)}
	for _, b := range bad {
		if _, err := DecompressPubkey(b); !errors.Is(err, ErrInvalidPubkey) {
			t.Errorf("DecompressPubkey(%x) = %v", b, err)
		}
	}
	offCurve := append([]byte(nil), u...)
	offCurve[64] ^= 1
	for _, b := range [][]byte{nil, u[:64], c, offCurve} {
		if _, err := UnmarshalPubkey(b); !errors.Is(err, ErrInvalidPubkey) {
			t.Errorf("UnmarshalPubkey(%x) = %v", b, err)
		}
	}
	for _, s := range []string{"", "0x", "0x1234", "zz" + string(make([]byte, 62)), "0x" + hex.EncodeToString(curveOrder[:])} {
		if _, err := PrivateKeyFromHex(s); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("PrivateKeyFromHex(%q) = %v", s, err)
		}
	}
	if _, err := GenerateKeyFrom(bytes.NewReader(make([]byte, 10))); err == nil {
		t.Error("short randomness accepted")
	}
	// All-zero and all-0xff draws are invalid keys and must be skipped.
	src := append(append(make([]byte, 32), bytes.Repeat([]byte{0xff}, 32)...), one32()...)
	k3, err := GenerateKeyFrom(bytes.NewReader(src))
	if err != nil || !bytes.Equal(FromPrivateKey(k3), one32()) {
		t.Errorf("GenerateKeyFrom did not skip invalid draws: %v", err)
	}
}

func one32() []byte { b := make([]byte, 32); b[31] = 1; return b }

func BenchmarkKeccak(b *testing.B) {
	for _, n := range []int{32, 1024} {
		data := make([]byte, n)
		var out [32]byte
		b.Run(map[int]string{32: "32B", 1024: "1KB"}[n], func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				HashInto(&out, data)
			}
		})
	}
}

func BenchmarkSign(b *testing.B) {
	k, _ := ToPrivateKey(one32())
	d := Keccak256([]byte("x"))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Sign(d, k)
	}
}

func FuzzPubkeyParsing(f *testing.F) {
	k, _ := ToPrivateKey(one32())
	f.Add(CompressPubkey(k.PubKey()))
	f.Add(FromPubkey(k.PubKey()))
	f.Add([]byte{0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := DecompressPubkey(b); err == nil {
			if !bytes.Equal(CompressPubkey(p), b) {
				t.Fatalf("compressed round trip of %x", b)
			}
		}
		if p, err := UnmarshalPubkey(b); err == nil {
			if !bytes.Equal(FromPubkey(p), b) {
				t.Fatalf("uncompressed round trip of %x", b)
			}
		}
		if k, err := PrivateKeyFromHex(string(b)); err == nil {
			if len(FromPrivateKey(k)) != 32 {
				t.Fatal("bad key length")
			}
		}
	})
}
