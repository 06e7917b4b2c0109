//go:build unix

package fdlimit

import (
	"math"
	"runtime"

	"golang.org/x/sys/unix"
)

// darwinMax is macOS's per-process ceiling (OPEN_MAX): setrlimit refuses
// more even when the hard limit reads as unlimited.
const darwinMax = 10240

func raise() (int, error) {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	want := l.Max
	if runtime.GOOS == "darwin" && want > darwinMax {
		want = darwinMax
	}
	if l.Cur < want {
		l.Cur = want
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
			return 0, err
		}
	}
	return current()
}

func current() (int, error) {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Cur > math.MaxInt32 {
		return math.MaxInt32, nil
	}
	return int(l.Cur), nil
}
