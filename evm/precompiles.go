package evm

import (
	"errors"

	"github.com/chaind/chaind/evm/precompile"
	"github.com/chaind/chaind/internal/types"
)

// Precompile is a native contract at a fixed address (see evm/precompile).
type Precompile = precompile.Contract

// ErrPrecompileMissing is kept for callers that test for a missing
// precompile; unimplemented precompiles report precompile.ErrNotImplemented
// and are listed in Result.MissingPrecompiles.
var ErrPrecompileMissing = precompile.ErrNotImplemented

type precompileSet struct {
	set   *precompile.Set
	addrs []types.Address
}

func (s *precompileSet) get(addr types.Address) (Precompile, bool) { return s.set.Get(addr) }

var precompileSets [numForks]*precompileSet

func precompilesFor(f Fork) *precompileSet { return precompileSets[f] }

func init() {
	for f := Frontier; f < numForks; f++ {
		var s *precompile.Set
		switch {
		case f >= Osaka:
			s = precompile.Osaka
		case f >= Prague:
			s = precompile.Prague
		case f >= Cancun:
			s = precompile.Cancun
		case f >= Berlin:
			s = precompile.Berlin
		case f >= Istanbul:
			s = precompile.Istanbul
		case f >= Byzantium:
			s = precompile.Byzantium
		default:
			s = precompile.Homestead
		}
		precompileSets[f] = &precompileSet{set: s, addrs: s.Addresses()}
	}
}

func isNotImplemented(err error) bool { return errors.Is(err, precompile.ErrNotImplemented) }
