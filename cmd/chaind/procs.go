package main

import (
	"os"
	"runtime"
)

// setProcs chooses how many goroutines run at once (GOMAXPROCS).
//
// Go's default, one per CPU, assumes the process has the machine to itself.
// A node on a small machine rarely does: its RPC clients, an indexer or a
// load generator take turns on the same cores. When the OS deschedules the
// thread behind one of Go's Ps, the goroutines queued on that P wait until
// the thread runs again, because the other Ps only steal work once their
// own queues are empty (golang/go#20011, #18534). With 32 busy RPC
// connections on 2 shared CPUs that waiting was the whole p99 tail: 5.5 ms
// for eth_blockNumber, 7 ms for eth_call, at p50 under 1.5 ms. With 8 Ps a
// running thread finds the stranded goroutines sooner: p99 2.1 and 4 ms at
// the same throughput, for about 7% more CPU per transaction when block
// production is saturated (more thread switches). Machines with more than
// 4 CPUs keep Go's default; --procs or GOMAXPROCS in the environment decide
// otherwise.
func setProcs(n int) {
	switch {
	case n > 0:
		runtime.GOMAXPROCS(n)
	case os.Getenv("GOMAXPROCS") != "":
	default:
		runtime.GOMAXPROCS(defaultProcs(runtime.GOMAXPROCS(0)))
	}
}

// defaultProcs is the P count for a machine (or CPU quota) of cpus CPUs.
func defaultProcs(cpus int) int {
	if cpus <= 4 {
		return min(4*cpus, 8)
	}
	return cpus
}
