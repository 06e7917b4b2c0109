package h2

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeAll(d *Decoder, block []byte) ([]HeaderField, error) {
	var got []HeaderField
	err := d.Decode(block, func(f HeaderField) error { got = append(got, f); return nil })
	return got, err
}

// table lists the dynamic table newest first, as RFC 7541 prints it.
func (d *Decoder) table() []HeaderField {
	var t []HeaderField
	for i := len(d.dyn) - 1; i >= 0; i-- {
		t = append(t, d.dyn[i])
	}
	return t
}

type hpackStep struct {
	block string
	want  []HeaderField
	table []HeaderField // newest first
	size  uint32
}

// The examples of RFC 7541 Appendix C, each a sequence of header blocks
// decoded by one decoder.
var rfcExamples = []struct {
	name  string
	limit uint32
	steps []hpackStep
}{
	{"C.2.1 literal with indexing", 4096, []hpackStep{{
		"400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
		[]HeaderField{{"custom-key", "custom-header"}}, []HeaderField{{"custom-key", "custom-header"}}, 55}}},
	{"C.2.2 literal without indexing", 4096, []hpackStep{{
		"040c 2f73 616d 706c 652f 7061 7468", []HeaderField{{":path", "/sample/path"}}, nil, 0}}},
	{"C.2.3 literal never indexed", 4096, []hpackStep{{
		"1008 7061 7373 776f 7264 0673 6563 7265 74", []HeaderField{{"password", "secret"}}, nil, 0}}},
	{"C.2.4 indexed", 4096, []hpackStep{{"82", []HeaderField{{":method", "GET"}}, nil, 0}}},
	{"C.3 requests without Huffman", 4096, []hpackStep{
		{"8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
			[]HeaderField{{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}},
			[]HeaderField{{":authority", "www.example.com"}}, 57},
		{"8286 84be 5808 6e6f 2d63 6163 6865",
			[]HeaderField{{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}, {"cache-control", "no-cache"}},
			[]HeaderField{{"cache-control", "no-cache"}, {":authority", "www.example.com"}}, 110},
		{"8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
			[]HeaderField{{":method", "GET"}, {":scheme", "https"}, {":path", "/index.html"}, {":authority", "www.example.com"}, {"custom-key", "custom-value"}},
			[]HeaderField{{"custom-key", "custom-value"}, {"cache-control", "no-cache"}, {":authority", "www.example.com"}}, 164},
	}},
	{"C.4 requests with Huffman", 4096, []hpackStep{
		{"8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
			[]HeaderField{{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}},
			[]HeaderField{{":authority", "www.example.com"}}, 57},
		{"8286 84be 5886 a8eb 1064 9cbf",
			[]HeaderField{{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "www.example.com"}, {"cache-control", "no-cache"}},
			[]HeaderField{{"cache-control", "no-cache"}, {":authority", "www.example.com"}}, 110},
		{"8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
			[]HeaderField{{":method", "GET"}, {":scheme", "https"}, {":path", "/index.html"}, {":authority", "www.example.com"}, {"custom-key", "custom-value"}},
			[]HeaderField{{"custom-key", "custom-value"}, {"cache-control", "no-cache"}, {":authority", "www.example.com"}}, 164},
	}},
	{"C.5 responses without Huffman", 256, responseSteps(
		"4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
		"4803 3330 37c1 c0bf",
		"88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31")},
	{"C.6 responses with Huffman", 256, responseSteps(
		"4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
		"4883 640e ffc1 c0bf",
		"88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07")},
}

// responseSteps are the three responses of C.5 and C.6, whose fields and
// tables are the same with or without Huffman coding.
func responseSteps(b1, b2, b3 string) []hpackStep {
	date1, date2 := "Mon, 21 Oct 2013 20:13:21 GMT", "Mon, 21 Oct 2013 20:13:22 GMT"
	loc := "https://www.example.com"
	cookie := "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
	return []hpackStep{
		{b1, []HeaderField{{":status", "302"}, {"cache-control", "private"}, {"date", date1}, {"location", loc}},
			[]HeaderField{{"location", loc}, {"date", date1}, {"cache-control", "private"}, {":status", "302"}}, 222},
		{b2, []HeaderField{{":status", "307"}, {"cache-control", "private"}, {"date", date1}, {"location", loc}},
			[]HeaderField{{":status", "307"}, {"location", loc}, {"date", date1}, {"cache-control", "private"}}, 222},
		{b3, []HeaderField{{":status", "200"}, {"cache-control", "private"}, {"date", date2}, {"location", loc}, {"content-encoding", "gzip"}, {"set-cookie", cookie}},
			[]HeaderField{{"set-cookie", cookie}, {"content-encoding", "gzip"}, {"date", date2}}, 215},
	}
}

func TestHPACKRFCExamples(t *testing.T) {
	for _, tc := range rfcExamples {
		d := NewDecoder(tc.limit)
		for i, s := range tc.steps {
			got, err := decodeAll(d, unhex(t, s.block))
			if err != nil {
				t.Fatalf("%s, block %d: %v", tc.name, i+1, err)
			}
			if !reflect.DeepEqual(got, s.want) {
				t.Errorf("%s, block %d: fields %q, want %q", tc.name, i+1, got, s.want)
			}
			if tbl := d.table(); !reflect.DeepEqual(tbl, s.table) || d.size != s.size {
				t.Errorf("%s, block %d: table %q (%d bytes), want %q (%d)", tc.name, i+1, tbl, d.size, s.table, s.size)
			}
		}
	}
}

// The Huffman-coded strings of C.4 and C.6 come out of appendHuffman
// byte for byte.
func TestHuffmanEncodeRFC(t *testing.T) {
	for s, want := range map[string]string{
		"www.example.com":               "f1e3 c2e5 f23a 6ba0 ab90 f4ff",
		"no-cache":                      "a8eb 1064 9cbf",
		"custom-key":                    "25a8 49e9 5ba9 7d7f",
		"custom-value":                  "25a8 49e9 5bb8 e8b4 bf",
		"302":                           "6402",
		"private":                       "aec3 771a 4b",
		"Mon, 21 Oct 2013 20:13:21 GMT": "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff",
		"https://www.example.com":       "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3",
	} {
		if got := appendHuffman(nil, s); !bytes.Equal(got, unhex(t, want)) {
			t.Errorf("%q: %x, want %s", s, got, want)
		}
	}
}

func TestHuffmanRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.Intn(40))
		rng.Read(b)
		got, err := huffmanDecode(appendHuffman(nil, string(b)))
		if err != nil || got != string(b) {
			t.Fatalf("%x: got %x, %v", b, got, err)
		}
	}
}

func TestHPACKErrors(t *testing.T) {
	huffEOS := appendHuffman(nil, "a") // 00011 + 111 padding
	for _, tc := range []struct {
		name  string
		block []byte
	}{
		{"index 0", []byte{0x80}},
		{"index past the tables", []byte{0x80 | 62}},
		{"truncated integer", []byte{0xff}},
		{"integer over 2^32", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"string past the block", []byte{0x00, 0x05, 'a'}},
		{"table size over the limit", []byte{0x3f, 0xe2, 0x1f}}, // 4097
		{"table size after a field", []byte{0x82, 0x20}},
		{"Huffman padding of 8 bits", append([]byte{0x04, 0x82}, append(huffEOS, 0xff)...)},
		{"Huffman padding not ones", []byte{0x04, 0x81, 0x18}}, // 00011 000
		{"Huffman end-of-string", []byte{0x04, 0x84, 0xff, 0xff, 0xff, 0xff}},
	} {
		_, err := decodeAll(NewDecoder(4096), tc.block)
		var ce *ConnError
		if !errors.As(err, &ce) || ce.Code != ErrCompression {
			t.Errorf("%s: %v, want a COMPRESSION_ERROR", tc.name, err)
		}
	}
}

// A table size update to 0 empties the table; entries larger than the
// whole table empty it too.
func TestHPACKEviction(t *testing.T) {
	d := NewDecoder(4096)
	if _, err := decodeAll(d, unhex(t, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572")); err != nil || len(d.dyn) != 1 {
		t.Fatal(err)
	}
	if _, err := decodeAll(d, []byte{0x20}); err != nil || len(d.dyn) != 0 || d.size != 0 {
		t.Fatalf("after size 0: %v, %d entries", err, len(d.dyn))
	}
	if _, err := decodeAll(d, []byte{0x3f, 0x02, 0x40, 0x01, 'a', 0x01, 'b'}); err != nil || len(d.dyn) != 0 {
		t.Fatalf("entry over a 33-byte table: %v, %d entries", err, len(d.dyn))
	}
}

func TestAppendField(t *testing.T) {
	for _, f := range []HeaderField{{":status", "200"}, {":status", "431"}, {"content-type", "application/grpc"},
		{"grpc-status", "0"}, {"grpc-message", strings.Repeat("x", 300)}, {"accept-encoding", "gzip, deflate"}} {
		got, err := decodeAll(NewDecoder(4096), appendField(nil, f.Name, f.Value))
		if err != nil || len(got) != 1 || got[0] != f {
			t.Errorf("%q: %q %v", f, got, err)
		}
	}
	if b := appendField(nil, ":status", "200"); !bytes.Equal(b, []byte{0x88}) {
		t.Errorf(":status 200 as %x, want the static index 88", b)
	}
}

// FuzzHPACKDecode decodes arbitrary blocks: no panic, and whatever
// decodes re-encodes to the same fields.
func FuzzHPACKDecode(f *testing.F) {
	for _, tc := range rfcExamples {
		for _, s := range tc.steps {
			f.Add(unhex(f, s.block))
		}
	}
	f.Add([]byte{0x3f, 0xe1, 0x1f, 0x82})
	f.Fuzz(func(t *testing.T, block []byte) {
		d := NewDecoder(4096)
		got, err := decodeAll(d, block)
		if err != nil {
			return
		}
		var re []byte
		for _, f := range got {
			re = appendField(re, f.Name, f.Value)
		}
		again, err := decodeAll(NewDecoder(4096), re)
		if err != nil || !reflect.DeepEqual(got, again) {
			t.Fatalf("re-encoded %q decodes to %q, %v", got, again, err)
		}
		if d.size > d.maxSize {
			t.Fatalf("table of %d bytes over its %d", d.size, d.maxSize)
		}
	})
}
