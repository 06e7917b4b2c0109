package relay

import (
	"testing"

	"github.com/chaind/chaind/consensus"
)

// A peer that floods the driver with large messages while the driver is
// busy must not grow the inbox past its byte bound: the oldest messages are
// shed, the newest kept in order, and each is handed over once.
func TestInboxBoundedInBytes(t *testing.T) {
	cases := []struct {
		name               string
		maxCount, maxBytes int
		sizes              []int
		wantKept           int // newest messages kept
	}{
		{"bytes bind", 100, 10 << 20, repeat(4<<20, 50), 2},
		{"count binds", 3, 1 << 30, repeat(150, 10), 3},
		{"a message over the bound stays alone", 100, 1 << 20, []int{100, 100, 2 << 20}, 1},
		{"under both bounds", 100, 1 << 20, repeat(150, 5), 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := newInbox(tc.maxCount, tc.maxBytes)
			displaced := 0
			for i, size := range tc.sizes {
				displaced += q.push(tagged(i), size)
				n, b := q.queued()
				if n > tc.maxCount || (b > tc.maxBytes && n > 1) {
					t.Fatalf("after %d pushes: %d messages, %d bytes queued; bounds %d, %d", i+1, n, b, tc.maxCount, tc.maxBytes)
				}
			}
			if want := len(tc.sizes) - tc.wantKept; displaced != want {
				t.Fatalf("%d displaced, want %d", displaced, want)
			}
			done := make(chan struct{})
			defer close(done)
			go q.run(done)
			for i := len(tc.sizes) - tc.wantKept; i < len(tc.sizes); i++ {
				m := <-q.out
				if got := m.Event().(consensus.StatusEvent).Height; got != uint64(i) {
					t.Fatalf("got message %d, want %d", got, i)
				}
			}
			if n, b := q.queued(); n != 0 || b != 0 {
				t.Fatalf("%d messages, %d bytes left after draining", n, b)
			}
		})
	}
}

func repeat(size, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = size
	}
	return s
}

// tagged is a verified status message numbered i, to check order.
func tagged(i int) consensus.Verified {
	m, err := consensus.VerifyMessage(testChain, [20]byte{1}, consensus.EncodeMessage(consensus.StatusEvent{Height: uint64(i)}))
	if err != nil {
		panic(err)
	}
	return m
}
