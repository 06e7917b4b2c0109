package hd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrPath reports a malformed derivation path.
var ErrPath = errors.New("hd: invalid derivation path")

// EthereumPath is the BIP-44 path of account i for Ethereum (coin type 60),
// the one MetaMask, Hardhat and anvil use.
func EthereumPath(i uint32) []uint32 {
	return []uint32{44 + HardenedOffset, 60 + HardenedOffset, HardenedOffset, 0, i}
}

// ParsePath parses a path such as "m/44'/60'/0'/0/0". Hardened steps are
// marked with ' or h (or H); each index must be below 2^31.
func ParsePath(s string) ([]uint32, error) {
	parts := strings.Split(s, "/")
	if parts[0] != "m" && parts[0] != "M" {
		return nil, fmt.Errorf("%w: %q must start with m", ErrPath, s)
	}
	path := make([]uint32, 0, len(parts)-1)
	for _, p := range parts[1:] {
		hardened := false
		if n := len(p); n > 0 && (p[n-1] == '\'' || p[n-1] == 'h' || p[n-1] == 'H') {
			hardened = true
			p = p[:n-1]
		}
		if p == "" || (len(p) > 1 && p[0] == '0') || p[0] == '+' || p[0] == '-' {
			return nil, fmt.Errorf("%w: bad step in %q", ErrPath, s)
		}
		v, err := strconv.ParseUint(p, 10, 31)
		if err != nil {
			return nil, fmt.Errorf("%w: bad step %q in %q", ErrPath, p, s)
		}
		i := uint32(v)
		if hardened {
			i += HardenedOffset
		}
		path = append(path, i)
	}
	if len(path) > 255 {
		return nil, fmt.Errorf("%w: more than 255 steps", ErrPath)
	}
	return path, nil
}

// FormatPath renders a path in the form ParsePath reads, with ' for
// hardened steps.
func FormatPath(path []uint32) string {
	var b strings.Builder
	b.WriteString("m")
	for _, i := range path {
		b.WriteByte('/')
		if i >= HardenedOffset {
			b.WriteString(strconv.FormatUint(uint64(i-HardenedOffset), 10))
			b.WriteByte('\'')
		} else {
			b.WriteString(strconv.FormatUint(uint64(i), 10))
		}
	}
	return b.String()
}
