package query

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/chaind/chaind/internal/bech32"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Int is a Cosmos math.Int: a decimal integer string on the wire and in
// JSON.
type Int struct{ v big.Int }

// IntOf returns x as an Int (nil as zero).
func IntOf(x *uint256.Int) Int {
	var i Int
	if x != nil {
		i.v.SetBytes(x.Bytes())
	}
	return i
}

func (i Int) ProtoText() string { return i.v.String() }

// AppendProtoText and AppendJSONText append the text without allocating.
func (i *Int) AppendProtoText(b []byte) []byte { return i.v.Append(b, 10) }
func (i *Int) AppendJSONText(b []byte) []byte  { return i.v.Append(b, 10) }
func (i Int) JSONText() string                 { return i.v.String() }

func (i *Int) ParseProtoText(s string) error {
	if _, ok := i.v.SetString(s, 10); !ok || strings.HasPrefix(s, "+") {
		return fmt.Errorf("%q is not an integer", s)
	}
	return nil
}
func (i *Int) ParseJSONText(s string) error { return i.ParseProtoText(s) }

// decimals is the number of fractional digits of a Dec.
const decimals = 18

// Dec is a Cosmos LegacyDec: a decimal with 18 fractional digits, held as
// its value times 10^18. On the wire it travels as that integer's text; in
// JSON with the decimal point and all 18 digits.
type Dec struct{ v big.Int }

// DecOf returns the Dec whose value times 10^18 is x (nil as zero).
func DecOf(x *uint256.Int) Dec { return Dec{v: IntOf(x).v} }

// DecFromInt returns x as a Dec (x times 10^18).
func DecFromInt(x *uint256.Int) Dec {
	d := DecOf(x)
	d.v.Mul(&d.v, new(big.Int).Exp(big.NewInt(10), big.NewInt(decimals), nil))
	return d
}

func (d Dec) ProtoText() string { return d.v.String() }

// AppendProtoText appends the unscaled integer without allocating.
func (d *Dec) AppendProtoText(b []byte) []byte { return d.v.Append(b, 10) }

// AppendJSONText appends the decimal with its 18 fractional digits.
func (d *Dec) AppendJSONText(b []byte) []byte {
	if d.v.Sign() < 0 {
		b = append(b, '-')
	}
	start := len(b)
	b = d.v.Append(b, 10)
	if d.v.Sign() < 0 {
		b = append(b[:start], b[start+1:]...) // drop the sign Append wrote
	}
	if n := len(b) - start; n <= decimals {
		pad := decimals + 1 - n
		b = append(b, make([]byte, pad)...)
		copy(b[start+pad:], b[start:start+n])
		for i := range pad {
			b[start+i] = '0'
		}
	}
	b = append(b, 0)
	point := len(b) - 1 - decimals
	copy(b[point+1:], b[point:len(b)-1])
	b[point] = '.'
	return b
}

func (d Dec) JSONText() string {
	s := new(big.Int).Abs(&d.v).String()
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals+1-len(s)) + s
	}
	s = s[:len(s)-decimals] + "." + s[len(s)-decimals:]
	if d.v.Sign() < 0 {
		s = "-" + s
	}
	return s
}

func (d *Dec) ParseProtoText(s string) error {
	if _, ok := d.v.SetString(s, 10); !ok || strings.HasPrefix(s, "+") {
		return fmt.Errorf("%q is not a decimal", s)
	}
	return nil
}

func (d *Dec) ParseJSONText(s string) error {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > decimals || strings.ContainsAny(frac, "+-") {
		return fmt.Errorf("%q is not a decimal with at most 18 fractional digits", s)
	}
	return d.ParseProtoText(whole + frac + strings.Repeat("0", decimals-len(frac)))
}

// DecBytes is a Dec in a field the Cosmos protos declare as bytes (the
// older modules' parameters); it travels and renders as a Dec.
type DecBytes struct{ Dec }

func (DecBytes) ScalarIsBytes() {}

// Coin is an amount of one denomination (cosmos.base.v1beta1.Coin).
type Coin struct {
	Denom  string `pb:"1,denom"`
	Amount Int    `pb:"2,amount"`
}

func (Coin) ProtoName() string { return "cosmos.base.v1beta1.Coin" }

// DecCoin is a decimal amount of one denomination.
type DecCoin struct {
	Denom  string `pb:"1,denom"`
	Amount Dec    `pb:"2,amount"`
}

func (DecCoin) ProtoName() string { return "cosmos.base.v1beta1.DecCoin" }

// coins is the native coin as a list: empty for a zero amount, as the
// Cosmos SDK leaves zero balances out of lists.
func coins(x *uint256.Int) []Coin {
	if x == nil || x.IsZero() {
		return []Coin{}
	}
	return []Coin{{Denom: Denom, Amount: IntOf(x)}}
}

func decCoins(x *uint256.Int) []DecCoin {
	if x == nil || x.IsZero() {
		return []DecCoin{}
	}
	return []DecCoin{{Denom: Denom, Amount: DecOf(x)}}
}

// PageRequest asks for one page of a list.
type PageRequest struct {
	Key        []byte `pb:"1,key"`
	Offset     uint64 `pb:"2,offset"`
	Limit      uint64 `pb:"3,limit"`
	CountTotal bool   `pb:"4,count_total"`
	Reverse    bool   `pb:"5,reverse"`
}

func (PageRequest) ProtoName() string { return "cosmos.base.query.v1beta1.PageRequest" }

// PageResponse tells where the next page starts and, when counted, how
// many items there are.
type PageResponse struct {
	NextKey []byte `pb:"1,next_key"`
	Total   uint64 `pb:"2,total"`
}

func (PageResponse) ProtoName() string { return "cosmos.base.query.v1beta1.PageResponse" }

// DefaultLimit is the page size when a request gives none.
const DefaultLimit = 100

// errKeyAndOffset refuses a page asked for by both a key and an offset.
var errKeyAndOffset = Errorf(InvalidArgument, "invalid request, either offset or key is expected, got both")

// paginate returns the page of items (sorted ascending by key) that p asks
// for. A key starts the page at the first item whose key is not below it
// (not above it, reversed); an offset skips items. next_key is the key of
// the first item after the page, nil at the end. The total is counted when
// asked for or when the limit was left to the default, and only with
// offset paging, as the Cosmos SDK does.
func paginate[T any](items []T, key func(T) []byte, p *PageRequest) ([]T, *PageResponse, error) {
	var req PageRequest
	if p != nil {
		req = *p
	}
	if len(req.Key) > 0 && req.Offset > 0 {
		return nil, nil, errKeyAndOffset
	}
	count := req.CountTotal
	if req.Limit == 0 {
		req.Limit = DefaultLimit
		count = true
	}
	ordered := items
	if req.Reverse {
		ordered = make([]T, len(items))
		for i, it := range items {
			ordered[len(items)-1-i] = it
		}
	}
	start := 0
	if len(req.Key) > 0 {
		count = false
		for start < len(ordered) {
			c := bytes.Compare(key(ordered[start]), req.Key)
			if (!req.Reverse && c >= 0) || (req.Reverse && c <= 0) {
				break
			}
			start++
		}
	} else if req.Offset < uint64(len(ordered)) {
		start = int(req.Offset)
	} else {
		start = len(ordered)
	}
	end := len(ordered)
	if uint64(end-start) > req.Limit {
		end = start + int(req.Limit)
	}
	resp := &PageResponse{}
	if end < len(ordered) {
		resp.NextKey = key(ordered[end])
	}
	if count {
		resp.Total = uint64(len(items))
	}
	return ordered[start:end], resp, nil
}

// addrKey is the paging key of an item listed by address.
func addrKey(a types.Address) []byte { return a[:] }

// parseAddress reads an address given as bech32 under prefix or as 0x hex
// (EIP-55 checked when mixed case); what names the field in errors.
func parseAddress(prefix, what, s string) (types.Address, error) {
	if s == "" {
		return types.Address{}, Errorf(InvalidArgument, "%s cannot be empty", what)
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		a, err := types.ParseAddress(s)
		if err != nil {
			return types.Address{}, Errorf(InvalidArgument, "invalid %s %q: %v", what, s, err)
		}
		return a, nil
	}
	b, err := bech32.DecodePrefix(prefix, s)
	if err == nil && len(b) != len(types.Address{}) {
		err = fmt.Errorf("%d bytes, want 20", len(b))
	}
	if err != nil {
		if errors.Is(err, bech32.ErrPrefix) {
			return types.Address{}, Errorf(InvalidArgument, "invalid %s %q: %v", what, s, err)
		}
		return types.Address{}, Errorf(InvalidArgument, "invalid %s %q: decoding bech32 failed: %v", what, s, err)
	}
	return types.BytesToAddress(b), nil
}

// Bech32 renders a under prefix.
func Bech32(prefix string, a types.Address) string {
	s, _ := bech32.Encode(prefix, a[:]) // a prefix constant and 20 bytes always encode
	return s
}

func accAddr(a types.Address) string { return Bech32(AccountPrefix, a) }
func valAddr(a types.Address) string { return Bech32(ValidatorPrefix, a) }

// Secp256k1PubKey is a compressed secp256k1 public key packed in an Any.
type Secp256k1PubKey struct {
	Key []byte `pb:"1,key"`
}

func (Secp256k1PubKey) ProtoName() string { return "cosmos.crypto.secp256k1.PubKey" }

func pubKeyAny(key []byte) *protobuf.Any {
	if key == nil {
		return nil
	}
	return &protobuf.Any{Msg: Secp256k1PubKey{Key: key}}
}

// typeFiles are the files of the shared types the services use.
var typeFiles = []protobuf.File{
	{Name: "cosmos/base/v1beta1/coin.proto", Package: "cosmos.base.v1beta1", Messages: []protobuf.Message{Coin{}, DecCoin{}}},
	{Name: "cosmos/base/query/v1beta1/pagination.proto", Package: "cosmos.base.query.v1beta1", Messages: []protobuf.Message{PageRequest{}, PageResponse{}}},
	{Name: "cosmos/crypto/secp256k1/keys.proto", Package: "cosmos.crypto.secp256k1", Messages: []protobuf.Message{Secp256k1PubKey{}}},
}
