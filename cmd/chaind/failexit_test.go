package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A node whose consensus meets a permanent error exits non-zero with a
// line that says why, for its supervisor to restart it, rather than serve
// a frozen head. The error here: the consensus state file cannot be
// written (its temporary name is taken by a directory), which no retry
// fixes.
func TestPermanentConsensusErrorExits(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "consensus.state.tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := crashNode(t, dir, "100ms")
	select {
	case <-p.Exited():
	case <-time.After(30 * time.Second):
		p.Kill()
		t.Fatalf("the node did not exit on a permanent consensus error:\n%s", p.Log())
	}
	if code := p.Cmd.ProcessState.ExitCode(); code != exitFailed {
		t.Fatalf("exit status %d, want %d:\n%s", code, exitFailed, p.Log())
	}
	log := p.Log()
	for _, want := range []string{"consensus failed with a permanent error", "exiting: the node failed and must be restarted", "is a directory"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
}
