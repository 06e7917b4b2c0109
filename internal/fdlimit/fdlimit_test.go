//go:build unix

package fdlimit

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Raise leaves the soft limit at the hard one (or macOS's ceiling) and
// reports it.
func TestRaise(t *testing.T) {
	var before unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &before); err != nil {
		t.Fatal(err)
	}
	if before.Cur == before.Max && before.Cur > 64 {
		// Lower it first, so the test sees a raise happen.
		low := before
		low.Cur = 64
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Setrlimit(unix.RLIMIT_NOFILE, &before) })
		if n, _ := Current(); n != 64 {
			t.Fatalf("Current after lowering = %d, want 64", n)
		}
	}
	n, err := Raise()
	if err != nil {
		t.Fatal(err)
	}
	var after unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_NOFILE, &after)
	if after.Cur != after.Max && after.Cur != darwinMax || uint64(n) != after.Cur && n != 1<<31-1 {
		t.Fatalf("after Raise: soft %d hard %d, reported %d", after.Cur, after.Max, n)
	}
}

func TestBudget(t *testing.T) {
	for _, tc := range []struct{ limit, reserve, min, n, budget, share int }{
		{1 << 20, 2048, 64, 6, 1<<20 - 2048, (1<<20 - 2048) / 6},
		{1024, 900, 64, 4, 124, 31},
		{1024, 2048, 64, 4, 64, 16}, // never below min
		{100, 0, 1, 0, 100, 100},
		{10, 0, 1, 20, 10, 1}, // a share is at least one
	} {
		b := Budget(tc.limit, tc.reserve, tc.min)
		if s := Split(b, tc.n); b != tc.budget || s != tc.share {
			t.Errorf("Budget(%d, %d, %d) = %d, Split(…, %d) = %d; want %d, %d", tc.limit, tc.reserve, tc.min, b, tc.n, s, tc.budget, tc.share)
		}
	}
}
