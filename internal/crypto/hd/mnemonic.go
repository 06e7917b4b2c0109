// Package hd derives secp256k1 keys the way wallets do: BIP-39 mnemonic
// sentences, BIP-32 hierarchical deterministic keys and BIP-44 paths such as
// m/44'/60'/0'/0/0. It lets a dev node hand out the same accounts as other
// Ethereum tools for the same mnemonic.
package hd

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

// englishList is the BIP-39 English wordlist, one word per line in the
// standard order (its SHA-256 is checked by the tests).
//
//go:embed english.txt
var englishList string

var (
	wordlist  = strings.Fields(englishList)
	wordIndex = func() map[string]int {
		m := make(map[string]int, len(wordlist))
		for i, w := range wordlist {
			m[w] = i
		}
		return m
	}()
)

var (
	ErrWordCount     = errors.New("hd: mnemonic must have 12, 15, 18, 21 or 24 words")
	ErrUnknownWord   = errors.New("hd: word not in the BIP-39 English wordlist")
	ErrChecksum      = errors.New("hd: mnemonic checksum mismatch")
	ErrEntropyLength = errors.New("hd: entropy must be 16, 20, 24, 28 or 32 bytes")
	ErrNotASCII      = errors.New("hd: non-ASCII mnemonic or passphrase (NFKD normalisation is not supported)")
)

// Wordlist returns a copy of the BIP-39 English wordlist.
func Wordlist() []string { return append([]string(nil), wordlist...) }

// ValidateMnemonic checks the word count, that every word is in the English
// wordlist and that the embedded checksum matches the entropy.
func ValidateMnemonic(mnemonic string) error {
	_, err := MnemonicToEntropy(mnemonic)
	return err
}

// MnemonicToEntropy decodes a mnemonic into the entropy it encodes,
// verifying its checksum.
func MnemonicToEntropy(mnemonic string) ([]byte, error) {
	words := strings.Fields(mnemonic)
	n := len(words)
	if n < 12 || n > 24 || n%3 != 0 {
		return nil, fmt.Errorf("%w (got %d)", ErrWordCount, n)
	}
	// Each word carries 11 bits: ENT entropy bits followed by ENT/32
	// checksum bits, with 33·n/3 = 11·n total.
	bitLen := n * 11
	csBits := bitLen / 33
	entBytes := (bitLen - csBits) / 8
	buf := make([]byte, (bitLen+7)/8)
	for i, w := range words {
		idx, ok := wordIndex[w]
		if !ok {
			return nil, fmt.Errorf("%w: word %d %q", ErrUnknownWord, i+1, w)
		}
		for b := 0; b < 11; b++ {
			if idx&(1<<(10-b)) != 0 {
				pos := i*11 + b
				buf[pos/8] |= 0x80 >> (pos % 8)
			}
		}
	}
	entropy := buf[:entBytes]
	sum := sha256.Sum256(entropy)
	// Compare the csBits (≤ 8) checksum bits that follow the entropy.
	want := sum[0] >> (8 - csBits)
	got := buf[entBytes] >> (8 - csBits)
	if want != got {
		return nil, ErrChecksum
	}
	return append([]byte(nil), entropy...), nil
}

// NewMnemonic encodes entropy (16 to 32 bytes, a multiple of 4) as a
// mnemonic sentence.
func NewMnemonic(entropy []byte) (string, error) {
	l := len(entropy)
	if l < 16 || l > 32 || l%4 != 0 {
		return "", ErrEntropyLength
	}
	csBits := l * 8 / 32
	sum := sha256.Sum256(entropy)
	buf := append(append([]byte(nil), entropy...), sum[0])
	n := (l*8 + csBits) / 11
	words := make([]string, n)
	for i := range words {
		idx := 0
		for b := 0; b < 11; b++ {
			pos := i*11 + b
			idx <<= 1
			if buf[pos/8]&(0x80>>(pos%8)) != 0 {
				idx |= 1
			}
		}
		words[i] = wordlist[idx]
	}
	return strings.Join(words, " "), nil
}

// Seed derives the 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512 with 2048
// rounds over the mnemonic, salted with "mnemonic" + passphrase. Words are
// re-joined with single spaces, as wallets do. The checksum is not checked
// here (BIP-39 allows seeds from any sentence); call ValidateMnemonic first
// for user input.
//
// BIP-39 asks for NFKD-normalised text. For ASCII that is the identity;
// other input is refused rather than silently hashed un-normalised.
func Seed(mnemonic, passphrase string) ([]byte, error) {
	if !isASCII(mnemonic) || !isASCII(passphrase) {
		return nil, ErrNotASCII
	}
	sentence := strings.Join(strings.Fields(mnemonic), " ")
	return pbkdf2.Key(sha512.New, sentence, []byte("mnemonic"+passphrase), 2048, 64)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
