package txpool

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// TestStateReadError: a head state that fails a read answers zeros; the
// pool must say the state is unreadable (ErrStateRead, logged) instead of
// judging by them ("insufficient funds ... have 0", a nonce of 0), and must
// not drop what it holds on such evidence.
func TestStateReadError(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(f *fixture, broken *fakeState) error
		// after checks the pool once the failing call returned.
		after func(t *testing.T, f *fixture)
	}{
		{"add", func(f *fixture, broken *fakeState) error {
			f.pool.Reset(f.headOn(broken))
			return f.pool.Add(f.tx(0, 3, 2e9, 1e9))
		}, func(t *testing.T, f *fixture) {
			if f.pool.Len() != 1 {
				t.Errorf("pool holds %d, want the 1 added before", f.pool.Len())
			}
		}},
		{"nonce", func(f *fixture, broken *fakeState) error {
			f.pool.Reset(f.headOn(broken))
			n, err := f.pool.Nonce(f.addr[0])
			if err == nil {
				t.Errorf("Nonce = %d with no error", n)
			}
			return err
		}, nil},
		{"reset", func(f *fixture, broken *fakeState) error {
			return f.pool.Reset(f.headOn(broken))
		}, func(t *testing.T, f *fixture) {
			if f.pool.Len() != 1 {
				t.Errorf("reset on an unreadable state dropped transactions: %d left, want 1", f.pool.Len())
			}
			if p := f.pool.Pending(); len(p) != 0 {
				t.Errorf("pending on an unreadable state: %v, want none", p)
			}
		}},
		{"restore", func(f *fixture, broken *fakeState) error {
			return f.pool.Restore(f.pool.Save(), f.headOn(broken))
		}, func(t *testing.T, f *fixture) {
			if f.pool.Len() != 1 {
				t.Errorf("restore on an unreadable state dropped transactions: %d left, want 1", f.pool.Len())
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			f := newFixture(t, Config{Log: slog.New(slog.NewTextHandler(&logs, nil))}, 1)
			f.st.nonce[f.addr[0]] = 2
			if err := f.pool.Add(f.tx(0, 2, 2e9, 1e9)); err != nil {
				t.Fatal(err)
			}
			broken := f.st.clone()
			broken.unreadable = map[types.Address]bool{f.addr[0]: true}
			err := tc.run(f, broken)
			if !errors.Is(err, ErrStateRead) || !errors.Is(err, errDisk) {
				t.Fatalf("err = %v, want ErrStateRead wrapping the read error", err)
			}
			if err := f.pool.StateErr(); !errors.Is(err, ErrStateRead) {
				t.Errorf("StateErr = %v, want ErrStateRead", err)
			}
			if !strings.Contains(logs.String(), errDisk.Error()) {
				t.Errorf("the read error was not logged; log: %q", logs.String())
			}
			if tc.after != nil {
				tc.after(t, f)
			}
			// A readable state again: the pool judges by it.
			if err := f.pool.Reset(f.head()); err != nil {
				t.Fatal(err)
			}
			if err := f.pool.StateErr(); err != nil {
				t.Fatalf("StateErr on a readable state = %v", err)
			}
			if n, err := f.pool.Nonce(f.addr[0]); err != nil || n != 3 {
				t.Fatalf("Nonce = %d, %v; want 3", n, err)
			}
			if err := f.pool.Add(f.tx(0, 3, 2e9, 1e9)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func (s *fakeState) clone() *fakeState {
	return &fakeState{nonce: s.nonce, bal: s.bal, code: s.code}
}

func (f *fixture) headOn(st *fakeState) Head {
	h := f.head()
	h.State = st
	return h
}

// TestStateReadErrorSkipsOthers: once a read failed, every answer of that
// state is void, so a sender whose own read would succeed is refused too
// rather than judged by a state known to be broken.
func TestStateReadErrorSkipsOthers(t *testing.T) {
	f := newFixture(t, Config{Log: slog.New(slog.NewTextHandler(new(bytes.Buffer), nil))}, 2)
	broken := f.st.clone()
	broken.unreadable = map[types.Address]bool{f.addr[0]: true}
	f.pool.Reset(f.headOn(broken))
	if err := f.pool.Add(f.tx(0, 0, 2e9, 1e9)); !errors.Is(err, ErrStateRead) {
		t.Fatalf("unreadable sender: %v, want ErrStateRead", err)
	}
	if err := f.pool.Add(f.tx(1, 0, 2e9, 1e9)); !errors.Is(err, ErrStateRead) {
		t.Fatalf("other sender on the broken state: %v, want ErrStateRead", err)
	}
	if pend, queued := f.pool.Stats(); pend+queued != 0 {
		t.Fatalf("Stats = %d, %d", pend, queued)
	}
}

// TestStateReadErrorLogThrottled: while the head state fails its reads,
// a client sending transactions fast gets each refused, but the log gets
// one line per logEvery, counting the refusals it stands for.
func TestStateReadErrorLogThrottled(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, Config{Log: slog.New(slog.NewTextHandler(&logs, nil))}, 1)
	at := time.Unix(1000, 0)
	f.pool.stateLog.now = func() time.Time { return at }
	broken := f.st.clone()
	broken.unreadable = map[types.Address]bool{f.addr[0]: true}
	f.pool.Reset(f.headOn(broken)) // an empty pool reads nothing: no error yet
	tx := f.tx(0, 0, 2e9, 1e9)
	for _, step := range []struct {
		advance time.Duration
		adds    int
		lines   int
		count   string // the last line's
	}{
		{0, 10_000, 1, "count=1"},
		{time.Second, 1000, 1, "count=1"},
		{logEvery, 1, 2, "count=11000"}, // the 9,999 and 1,000 held back, and this one
		{logEvery, 5, 3, "count=1"},
	} {
		at = at.Add(step.advance)
		for range step.adds {
			if err := f.pool.Add(tx); !errors.Is(err, ErrStateRead) {
				t.Fatalf("Add = %v, want ErrStateRead", err)
			}
		}
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if len(lines) != step.lines || !strings.HasSuffix(lines[len(lines)-1], step.count) || !strings.Contains(lines[len(lines)-1], errDisk.Error()) {
			t.Fatalf("after %d refusals: log\n%s\nwant %d lines, the last with the read error and ending %s", step.adds, logs.String(), step.lines, step.count)
		}
	}
}
