package devload

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
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

// A port another process reserved is not handed out, even while nothing
// listens on it (a node of that process stopped to be started again): the
// lock on its file, taken here through a file of its own as another
// process would, turns reserve down; a port reserved here stays ours.
func TestReservedPortsSkipped(t *testing.T) {
	ps, err := FreePorts("127.0.0.1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if reserve(ps[0]) {
		t.Fatalf("port %d, reserved by this process, reserved again", ps[0])
	}
	other := 10000 + (ps[0]-10000+1)%(ephemeralLow()-10000)
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "chaind-ports", strconv.Itoa(other)), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Skipf("port %d's lock is held elsewhere: %v", other, err)
	}
	if reserve(other) {
		t.Fatalf("port %d, locked by another holder, reserved", other)
	}
}
