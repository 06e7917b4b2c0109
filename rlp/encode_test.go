package rlp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/holiman/uint256"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendString(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{nil, "80"},
		{[]byte{0}, "00"},
		{[]byte{0x7f}, "7f"},
		{[]byte{0x80}, "8180"},
		{[]byte("dog"), "83646f67"},
		{bytes.Repeat([]byte{'a'}, 55), "b7" + strings.Repeat("61", 55)},
		{bytes.Repeat([]byte{'a'}, 56), "b838" + strings.Repeat("61", 56)},
		{bytes.Repeat([]byte{'a'}, 1024), "b90400" + strings.Repeat("61", 1024)},
	} {
		got := AppendString(nil, tc.in)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("AppendString(%x) = %x, want %s", tc.in, got, tc.want)
		}
		if StringSize(tc.in) != len(got) {
			t.Errorf("StringSize(%x) = %d, want %d", tc.in, StringSize(tc.in), len(got))
		}
	}
}

func TestAppendIntegers(t *testing.T) {
	for _, tc := range []struct {
		x    uint64
		want string
	}{
		{0, "80"}, {1, "01"}, {0x7f, "7f"}, {0x80, "8180"}, {0xff, "81ff"}, {0x100, "820100"},
		{1000, "8203e8"}, {1 << 32, "850100000000"}, {^uint64(0), "88ffffffffffffffff"},
	} {
		if got := hex.EncodeToString(AppendUint64(nil, tc.x)); got != tc.want {
			t.Errorf("AppendUint64(%d) = %s, want %s", tc.x, got, tc.want)
		}
		if n := Uint64Size(tc.x); n != len(tc.want)/2 {
			t.Errorf("Uint64Size(%d) = %d", tc.x, n)
		}
		u := uint256.NewInt(tc.x)
		if got := hex.EncodeToString(AppendUint256(nil, u)); got != tc.want {
			t.Errorf("AppendUint256(%d) = %s, want %s", tc.x, got, tc.want)
		}
		b := new(big.Int).SetUint64(tc.x)
		if got := hex.EncodeToString(AppendBigInt(nil, b)); got != tc.want {
			t.Errorf("AppendBigInt(%d) = %s, want %s", tc.x, got, tc.want)
		}
		if BigIntSize(b) != len(tc.want)/2 {
			t.Errorf("BigIntSize(%d)", tc.x)
		}
	}
	max := new(uint256.Int).SetAllOne()
	want := "a0" + strings.Repeat("ff", 32)
	if got := hex.EncodeToString(AppendUint256(nil, max)); got != want {
		t.Errorf("max uint256: %s", got)
	}
	if Uint256Size(max) != 33 {
		t.Errorf("Uint256Size(max) = %d", Uint256Size(max))
	}
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	if got := hex.EncodeToString(AppendBigInt(nil, two256)); got != "a101"+strings.Repeat("00", 32) {
		t.Errorf("2^256: %s", got)
	}
	if got := AppendBool(AppendBool(nil, true), false); !bytes.Equal(got, []byte{0x01, 0x80}) {
		t.Errorf("bools: %x", got)
	}
}

func TestAppendList(t *testing.T) {
	got := EncodeList(EncodeString([]byte("dog")), EncodeString([]byte("god")), EncodeString([]byte("cat")))
	if hex.EncodeToString(got) != "cc83646f6783676f6483636174" {
		t.Errorf("got %x", got)
	}
	long := EncodeList(EncodeString(bytes.Repeat([]byte{1}, 60)))
	if hex.EncodeToString(long[:3]) != "f83eb8" {
		t.Errorf("long list header %x", long[:3])
	}
}

func TestDecodeIntegers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		err  error
	}{
		{"80", 0, nil},
		{"01", 1, nil},
		{"8180", 0x80, nil},
		{"88ffffffffffffffff", ^uint64(0), nil},
		{"8900ffffffffffffffff", 0, ErrUintOverflow},
		{"820001", 0, ErrCanonInt},
		{"8100", 0, ErrSingleByteWrapped},
		{"c0", 0, ErrExpectedString},
		{"", 0, ErrEmptyInput},
	} {
		x, _, err := SplitUint64(unhex(t, tc.in))
		if !errors.Is(err, tc.err) || x != tc.want {
			t.Errorf("SplitUint64(%s) = %d, %v; want %d, %v", tc.in, x, err, tc.want, tc.err)
		}
	}
	var z uint256.Int
	if _, err := SplitUint256(unhex(t, "a1"+strings.Repeat("01", 33)), &z); !errors.Is(err, ErrUintOverflow) {
		t.Errorf("33-byte uint256: %v", err)
	}
	if _, err := SplitUint256(unhex(t, "820001"), &z); !errors.Is(err, ErrCanonInt) {
		t.Errorf("leading zero uint256: %v", err)
	}
	if _, err := SplitUint256(unhex(t, "a0"+strings.Repeat("ff", 32)), &z); err != nil || !z.Eq(new(uint256.Int).SetAllOne()) {
		t.Errorf("max uint256: %v %s", err, z.Hex())
	}
	if x, _, err := SplitBigInt(unhex(t, "a101"+strings.Repeat("00", 32))); err != nil || x.BitLen() != 257 {
		t.Errorf("2^256 big: %v", err)
	}
	if _, _, err := SplitBigInt(unhex(t, "820001")); !errors.Is(err, ErrCanonInt) {
		t.Errorf("leading zero big: %v", err)
	}
	for in, want := range map[string]bool{"01": true, "80": false} {
		if v, _, err := SplitBool(unhex(t, in)); err != nil || v != want {
			t.Errorf("SplitBool(%s) = %v, %v", in, v, err)
		}
	}
	if _, _, err := SplitBool(unhex(t, "02")); !errors.Is(err, ErrInvalidBool) {
		t.Errorf("SplitBool(02): %v", err)
	}
}

// TestValidateErrors gives every malformation the error that names it.
func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"", ErrEmptyInput},
		{"8100", ErrSingleByteWrapped},
		{"817f", ErrSingleByteWrapped},
		{"b800", ErrLengthLeadingZero},
		{"f800", ErrLengthLeadingZero},
		{"b80100", ErrCanonSize},
		{"f80100", ErrCanonSize},
		{"83aabb", ErrValueTooLarge},
		{"c3aabb", ErrValueTooLarge},
		{"b9", ErrValueTooLarge},
		{"81", ErrValueTooLarge},
		{"0102", ErrTrailingBytes},
		{"c0c0", ErrTrailingBytes},
		{"bf0f000000000000021111", ErrValueTooLarge},
		{"c28100", ErrSingleByteWrapped}, // nested
		{"c3c28100", ErrSingleByteWrapped},
		{"c5010203", ErrValueTooLarge},
		{"c20183", ErrValueTooLarge}, // nested item runs past the list
		{"ff0f000000000000021111", ErrValueTooLarge},
		{"bf" + "8000000000000000" + "00", ErrLengthOverflow},
	} {
		if err := Validate(unhex(t, tc.in)); !errors.Is(err, tc.err) {
			t.Errorf("%s: got %v want %v", tc.in, err, tc.err)
		}
	}
}

func TestValidateDeepNesting(t *testing.T) {
	// 100k nested empty-ish lists: Validate must not recurse.
	var heads [][]byte
	size := 1 // the innermost c0
	for i := 0; i < 100000; i++ {
		h := AppendListHeader(nil, size)
		heads = append(heads, h)
		size += len(h)
	}
	enc := make([]byte, 0, size)
	for i := len(heads) - 1; i >= 0; i-- {
		enc = append(enc, heads[i]...)
	}
	enc = append(enc, 0xc0)
	if err := Validate(enc); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeItem(enc); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("DecodeItem: %v", err)
	}
}

func TestItemRoundTrip(t *testing.T) {
	it := ListItem(StringItem([]byte("zw")), ListItem(StringItem([]byte{4})), StringItem([]byte{1}))
	enc := it.Encode()
	if hex.EncodeToString(enc) != "c6827a77c10401" {
		t.Fatalf("got %x", enc)
	}
	back, err := DecodeItem(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), enc) {
		t.Fatal("round trip")
	}
	if n, err := CountValues(unhex(t, "0102c0")); err != nil || n != 3 {
		t.Fatalf("CountValues: %d %v", n, err)
	}
}

func TestSplitRaw(t *testing.T) {
	in := unhex(t, "c20102"+"83646f67")
	item, rest, err := SplitRaw(in)
	if err != nil || hex.EncodeToString(item) != "c20102" || hex.EncodeToString(rest) != "83646f67" {
		t.Fatalf("SplitRaw: %x %x %v", item, rest, err)
	}
	if _, _, err := SplitRaw(unhex(t, "c3")); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("truncated: %v", err)
	}
	if got := AppendRaw([]byte{0xc0}, item); hex.EncodeToString(got) != "c0c20102" {
		t.Fatalf("AppendRaw: %x", got)
	}
}
