package backend

// Retention says how much history the node keeps, for eth_capabilities.
type Retention interface {
	// StateRetention is the number of recent blocks whose state stays
	// readable (the head's included); 0 means every block's.
	StateRetention() uint64
}
