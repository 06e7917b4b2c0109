package main

import (
	"strings"
	"testing"
	"time"
)

// TestBlockRate: the median block's rate is given at a block time, and
// not at all when blocks are mined on demand (--block-time 0 printed
// "+Inf tx/s at 0s blocks").
func TestBlockRate(t *testing.T) {
	for _, tc := range []struct {
		med       int
		blockTime time.Duration
		want      string
	}{
		{6041, time.Second, "median 6041 tx per block = 6041 tx/s at 1s blocks"},
		{300, 2 * time.Second, "median 300 tx per block = 150 tx/s at 2s blocks"},
		{1, 0, "median 1 tx per block (blocks mined on demand)"},
	} {
		got := blockRate(tc.med, tc.blockTime)
		if got != tc.want {
			t.Errorf("blockRate(%d, %s) = %q, want %q", tc.med, tc.blockTime, got, tc.want)
		}
		if strings.Contains(got, "Inf") {
			t.Errorf("blockRate(%d, %s) = %q", tc.med, tc.blockTime, got)
		}
	}
}
