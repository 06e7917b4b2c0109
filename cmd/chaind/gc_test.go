package main

import (
	"runtime/debug"
	"testing"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{0, 64 * mib, 1600},         // unknown live heap: the cap
		{1 * mib, 64 * mib, 1600},   // tiny heap: capped so the 4 MiB floor stays within 64 MiB
		{8 * mib, 64 * mib, 800},    // 8 MiB live, 64 MiB more before the next collection
		{64 * mib, 64 * mib, 100},   // from here on Go's default rule
		{1024 * mib, 64 * mib, 100}, // never below the default
		{8 * mib, 2 * mib, 100},     // a headroom smaller than the default leaves the default
		{3 * mib, 256 * mib, 6400},  // a larger headroom raises the cap
	} {
		if got := gcPercentFor(c.live, c.headroom); got != c.want {
			t.Errorf("gcPercentFor(%d MiB, %d MiB) = %d, want %d", c.live/mib, c.headroom/mib, got, c.want)
		}
	}
}

// The default soft memory limit follows the store's configured bound;
// --gc.memlimit 0 and GOMEMLIMIT leave the runtime's alone.
func TestStartMemLimit(t *testing.T) {
	const mib = 1 << 20
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	for _, c := range []struct {
		name              string
		limit, cache      int
		env               string
		want, wantRuntime int64
	}{
		{"default at --cache 512", -1, 512, "", 912 * mib, 912 * mib},
		{"default at --cache 64", -1, 64, "", 464 * mib, 464 * mib},
		{"given", 2048, 512, "", 2048 * mib, 2048 * mib},
		{"off", 0, 512, "", 0, prev},
		{"GOMEMLIMIT wins", -1, 512, "3GiB", 0, prev},
	} {
		t.Run(c.name, func(t *testing.T) {
			debug.SetMemoryLimit(prev)
			t.Setenv("GOMEMLIMIT", c.env)
			if got := startMemLimit(c.limit, c.cache); got != c.want {
				t.Errorf("startMemLimit(%d, %d) = %d MiB, want %d MiB", c.limit, c.cache, got/mib, c.want/mib)
			}
			if got := debug.SetMemoryLimit(-1); got != c.wantRuntime {
				t.Errorf("runtime limit %d MiB, want %d MiB", got/mib, c.wantRuntime/mib)
			}
		})
	}
}
