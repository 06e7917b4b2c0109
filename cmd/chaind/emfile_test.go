//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
	"golang.org/x/sys/unix"
)

// emfileHold and emfileRecovery are issue 26's terms: a validator held at
// EMFILE for 10 s signs again at the head within 30 s of recovering, or
// has exited non-zero for its supervisor to restart it.
const (
	emfileHold     = 10 * time.Second
	emfileRecovery = 30 * time.Second
)

// A validator process of a four-validator network is held at EMFILE by
// the kernel itself: its soft open-file limit is set to 0 from outside
// (prlimit), so every open, accept and dial it makes fails with "too many
// open files" while the descriptors it holds keep working, as when
// sockets fill its table. After 10 s the limit is given back; within 30 s
// the validator proposes a block at the network's head (proof it follows
// and signs again), or it has exited non-zero. On the code before issue
// 26 the consensus driver stopped at the first EMFILE and never ran again.
func TestValidatorHeldAtEMFILE(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four validator processes for about a minute; skipped with -short")
	}
	pn := startProcNet(t, 4, 0, time.Second)
	for i := range 4 {
		pn.start(i)
	}
	pn.waitHead(0, 3, 60*time.Second)
	pid := pn.procs[3].cmd.Process.Pid
	var was unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 0, Max: hardNoFile(t, pid)}, &was); err != nil {
		t.Skipf("cannot set another process's open-file limit here: %v", err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &was, nil); err != nil {
				t.Fatalf("giving validator 3 its open-file limit back: %v", err)
			}
		}
	}
	defer restore()
	held := pn.head(0)
	time.Sleep(emfileHold)
	// The three others are a quorum and went on (slowly: validator 3's
	// turns to propose time out).
	if h := pn.head(0); h <= held {
		t.Fatalf("the network went from block %d to %d while validator 3 was held", held, h)
	}
	restore()
	back, released := pn.head(0), time.Now()
	logOf := func() string {
		b, _ := os.ReadFile(filepath.Join(pn.nodes[3].Dir, "chaind.log"))
		return string(b)
	}

	v3 := types.Address(pn.nodes[3].ID)
	for {
		select {
		case <-pn.procs[3].done:
			code := pn.procs[3].cmd.ProcessState.ExitCode()
			if code == 0 {
				t.Fatalf("validator 3 exited with status 0 after EMFILE:\n%s", lastLines(logOf(), 40))
			}
			t.Logf("validator 3 exited with status %d %v after it recovered (the crash-only outcome)", code, time.Since(released))
			return
		case <-time.After(200 * time.Millisecond):
		}
		top := pn.head(0)
		for num := back + 1; num <= top; num++ {
			if pn.miner(0, num) != v3 {
				continue
			}
			took := time.Since(released)
			if !strings.Contains(logOf(), "too many open files") {
				t.Fatalf("validator 3 never met EMFILE, so the test held nothing:\n%s", lastLines(logOf(), 40))
			}
			if h := pn.head(3); h+2 < top {
				t.Fatalf("validator 3 proposed block %d but is at %d, the network at %d", num, h, top)
			}
			t.Logf("validator 3, held at EMFILE for %v from block %d, proposed block %d %v after its limit was back (network head %d)",
				emfileHold, held, num, took.Round(100*time.Millisecond), top)
			return
		}
		if time.Since(released) > emfileRecovery {
			t.Fatalf("validator 3 proposed nothing in %v after its open-file limit was back (blocks %d..%d):\n%s",
				emfileRecovery, back, top, lastLines(logOf(), 40))
		}
	}
}

// hardNoFile is process pid's hard open-file limit.
func hardNoFile(t *testing.T, pid int) uint64 {
	var l unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &l); err != nil {
		t.Skipf("cannot read another process's open-file limit here: %v", err)
	}
	return l.Max
}
