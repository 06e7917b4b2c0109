package rlp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func TestBufferNested(t *testing.T) {
	// [ [], [[]], [ [], [[]] ] ]  -> c7c0c1c0c3c0c1c0
	var b Buffer
	l0 := b.List()
	l1 := b.List()
	b.ListEnd(l1)
	l2 := b.List()
	l3 := b.List()
	b.ListEnd(l3)
	b.ListEnd(l2)
	l4 := b.List()
	l5 := b.List()
	b.ListEnd(l5)
	l6 := b.List()
	l7 := b.List()
	b.ListEnd(l7)
	b.ListEnd(l6)
	b.ListEnd(l4)
	b.ListEnd(l0)
	if got := hex.EncodeToString(b.Bytes()); got != "c7c0c1c0c3c0c1c0" {
		t.Fatalf("got %s", got)
	}
}

func TestBufferLong(t *testing.T) {
	var b Buffer
	l := b.List()
	b.WriteBytes(bytes.Repeat([]byte{'a'}, 60))
	b.WriteUint64(1024)
	b.ListEnd(l)
	enc := b.Bytes()
	content, rest, err := SplitList(enc)
	if err != nil || len(rest) != 0 {
		t.Fatal(err)
	}
	s, content, err := SplitString(content)
	if err != nil || len(s) != 60 {
		t.Fatal(err, len(s))
	}
	x, content, err := SplitUint64(content)
	if err != nil || x != 1024 || len(content) != 0 {
		t.Fatal(err, x)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"", ErrEmptyInput},
		{"8100", ErrSingleByteWrapped},
		{"b800", ErrLengthLeadingZero},
		{"b80100", ErrCanonSize},
		{"83aabb", ErrValueTooLarge},
		{"c3aabb", ErrValueTooLarge},
		{"0102", ErrTrailingBytes},
		{"f90000", ErrLengthLeadingZero},
	} {
		in, _ := hex.DecodeString(tc.in)
		if err := Validate(in); !errors.Is(err, tc.err) {
			t.Errorf("%s: got %v want %v", tc.in, err, tc.err)
		}
	}
	if _, _, err := SplitUint64([]byte{0x82, 0x00, 0x01}); !errors.Is(err, ErrCanonInt) {
		t.Errorf("leading zero int: %v", err)
	}
}
