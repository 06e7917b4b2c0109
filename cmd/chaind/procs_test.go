package main

import "testing"

func TestDefaultProcs(t *testing.T) {
	for cpus, want := range map[int]int{1: 4, 2: 8, 3: 8, 4: 8, 5: 5, 16: 16} {
		if got := defaultProcs(cpus); got != want {
			t.Errorf("defaultProcs(%d) = %d, want %d", cpus, got, want)
		}
	}
}
