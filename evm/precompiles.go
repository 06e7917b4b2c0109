package evm

import (
	"errors"

	"github.com/chaind/chaind/evm/precompile"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
)

// Precompile is a native contract at a fixed address (see evm/precompile).
type Precompile = precompile.Contract

// ErrPrecompileMissing is kept for callers that test for a missing
// precompile; unimplemented precompiles report precompile.ErrNotImplemented
// and are listed in Result.MissingPrecompiles.
var ErrPrecompileMissing = precompile.ErrNotImplemented

type precompileSet struct {
	set      *precompile.Set
	override map[types.Address]Precompile // replaces set when non-nil
	addrs    []types.Address
	// warm holds the fork's own precompiles, warm in every transaction
	// from Berlin on (EIP-2929); an override keeps them (see SetPrecompiles).
	warm *precompile.Set
}

// isWarm reports whether addr is one of the fork's precompile addresses,
// which EIP-2929 makes warm from the start of every transaction. The EVM
// answers them by this rule rather than putting them in the state's
// access list per transaction: the list starts near empty (a call's
// setup skips eighteen map inserts and their journal entries), and no
// revert can take them out of it, so the two are the same rule.
func (s *precompileSet) isWarm(addr types.Address) bool {
	_, ok := s.warm.Get(addr)
	return ok
}

func (s *precompileSet) get(addr types.Address) (Precompile, bool) {
	if s.override != nil {
		p, ok := s.override[addr]
		return p, ok
	}
	return s.set.Get(addr)
}

// PrecompilesFor returns a fresh map of the precompiles active under fork,
// for callers that edit the set (eth_simulateV1 overrides).
func PrecompilesFor(f forks.Fork) map[types.Address]Precompile {
	if f < 0 || f >= forks.Count {
		f = forks.Count - 1
	}
	s := precompileSets[f]
	m := make(map[types.Address]Precompile, len(s.addrs))
	for _, a := range s.addrs {
		p, _ := s.set.Get(a)
		m[a] = p
	}
	return m
}

// SetPrecompiles replaces the precompiles of this EVM only: calls to the
// map's addresses run the given contracts; any other address runs its code.
// The addresses warm at the start of a transaction stay the fork's own
// precompile addresses, as go-ethereum keeps them: an override changes
// what runs, not the EIP-2929 access list.
func (evm *EVM) SetPrecompiles(m map[types.Address]Precompile) {
	fs := precompilesFor(evm.fork)
	s := &precompileSet{override: make(map[types.Address]Precompile, len(m)), addrs: fs.addrs, warm: fs.warm}
	for a, p := range m {
		s.override[a] = p
	}
	evm.precs = s
}

var precompileSets [forks.Count]*precompileSet

func precompilesFor(f forks.Fork) *precompileSet { return precompileSets[f] }

func init() {
	for f := forks.Frontier; f < forks.Count; f++ {
		var s *precompile.Set
		switch {
		case f >= forks.Osaka:
			s = precompile.Osaka
		case f >= forks.Prague:
			s = precompile.Prague
		case f >= forks.Cancun:
			s = precompile.Cancun
		case f >= forks.Berlin:
			s = precompile.Berlin
		case f >= forks.Istanbul:
			s = precompile.Istanbul
		case f >= forks.Byzantium:
			s = precompile.Byzantium
		default:
			s = precompile.Homestead
		}
		precompileSets[f] = &precompileSet{set: s, addrs: s.Addresses(), warm: s}
	}
}

func isNotImplemented(err error) bool { return errors.Is(err, precompile.ErrNotImplemented) }
