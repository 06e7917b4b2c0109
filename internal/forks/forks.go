// Package forks names the protocol upgrades of the Ethereum rules chaind
// runs. It is the one fork enum of the node: the EVM picks its operation
// table by it, the transaction signer its signature rules, and the chain
// configuration maps block numbers and times onto it.
package forks

import (
	"fmt"
	"strings"
)

// Fork names a set of rules. Forks are ordered: a later fork includes every
// change of the earlier ones, so rules are checked with >=.
type Fork int

// The forks chaind implements, oldest first.
const (
	Frontier Fork = iota
	Homestead
	TangerineWhistle // EIP-150
	SpuriousDragon   // EIP-155 replay protection, EIP-158/161 state clearing
	Byzantium
	Constantinople
	Petersburg // ConstantinopleFix: Constantinople without EIP-1283
	Istanbul
	Berlin
	London
	Paris // the Merge
	Shanghai
	Cancun
	Prague
	Osaka

	// Count is the number of forks; tables indexed by fork have this size.
	Count = iota
	// Latest is the newest fork implemented.
	Latest = Osaka
)

var names = [Count]string{
	"Frontier", "Homestead", "TangerineWhistle", "SpuriousDragon", "Byzantium",
	"Constantinople", "Petersburg", "Istanbul", "Berlin", "London", "Paris",
	"Shanghai", "Cancun", "Prague", "Osaka",
}

// String returns the canonical fork name.
func (f Fork) String() string {
	if !f.Valid() {
		return fmt.Sprintf("Fork(%d)", int(f))
	}
	return names[f]
}

// Valid reports whether f is one of the forks above.
func (f Fork) Valid() bool { return f >= 0 && f < Count }

// ByName maps a fork name as written in the ethereum-tests vectors (EIP150,
// EIP158, ConstantinopleFix, Merge, ...) or as printed by String to a Fork.
// Matching ignores case.
func ByName(name string) (Fork, bool) {
	switch strings.ToLower(name) {
	case "eip150":
		return TangerineWhistle, true
	case "eip158":
		return SpuriousDragon, true
	case "constantinoplefix":
		return Petersburg, true
	case "merge":
		return Paris, true
	}
	for i, n := range names {
		if strings.EqualFold(n, name) {
			return Fork(i), true
		}
	}
	return 0, false
}
