package rpc

import (
	"fmt"
	"testing"
)

func TestOutQueue(t *testing.T) {
	q := outQueue{limit: 1000}
	if cap(q.buf) != 0 {
		t.Fatal("a new queue allocated up front")
	}
	// Interleaved pushes and pops keep order and never exceed the limit.
	next, want := 0, 0
	for round := 0; round < 50; round++ {
		for i := 0; i < round%7+1; i++ {
			if _, ok := q.push([]byte(fmt.Sprint(next))); !ok {
				t.Fatalf("push %d refused with %d waiting", next, q.len())
			}
			next++
		}
		for i := 0; i < round%5; i++ {
			b := q.pop()
			if b == nil {
				break
			}
			if string(b) != fmt.Sprint(want) {
				t.Fatalf("popped %s, want %d", b, want)
			}
			want++
		}
	}
	for b := q.pop(); b != nil; b = q.pop() {
		if string(b) != fmt.Sprint(want) {
			t.Fatalf("popped %s, want %d", b, want)
		}
		want++
	}
	if want != next {
		t.Fatalf("popped %d of %d", want, next)
	}
	q = outQueue{limit: 100}
	for i := 0; i < 100; i++ {
		if _, ok := q.push([]byte{1}); !ok {
			t.Fatalf("push %d of 100 refused", i)
		}
	}
	if _, ok := q.push([]byte{1}); ok {
		t.Fatal("push past the limit accepted")
	}
	for q.pop() != nil {
	}
	if cap(q.buf) > 4*minQueueCap {
		t.Fatalf("drained queue keeps %d slots", cap(q.buf))
	}
}

// A writer is started by the first push into an idle queue and by no
// other until it has drained the queue and gone idle.
func TestOutQueueOneWriter(t *testing.T) {
	q := outQueue{limit: 10}
	if start, _ := q.push([]byte("a")); !start {
		t.Fatal("first push did not ask for a writer")
	}
	if start, _ := q.push([]byte("b")); start {
		t.Fatal("second push asked for another writer")
	}
	for _, want := range []string{"a", "b"} {
		if got := q.popOrIdle(); string(got) != want {
			t.Fatalf("popped %q, want %q", got, want)
		}
	}
	if q.popOrIdle() != nil {
		t.Fatal("empty queue popped a message")
	}
	if start, _ := q.push([]byte("c")); !start {
		t.Fatal("push after the writer went idle did not ask for one")
	}
}

// The queue is bounded in bytes, counting the message being written until
// it is sent; one message over the bound is admitted only alone.
func TestOutQueueBytes(t *testing.T) {
	q := outQueue{limit: 1000, maxBytes: 100}
	var last []byte
	for i, tc := range []struct {
		op   string // "push", "pop", "sent"
		n    int
		ok   bool
		left int64
	}{
		{"push", 60, true, 60},
		{"push", 40, true, 100},
		{"push", 1, false, 100},
		{"pop", 60, true, 100}, // being written: still counted
		{"push", 1, false, 100},
		{"sent", 60, true, 40},
		{"push", 60, true, 100},
		{"pop", 40, true, 100},
		{"sent", 40, true, 60},
		{"pop", 60, true, 60},
		{"sent", 60, true, 0},
		{"push", 500, true, 500}, // alone, over the bound
		{"push", 1, false, 500},
	} {
		var ok bool
		switch tc.op {
		case "push":
			_, ok = q.push(make([]byte, tc.n))
		case "pop":
			b := q.pop()
			ok = len(b) == tc.n
			last = b
		case "sent":
			q.sent(last)
			ok = true
		}
		if ok != tc.ok || q.bytes != tc.left {
			t.Fatalf("step %d (%s %d): ok %v, %d bytes counted; want %v, %d", i, tc.op, tc.n, ok, q.bytes, tc.ok, tc.left)
		}
	}
}

// FuzzOutQueue drives a WebSocket send queue with pushes of any size,
// pops and sends against a model: it admits exactly what the model does
// (the count bound, and the byte bound counting the message being written
// until it is sent, one larger message only alone), keeps order, and its
// byte count never passes maxBytes but for that one message.
func FuzzOutQueue(f *testing.F) {
	f.Add(uint8(4), uint16(100), []byte{60, 40, 1, 0, 1, 0xff, 0, 0xff, 200, 1})
	f.Add(uint8(1), uint16(1), []byte{9, 9, 0, 0xff, 9})
	f.Fuzz(func(t *testing.T, limit uint8, maxBytes uint16, ops []byte) {
		if limit == 0 || len(ops) > 1000 {
			return
		}
		q := outQueue{limit: int(limit), maxBytes: int64(maxBytes)}
		var waiting, writing [][]byte // the model: queued, and popped but not sent
		var bytes int64
		next := 0
		for i, op := range ops {
			switch op {
			case 0: // pop
				b := q.pop()
				if (b != nil) != (len(waiting) > 0) {
					t.Fatalf("op %d: popped %v with %d waiting", i, b != nil, len(waiting))
				}
				if b != nil {
					if string(b) != string(waiting[0]) {
						t.Fatalf("op %d: popped %q, want %q", i, b, waiting[0])
					}
					writing, waiting = append(writing, waiting[0]), waiting[1:]
				}
			case 0xff: // the oldest message being written is sent
				if len(writing) > 0 {
					q.sent(writing[0])
					bytes -= int64(len(writing[0]))
					writing = writing[1:]
				}
			default:
				b := []byte(fmt.Sprintf("%d:%s", next, make([]byte, int(op)*3)))
				next++
				want := len(waiting) < int(limit) && (maxBytes == 0 || bytes == 0 || bytes+int64(len(b)) <= int64(maxBytes))
				if _, ok := q.push(b); ok != want {
					t.Fatalf("op %d: push of %d bytes %v with %d waiting and %d bytes counted; want %v", i, len(b), ok, len(waiting), bytes, want)
				}
				if want {
					waiting = append(waiting, b)
					bytes += int64(len(b))
				}
			}
			if q.bytes != bytes || q.len() != len(waiting) {
				t.Fatalf("op %d: %d waiting, %d bytes; model %d, %d", i, q.len(), q.bytes, len(waiting), bytes)
			}
			if maxBytes > 0 && q.bytes > int64(maxBytes) && len(waiting)+len(writing) > 1 {
				t.Fatalf("op %d: %d bytes held in %d messages, bound %d", i, q.bytes, len(waiting)+len(writing), maxBytes)
			}
		}
	})
}
