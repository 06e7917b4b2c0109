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
