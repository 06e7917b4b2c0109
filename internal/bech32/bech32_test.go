package bech32

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The valid and invalid bech32 strings of BIP-173's test vectors.
var validChecksums = []string{
	"A12UEL5L",
	"a12uel5l",
	"an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
	"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
	"11" + strings.Repeat("q", 82) + "c8247j", // 90 characters
	"split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
	"?1ezyfcl",
}

var invalidChecksums = []struct {
	s    string
	want error
}{
	{"\x201nwldj5", ErrChar},        // prefix character out of range
	{"\x7f1axkwrx", ErrChar},        // prefix character out of range
	{"\x801eym55h", ErrChar},        // prefix character out of range
	{"pzry9x0s0muk", ErrSeparator},  // no separator
	{"1pzry9x0s0muk", ErrSeparator}, // empty prefix
	{"x1b4n0q5v", ErrChar},          // invalid data character
	{"li1dgmt3", ErrSeparator},      // checksum too short
	{"de1lg7wt\xff", ErrChar},       // invalid character in checksum
	{"A1G7SGD8", ErrChecksum},       // checksum computed with upper case prefix
	{"10a06t8", ErrLength},          // empty prefix, too short
	{"1qzzfhee", ErrSeparator},      // empty prefix
	{"a12UEL5L", ErrMixedCase},      // mixed case
	// BIP-173 refuses this 91-character string for its length; Cosmos
	// decoding allows 1023 characters, so the test pads it past that.
	{"an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx" + strings.Repeat("q", 1000), ErrLength},
}

func TestBIP173Valid(t *testing.T) {
	for _, s := range validChecksums {
		hrp, words, err := DecodeWords(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		again, err := EncodeWords(hrp, words)
		if err != nil || again != strings.ToLower(s) {
			t.Errorf("%q: re-encoded as %q, %v", s, again, err)
		}
		// Flipping any data character must break the checksum.
		b := []byte(strings.ToLower(s))
		i := strings.LastIndexByte(string(b), '1') + 1
		if b[i] == 'q' {
			b[i] = 'p'
		} else {
			b[i] = 'q'
		}
		if _, _, err := DecodeWords(string(b)); !errors.Is(err, ErrChecksum) {
			t.Errorf("%q with a changed character: %v, want a checksum error", b, err)
		}
	}
}

func TestBIP173Invalid(t *testing.T) {
	for _, c := range invalidChecksums {
		if _, _, err := DecodeWords(c.s); !errors.Is(err, c.want) {
			t.Errorf("%q: %v, want %v", c.s, err, c.want)
		}
	}
}

// BIP-173's segwit address vectors carry witness programs as 5-bit data;
// their payload after the version word round-trips through the byte form.
func TestBIP173Programs(t *testing.T) {
	vectors := []struct {
		addr, program string
	}{
		{"BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "751e76e8199196d454941c45d1b3a323f1433bd6"},
		{"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", "1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"},
		{"tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy", "000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"},
	}
	for _, v := range vectors {
		_, words, err := DecodeWords(v.addr)
		if err != nil {
			t.Fatalf("%s: %v", v.addr, err)
		}
		prog, err := convertStrict(words[1:])
		if err != nil {
			t.Fatalf("%s: %v", v.addr, err)
		}
		if got := hexString(prog); got != v.program {
			t.Errorf("%s: program %s, want %s", v.addr, got, v.program)
		}
	}
	// Non-zero padding (a BIP-173 invalid address) is refused.
	_, words, err := DecodeWords("bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convertStrict(words[1:]); !errors.Is(err, ErrPadding) {
		t.Errorf("non-zero padding: %v", err)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestAddressRoundTrip(t *testing.T) {
	addr := bytes.Repeat([]byte{0}, 20)
	for i := range addr {
		addr[i] = byte(i * 13)
	}
	for _, hrp := range []string{"chain", "chainvaloper"} {
		s, err := Encode(hrp, addr)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != len(hrp)+1+32+6 {
			t.Errorf("%s: length %d", s, len(s))
		}
		got, err := DecodePrefix(hrp, s)
		if err != nil || !bytes.Equal(got, addr) {
			t.Errorf("%s: %x, %v", s, got, err)
		}
		other := "chain"
		if hrp == "chain" {
			other = "chainvaloper"
		}
		if _, err := DecodePrefix(other, s); !errors.Is(err, ErrPrefix) {
			t.Errorf("%s under %s: %v", s, other, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range validChecksums {
		f.Add(s)
	}
	for _, c := range invalidChecksums {
		f.Add(c.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hrp, data, err := Decode(s)
		if err != nil {
			return
		}
		again, err := Encode(hrp, data)
		if err != nil {
			t.Fatalf("decoded %q but cannot re-encode: %v", s, err)
		}
		if again != strings.ToLower(s) {
			t.Fatalf("%q re-encoded as %q", s, again)
		}
	})
}
