// Package version is the binary's own version and the order of versions:
// what `chaind version` prints, what the network account's
// activeVersion, latestVersion and minVersion are compared with (a node
// below minVersion refuses to sign and to connect), and what a
// governance upgrade plan names (a node below it halts at the plan's
// height). A version is major.minor.patch, with an optional leading "v"
// and an optional pre-release or build suffix ("-dev", "+abc"), which the
// order ignores: 1.3.0-dev counts as 1.3.0, so a build of the release
// being prepared may join the network that release is for.
package version

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Binary is this build's version, set at link time by the Makefile
// (-X github.com/chaind/chaind/internal/version.Binary=...).
var Binary = "1.0.0-dev"

// ErrInvalid is returned for a string that is not a version.
var ErrInvalid = errors.New("invalid version")

// V is a parsed version.
type V struct{ Major, Minor, Patch uint64 }

func (v V) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Parse reads a version.
func Parse(s string) (V, error) {
	core := strings.TrimPrefix(s, "v")
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return V{}, fmt.Errorf("%w %q: want major.minor.patch", ErrInvalid, s)
	}
	var n [3]uint64
	for i, p := range parts {
		x, err := strconv.ParseUint(p, 10, 32)
		if err != nil || (len(p) > 1 && p[0] == '0') {
			return V{}, fmt.Errorf("%w %q: %q is not a number", ErrInvalid, s, p)
		}
		n[i] = x
	}
	return V{n[0], n[1], n[2]}, nil
}

// Compare orders a and b: -1, 0 or +1.
func (a V) Compare(b V) int {
	for _, d := range [][2]uint64{{a.Major, b.Major}, {a.Minor, b.Minor}, {a.Patch, b.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Below reports whether version have is older than want. An empty want
// asks for nothing; an unparsable one (a genesis may name any string) is
// never reached by any binary, so have is below it.
func Below(have, want string) bool {
	if want == "" {
		return false
	}
	w, err := Parse(want)
	if err != nil {
		return true
	}
	h, err := Parse(have)
	if err != nil {
		return true
	}
	return h.Compare(w) < 0
}
