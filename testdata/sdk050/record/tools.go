//go:build tools

// This file only keeps simd's packages in go.mod and go.sum (go mod tidy
// reads every build tag): ../record.sh builds cosmossdk.io/simapp/simd
// from this module.
package main

import _ "cosmossdk.io/simapp/simd/cmd"
