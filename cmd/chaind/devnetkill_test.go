package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

// A researcher's first fault experiment, as chaind devnet documents it: in
// a devnet of 4 validator processes, kill -9 one validator. The devnet
// goes on and says how to restart it; within one cycle (10 blocks) the
// others no longer count it active; restarted alone with the command the
// devnet printed, it is counted syncing, then active again; no validator
// is jailed.
func TestDevnetKilledValidatorComesBack(t *testing.T) {
	dp := startDevnetProc(t, 4, "--validators", "4", "--block-time", "500ms", "--log-level", "info",
		"--http.port", "0", "--explorer.port", "-1")
	v0 := devload.NewClient(dp.urls["validator0"])
	status := func(name string) (string, int, uint64) {
		var list struct {
			Nodes []struct{ ID, Status string }
		}
		var cycle struct {
			CycleInfo struct {
				Nodes struct{ Active int }
			}
		}
		if err := v0.Call(&list, "chain_getNodeList"); err != nil {
			t.Fatal(err)
		}
		if err := v0.Call(&cycle, "chain_getCycleInfo"); err != nil {
			t.Fatal(err)
		}
		h, _ := v0.BlockNumber()
		for _, n := range list.Nodes {
			if n.ID == dp.ids[name] {
				return n.Status, cycle.CycleInfo.Nodes.Active, h
			}
		}
		t.Fatalf("%s (%s) not in the node list %+v", name, dp.ids[name], list)
		return "", 0, 0
	}
	// waitStatus polls until name shows want, and returns the head then.
	waitStatus := func(name, want string, within time.Duration) (int, uint64) {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			s, active, h := status(name)
			if s == want {
				return active, h
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is %s at block %d after %v, want %s", name, s, h, within, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if h, err := v0.BlockNumber(); err == nil && h >= 12 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the devnet did not reach block 12")
		}
	}
	if s, active, _ := status("validator3"); s != "active" || active != 4 {
		t.Fatalf("before the kill validator3 is %s, %d active", s, active)
	}

	killedAt, _ := v0.BlockNumber()
	restart := dp.killAndWatch("validator3", "validator0")
	active, h := waitStatus("validator3", "standby", 30*time.Second)
	t.Logf("killed at block %d; standby at block %d (%d active)", killedAt, h, active)
	if h > killedAt+10 || active != 3 {
		t.Errorf("validator3 left active at block %d, %d blocks after the kill (a cycle is 10); %d counted active", h, h-killedAt, active)
	}

	if len(restart) < 3 || restart[1] != "--config" {
		t.Fatalf("restart command %q", restart)
	}
	cmd := exec.Command(restart[0], restart[1:]...)
	cmd.Env = append(os.Environ(), asChaindEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	restartedAt, _ := v0.BlockNumber()
	_, h = waitStatus("validator3", "syncing", 60*time.Second)
	t.Logf("restarted at block %d; syncing at block %d", restartedAt, h)
	active, h = waitStatus("validator3", "active", 60*time.Second)
	t.Logf("active again at block %d (%d active)", h, active)
	if active != 4 {
		t.Errorf("%d counted active after validator3 came back", active)
	}
	var list struct {
		Nodes []struct{ ID, Status string }
	}
	if err := v0.Call(&list, "chain_getNodeList"); err != nil {
		t.Fatal(err)
	}
	for _, n := range list.Nodes {
		if n.Status == "jailed" {
			t.Errorf("validator %s jailed", n.ID)
		}
	}
}
