package types

import "math/rand"

// Pick draws from a global source in a package the consensus core imports.
func Pick(n int) int { return rand.Intn(n) }
