// Package evm is chaind's Ethereum Virtual Machine: the interpreter, one
// operation table per fork, gas accounting and transaction processing
// (ApplyMessage). It reaches the world state only through the StateDB
// interface defined here, so that state/ and the EVM can evolve apart.
package evm

import (
	"fmt"
	"strings"
)

// Fork names a set of EVM rules. Forks are ordered: a later fork includes
// every change of the earlier ones, so rules are checked with >=.
type Fork int

// The forks the EVM implements, oldest first.
const (
	Frontier Fork = iota
	Homestead
	TangerineWhistle // EIP-150
	SpuriousDragon   // EIP-158/161
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
	numForks
)

var forkNames = [numForks]string{
	"Frontier", "Homestead", "TangerineWhistle", "SpuriousDragon", "Byzantium",
	"Constantinople", "Petersburg", "Istanbul", "Berlin", "London", "Paris",
	"Shanghai", "Cancun", "Prague", "Osaka",
}

// String returns the canonical fork name.
func (f Fork) String() string {
	if f < 0 || f >= numForks {
		return fmt.Sprintf("Fork(%d)", int(f))
	}
	return forkNames[f]
}

// ForkByName maps a fork name as written in the ethereum-tests vectors
// (EIP150, EIP158, ConstantinopleFix, Merge, ...) or as printed by String
// to a Fork. Matching ignores case.
func ForkByName(name string) (Fork, bool) {
	switch strings.ToLower(name) {
	case "frontier":
		return Frontier, true
	case "homestead":
		return Homestead, true
	case "eip150", "tangerinewhistle":
		return TangerineWhistle, true
	case "eip158", "spuriousdragon":
		return SpuriousDragon, true
	case "byzantium":
		return Byzantium, true
	case "constantinople":
		return Constantinople, true
	case "constantinoplefix", "petersburg":
		return Petersburg, true
	case "istanbul":
		return Istanbul, true
	case "berlin":
		return Berlin, true
	case "london":
		return London, true
	case "paris", "merge":
		return Paris, true
	case "shanghai":
		return Shanghai, true
	case "cancun":
		return Cancun, true
	case "prague":
		return Prague, true
	case "osaka":
		return Osaka, true
	}
	return 0, false
}
