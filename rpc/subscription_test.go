package rpc

import "testing"

// OnEnd callbacks run once when a subscription ends, and at once when it
// already has; Done is closed before they run.
func TestSubscriptionOnEnd(t *testing.T) {
	s := &Subscription{ID: "0x1", done: make(chan struct{})}
	calls := 0
	s.OnEnd(func() {
		select {
		case <-s.Done():
		default:
			t.Error("OnEnd ran before Done was closed")
		}
		calls++
	})
	if calls != 0 {
		t.Fatal("OnEnd ran before the end")
	}
	s.end()
	s.end()
	if calls != 1 {
		t.Fatalf("OnEnd ran %d times, want 1", calls)
	}
	late := false
	s.OnEnd(func() { late = true })
	if !late {
		t.Fatal("OnEnd on an ended subscription did not run at once")
	}
}
