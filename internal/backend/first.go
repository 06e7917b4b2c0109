package backend

// FirstBlocker is implemented by a backend whose chain may start above
// block 0: a fork of another chain begins at the block after its fork
// point, and blocks below it are not stored.
type FirstBlocker interface {
	FirstBlock() uint64
}

// FirstBlock returns the number of the first block b stores: 0 unless b
// says otherwise.
func FirstBlock(b any) uint64 {
	if f, ok := b.(FirstBlocker); ok {
		return f.FirstBlock()
	}
	return 0
}
