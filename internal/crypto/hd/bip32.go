package hd

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// HardenedOffset is added to a child index to select hardened derivation.
const HardenedOffset uint32 = 1 << 31

var (
	ErrSeedLength = errors.New("hd: seed must be 16 to 64 bytes")
	// ErrInvalidChild reports the ~2^-127 case where a derivation step gives
	// no valid key; BIP-32 says to move on to the next index.
	ErrInvalidChild = errors.New("hd: derived key is invalid, use the next index")
	ErrDepth        = errors.New("hd: derivation deeper than 255 levels")
)

// ExtendedKey is a BIP-32 extended private key: a private key plus the chain
// code that makes its children unpredictable without it.
type ExtendedKey struct {
	key       secp256k1.ModNScalar
	chainCode [32]byte
	depth     uint8
	parentFP  [4]byte
	childNum  uint32
}

// NewMaster derives the master key from a seed: HMAC-SHA512 keyed with
// "Bitcoin seed"; the left half is the key, the right half the chain code.
func NewMaster(seed []byte) (*ExtendedKey, error) {
	if len(seed) < 16 || len(seed) > 64 {
		return nil, ErrSeedLength
	}
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	sum := mac.Sum(nil)
	k := &ExtendedKey{}
	if overflow := k.key.SetByteSlice(sum[:32]); overflow || k.key.IsZero() {
		return nil, ErrInvalidChild
	}
	copy(k.chainCode[:], sum[32:])
	return k, nil
}

// Child derives child number i (add HardenedOffset for a hardened child).
// Hardened children hash the parent private key, normal ones its public key,
// so that normal children can also be derived from the extended public key.
func (k *ExtendedKey) Child(i uint32) (*ExtendedKey, error) {
	if k.depth == 255 {
		return nil, ErrDepth
	}
	mac := hmac.New(sha512.New, k.chainCode[:])
	if i >= HardenedOffset {
		var data [33]byte
		k.key.PutBytesUnchecked(data[1:])
		mac.Write(data[:])
	} else {
		mac.Write(k.publicKey().SerializeCompressed())
	}
	var idx [4]byte
	binary.BigEndian.PutUint32(idx[:], i)
	mac.Write(idx[:])
	sum := mac.Sum(nil)

	var il secp256k1.ModNScalar
	if overflow := il.SetByteSlice(sum[:32]); overflow {
		return nil, fmt.Errorf("%w (child %d)", ErrInvalidChild, i)
	}
	child := &ExtendedKey{depth: k.depth + 1, childNum: i, parentFP: k.fingerprint()}
	child.key.Add2(&il, &k.key)
	if child.key.IsZero() {
		return nil, fmt.Errorf("%w (child %d)", ErrInvalidChild, i)
	}
	copy(child.chainCode[:], sum[32:])
	return child, nil
}

// Derive follows a path of child indices from k.
func (k *ExtendedKey) Derive(path []uint32) (*ExtendedKey, error) {
	cur := k
	for _, i := range path {
		next, err := cur.Child(i)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// PrivateKey returns the key as a secp256k1 private key.
func (k *ExtendedKey) PrivateKey() *secp256k1.PrivateKey {
	s := k.key
	return secp256k1.NewPrivateKey(&s)
}

// ChainCode returns the 32-byte chain code.
func (k *ExtendedKey) ChainCode() [32]byte { return k.chainCode }

// Depth is the number of derivation steps from the master key.
func (k *ExtendedKey) Depth() uint8 { return k.depth }

// publicKey uses crypto.PublicKey, which avoids the start-up cost of the
// library's precomputed table (dev mode derives keys while starting).
func (k *ExtendedKey) publicKey() *secp256k1.PublicKey {
	return crypto.PublicKey(secp256k1.NewPrivateKey(&k.key))
}

// fingerprint is the first 4 bytes of HASH160 of the compressed public key.
func (k *ExtendedKey) fingerprint() (fp [4]byte) {
	sh := sha256.Sum256(k.publicKey().SerializeCompressed())
	d := crypto.Ripemd160(sh[:])
	copy(fp[:], d[:])
	return fp
}

// String renders the key in the standard Base58Check "xprv" form
// (mainnet version bytes), which is how BIP-32 test vectors are written.
func (k *ExtendedKey) String() string {
	return base58Check(k.serialize([4]byte{0x04, 0x88, 0xad, 0xe4}, true))
}

// PublicString renders the matching extended public key ("xpub").
func (k *ExtendedKey) PublicString() string {
	return base58Check(k.serialize([4]byte{0x04, 0x88, 0xb2, 0x1e}, false))
}

func (k *ExtendedKey) serialize(version [4]byte, private bool) []byte {
	out := make([]byte, 0, 78)
	out = append(out, version[:]...)
	out = append(out, k.depth)
	out = append(out, k.parentFP[:]...)
	out = binary.BigEndian.AppendUint32(out, k.childNum)
	out = append(out, k.chainCode[:]...)
	if private {
		kb := k.key.Bytes()
		out = append(out, 0)
		out = append(out, kb[:]...)
	} else {
		out = append(out, k.publicKey().SerializeCompressed()...)
	}
	return out
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Check appends a 4-byte double-SHA-256 checksum and encodes in
// base 58, keeping one '1' per leading zero byte.
func base58Check(payload []byte) string {
	h1 := sha256.Sum256(payload)
	h2 := sha256.Sum256(h1[:])
	data := append(append([]byte(nil), payload...), h2[:4]...)

	zeros := 0
	for zeros < len(data) && data[zeros] == 0 {
		zeros++
	}
	// Repeated division of the big-endian number by 58; digits come out
	// least significant first.
	num := append([]byte(nil), data[zeros:]...)
	var digits []byte
	for len(num) > 0 {
		var rem int
		quot := num[:0]
		for _, b := range num {
			acc := rem<<8 | int(b)
			q := acc / 58
			rem = acc % 58
			if len(quot) > 0 || q != 0 {
				quot = append(quot, byte(q))
			}
		}
		digits = append(digits, base58Alphabet[rem])
		num = quot
	}
	out := make([]byte, 0, zeros+len(digits))
	for i := 0; i < zeros; i++ {
		out = append(out, '1')
	}
	for i := len(digits) - 1; i >= 0; i-- {
		out = append(out, digits[i])
	}
	return string(out)
}
