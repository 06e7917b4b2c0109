package devload

import (
	"net"
	"strconv"
	"testing"
)

// The ports are distinct, below the ephemeral range (where no outgoing
// connection can take them) and bindable once returned.
func TestFreePorts(t *testing.T) {
	ps, err := FreePorts("127.0.0.1", 30)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	lo := ephemeralLow()
	for _, p := range ps {
		if seen[p] {
			t.Fatalf("port %d returned twice", p)
		}
		seen[p] = true
		if p < 10000 || p >= lo {
			t.Fatalf("port %d outside [10000, %d)", p, lo)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d not free after return: %v", p, err)
		}
		l.Close()
	}
}
