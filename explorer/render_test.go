package explorer

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/bech32"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

func topic(sig string) types.Hash { return types.Hash(crypto.Keccak256([]byte(sig))) }

func addrTopic(a types.Address) types.Hash {
	var h types.Hash
	copy(h[12:], a[:])
	return h
}

func TestDecodeLog(t *testing.T) {
	from, to := types.Address{0xaa, 1}, types.Address{0xbb, 2}
	word := func(v byte) []byte { w := make([]byte, 32); w[31] = v; return w }
	transfer := topic("Transfer(address,address,uint256)")
	for _, tc := range []struct {
		name string
		log  types.Log
		want string // "" when not decoded
	}{
		{"erc20 transfer", types.Log{Topics: []types.Hash{transfer, addrTopic(from), addrTopic(to)}, Data: word(7)},
			"Transfer from=" + from.Hex() + " to=" + to.Hex() + " value=7"},
		{"erc721 transfer", types.Log{Topics: []types.Hash{transfer, addrTopic(from), addrTopic(to), types.Hash{31: 9}}},
			"Transfer from=" + from.Hex() + " to=" + to.Hex() + " tokenId=9"},
		{"approval for all", types.Log{Topics: []types.Hash{topic("ApprovalForAll(address,address,bool)"), addrTopic(from), addrTopic(to)}, Data: word(1)},
			"ApprovalForAll owner=" + from.Hex() + " operator=" + to.Hex() + " approved=true"},
		{"bool out of range", types.Log{Topics: []types.Hash{topic("ApprovalForAll(address,address,bool)"), addrTopic(from), addrTopic(to)}, Data: word(2)}, ""},
		{"dirty address topic", types.Log{Topics: []types.Hash{transfer, {0: 1}, addrTopic(to)}, Data: word(7)}, ""},
		{"data of the wrong length", types.Log{Topics: []types.Hash{transfer, addrTopic(from), addrTopic(to)}, Data: word(7)[:31]}, ""},
		{"unknown", types.Log{Topics: []types.Hash{{1}}}, ""},
		{"anonymous", types.Log{}, ""},
	} {
		got := ""
		if ev := decodeLog(&tc.log); ev != nil {
			got = ev.Name
			for _, a := range ev.Args {
				got += " " + a.Name + "=" + a.Value
			}
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestParseBlockID(t *testing.T) {
	h := "0x" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		in     string
		num    uint64
		isHash bool
		latest bool
		bad    bool
	}{
		{in: "latest", latest: true},
		{in: "0", num: 0},
		{in: "123", num: 123},
		{in: "0x7b", num: 123},
		{in: h, isHash: true},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "1.5", bad: true},
		{in: "0x", bad: true},
		{in: "18446744073709551616", bad: true},
		{in: "0x" + strings.Repeat("zz", 32), bad: true},
		{in: "pending", bad: true},
	} {
		num, hash, isHash, latest, err := parseBlockID(tc.in)
		var ae *apiError
		if tc.bad {
			if !errors.As(err, &ae) || ae.status != http.StatusBadRequest {
				t.Errorf("%q: %v, want a 400", tc.in, err)
			}
			continue
		}
		if err != nil || num != tc.num || isHash != tc.isHash || latest != tc.latest || (isHash && hash.Hex() != h) {
			t.Errorf("%q: %d %v %v %v", tc.in, num, isHash, latest, err)
		}
	}
}

// An address is taken as 0x hex or as bech32 under the account or the
// validator-operator prefix, all naming the same 20 bytes; anything else
// is refused with a message saying what is wanted.
func TestParseAddress(t *testing.T) {
	want, _ := types.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	acc, _ := bech32.Encode(bech32.AccountPrefix, want[:])
	valoper, _ := bech32.Encode(bech32.ValidatorPrefix, want[:])
	cons, _ := bech32.Encode(bech32.ConsensusPrefix, want[:])
	short, _ := bech32.Encode(bech32.AccountPrefix, want[:19])
	bad := acc[:len(acc)-1] + map[bool]string{true: "q", false: "p"}[acc[len(acc)-1] != 'q']
	for _, tc := range []struct {
		in   string
		ok   bool
		want string // in the error
	}{
		{want.Hex(), true, ""},
		{strings.ToLower(want.Hex()), true, ""},
		{acc, true, ""},
		{strings.ToUpper(acc), true, ""},
		{valoper, true, ""},
		{cons, false, "prefix"},
		{short, false, "19 bytes"},
		{bad, false, "checksum"},
		{"chain1", false, "invalid address"},
		{strings.Repeat("ab", 20), false, "0x and 40 hex digits"},
	} {
		a, err := parseAddress(tc.in)
		if tc.ok != (err == nil) || (tc.ok && a != want) || (!tc.ok && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %s %v", tc.in, a, err)
		}
	}
}

// FuzzParsers: the request parsers never panic, and what they accept
// reads back as what was given.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"latest", "12", "0x1f", "0x" + strings.Repeat("0", 64), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if num, _, isHash, latest, err := parseBlockID(s); err == nil && !isHash && !latest && num > 0 && strings.TrimLeft(s, "0") == "" {
			t.Fatalf("%q read as %d", s, num)
		}
		if h, err := parseTxHash(s); err == nil && !strings.EqualFold(h.Hex(), s) {
			t.Fatalf("%q read as %s", s, h)
		}
		if a, err := parseAddress(s); err == nil && !strings.EqualFold(a.Hex(), s) {
			hrp, _, _ := bech32.Decode(s)
			if enc, _ := bech32.Encode(hrp, a[:]); !strings.EqualFold(enc, s) {
				t.Fatalf("%q read as %s", s, a)
			}
		}
	})
}
