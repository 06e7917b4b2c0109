package main

import "testing"

// --p2p.external takes only an address a peer on another machine can dial.
func TestCheckExternalAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"203.0.113.7:26656", true},
		{"node.example.org:26656", true},
		{"[2001:db8::1]:26656", true},
		{"0.0.0.0:26656", false},
		{"[::]:26656", false},
		{":26656", false},
		{"203.0.113.7", false},
		{"203.0.113.7:0", false},
		{"203.0.113.7:65536", false},
		{"203.0.113.7:p2p", false},
	} {
		if err := checkExternalAddr(tc.addr); (err == nil) != tc.ok {
			t.Errorf("checkExternalAddr(%q) = %v, want ok %v", tc.addr, err, tc.ok)
		}
	}
}
