package consensus

import tm "time"

// stamp reads the wall clock through an aliased import of time.
func stamp() int64 { return tm.Now().UnixNano() }
