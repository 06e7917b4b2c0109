package backend

// StateError is implemented by a State whose reads can fail after it is
// opened (a forked chain's state, read from its upstream on first touch):
// Err returns the first failure, and values read after it are void.
type StateError interface {
	Err() error
}

// ReadErr returns the read failure of st, if it has one.
func ReadErr(st State) error {
	if e, ok := st.(StateError); ok {
		return e.Err()
	}
	return nil
}
