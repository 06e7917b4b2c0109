package main

import "testing"

func TestParseHistoryKeep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		bad  bool
	}{
		{"all", 0, false}, {"", 0, false}, {"90000", 90000, false},
		{"0", 0, true}, {"-1", 0, true}, {"many", 0, true}, {"1e6", 0, true},
	} {
		got, err := parseHistoryKeep(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseHistoryKeep(%q) = %d, %v", tc.in, got, err)
		}
	}
}
