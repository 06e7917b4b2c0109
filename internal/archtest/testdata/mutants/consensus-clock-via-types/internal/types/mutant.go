package types

import "time"

// Stamp reads the wall clock in a package the consensus core imports.
func Stamp() int64 { return time.Now().UnixNano() }
