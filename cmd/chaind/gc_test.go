package main

import "testing"

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
