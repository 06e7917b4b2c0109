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

// FuzzInbox drives the inbox with pushes of any size and pops against a
// model queue: it holds exactly the model's newest messages in order,
// never more than maxCount, never more than maxBytes unless one message
// alone is larger, and its byte count is the sum of what it holds.
func FuzzInbox(f *testing.F) {
	f.Add(uint8(3), uint16(1000), []byte{10, 200, 0, 255, 1, 2, 0, 0, 0, 90})
	f.Add(uint8(1), uint16(1), []byte{5, 5, 0, 5})
	f.Add(uint8(100), uint16(0xffff), []byte{255, 255, 255, 255, 255, 0})
	f.Fuzz(func(t *testing.T, maxCount uint8, maxBytes uint16, ops []byte) {
		if maxCount == 0 || maxBytes == 0 || len(ops) > 1000 {
			return
		}
		q := newInbox(int(maxCount), int(maxBytes))
		type item struct{ id, size int }
		var model []item
		modelBytes := 0
		for i, op := range ops {
			if op == 0 { // pop
				m, ok := q.pop()
				if ok != (len(model) > 0) {
					t.Fatalf("op %d: pop %v with %d in the model", i, ok, len(model))
				}
				if ok {
					if got := m.Event().(consensus.StatusEvent).Height; got != uint64(model[0].id) {
						t.Fatalf("op %d: popped %d, want %d", i, got, model[0].id)
					}
					modelBytes -= model[0].size
					model = model[1:]
				}
				continue
			}
			size := int(op) * 257 // up to 65,535: past any maxBytes
			displaced := q.push(tagged(i), size)
			shed := 0
			for len(model) > 0 && (len(model) >= int(maxCount) || modelBytes+size > int(maxBytes)) {
				modelBytes -= model[0].size
				model = model[1:]
				shed++
			}
			model = append(model, item{i, size})
			modelBytes += size
			if displaced != shed {
				t.Fatalf("op %d: %d displaced, want %d", i, displaced, shed)
			}
			n, b := q.queued()
			if n != len(model) || b != modelBytes {
				t.Fatalf("op %d: %d messages, %d bytes; model %d, %d", i, n, b, len(model), modelBytes)
			}
			if n > int(maxCount) || (b > int(maxBytes) && n > 1) {
				t.Fatalf("op %d: %d messages, %d bytes past the bounds %d, %d", i, n, b, maxCount, maxBytes)
			}
		}
	})
}
