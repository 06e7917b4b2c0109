package p2p

import (
	"errors"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/version"
)

// The minVersion rule at the handshake: a peer below the network's
// minVersion is refused, and a node below the minVersion its peer's chain
// states is refused by itself; each error names both releases. A release
// at or above it, or a chain without one, connects.
func TestHandshakeMinVersion(t *testing.T) {
	chain := func(software, min string) Chain {
		c := Chain{ChainID: testChain.ChainID, Genesis: testChain.Genesis, Software: software}
		if min != "" {
			c.MinVersion = func() string { return min }
		}
		return c
	}
	for _, c := range []struct {
		name   string
		us, it Chain
		want   []string // in the error; nil: connects
	}{
		{"peer below our minVersion", chain("1.3.0", "1.3.0"), chain("1.2.9", ""), []string{`"1.2.9"`, "minVersion 1.3.0"}},
		{"we are below the peer's", chain("1.2.0", ""), chain("1.4.0", "1.4.0"), []string{"runs chaind 1.2.0", "minVersion 1.4.0"}},
		{"peer of this binary", chain("1.3.0", "99.0.0"), chain("", ""), []string{`"` + version.Binary + `"`, "minVersion 99.0.0"}},
		{"at minVersion", chain("1.3.0", "1.3.0"), chain("1.3.0-dev", "1.3.0"), nil},
		{"above", chain("1.3.0", "1.2.0"), chain("2.0.0", "1.3.0"), nil},
		{"no minVersion", chain("", ""), chain("", ""), nil},
	} {
		_, err := pipeHandshake(t, c.us, c.it)
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != nil && !errors.Is(err, ErrBelowMinVersion):
			t.Errorf("%s: err %v, want ErrBelowMinVersion", c.name, err)
		case c.want != nil:
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %q does not say %q", c.name, err, w)
				}
			}
		}
	}
}
