package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcFloor keeps the garbage collector from running more often than once
// per headroom bytes of allocation. Go's default (GOGC=100) sets the next
// collection at twice the live heap, and a node's live heap is small (a
// --dev node holds a few MiB) while its RPC port allocates tens of MiB a
// second under load: that was a collection every few tens of
// milliseconds, each taking one of the machine's cores for its mark phase,
// and it showed as a doubled p99 latency. Above headroom×(100/GOGC) of live
// heap the rule is Go's own again, so memory stays proportional to the
// working set. GOGC set in the environment always wins.
//
// The headroom is not free either: every byte of it is memory the
// allocator walks through, new spans to set up and cache lines to fetch,
// between two collections. With 64 MiB a --dev node spent 215-275 µs of
// CPU per sequential eth_getBalance (a fifth of its profile in setting up
// fresh spans, runtime.mcentral.grow and the clearing under it) against
// 70-185 µs with 16 MiB and 105-165 µs with Go's default, in alternating
// runs on the same (loaded, 2-CPU) machine, p50 and p99 falling with it
// (issue 31's getBalance tail). defaultGCHeadroomMiB is the middle: a quarter of the
// collections Go's default would run at a small live heap, in a span of
// memory that stays warm.
const defaultGCHeadroomMiB = 16

type gcFloor struct {
	headroom uint64
	pct      int
	sample   []metrics.Sample
}

func startGCFloor(headroom uint64) {
	if headroom == 0 || os.Getenv("GOGC") != "" {
		return
	}
	f := &gcFloor{headroom: headroom, pct: 100, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.tune()
	f.arm()
}

// arm runs tune once after the next collection, and re-arms itself, so the
// percentage follows the live heap each cycle.
func (f *gcFloor) arm() {
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(f *gcFloor) { f.tune(); f.arm() }, f)
}

func (f *gcFloor) tune() {
	metrics.Read(f.sample)
	live := uint64(0)
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		live = f.sample[0].Value.Uint64()
	}
	pct := gcPercentFor(live, f.headroom)
	// SetGCPercent is cheap but recomputes the pacer; skip small changes.
	if pct < f.pct*9/10 || pct > f.pct*11/10 {
		debug.SetGCPercent(pct)
		f.pct = pct
	}
}

// gcPercentFor is the GOGC that leaves headroom bytes between collections
// for a live heap of live bytes, never below Go's default of 100. The
// runtime's own floor, a 4 MiB heap, is scaled by the percentage too, so
// the percentage is capped where that floor would exceed the headroom.
func gcPercentFor(live, headroom uint64) int {
	most := max(100, headroom*100/(4<<20))
	if live == 0 {
		return int(most)
	}
	return int(min(max(headroom*100/live, 100), most))
}

// restOfNodeMiB is the Go memory the soft limit leaves beside the store's
// bound (--cache plus its two memtables) for everything else: pool, RPC
// answers, EVM, consensus. A 10M-account node under a transfer load held
// about 30 MiB of it live (issue 31's scale run), so this is ample room;
// the limit is soft, and above it the runtime caps the collector's CPU
// rather than fail.
const restOfNodeMiB = 384

// memLimitFor is the default soft memory limit of a node whose block cache
// is cacheMiB: without one, Go lets the heap grow to twice the live heap
// before collecting, and a full cache of 512 MiB showed as 1.5 GiB of RSS.
func memLimitFor(cacheMiB int) int64 {
	return int64(cacheMiB+2*8+restOfNodeMiB) << 20
}

// startMemLimit sets the runtime's soft memory limit to limitMiB (0: none,
// negative: memLimitFor(cacheMiB)). GOMEMLIMIT set in the environment
// always wins. It returns the limit set, in bytes (0: none).
func startMemLimit(limitMiB, cacheMiB int) int64 {
	if limitMiB == 0 || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit := int64(limitMiB) << 20
	if limitMiB < 0 {
		limit = memLimitFor(cacheMiB)
	}
	debug.SetMemoryLimit(limit)
	return limit
}
