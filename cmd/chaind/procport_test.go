package main

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestListensOn: only a listening socket the process itself holds on the
// port counts; a connection's local port, or a port nobody listens on,
// does not.
func TestListensOn(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	for _, tc := range []struct {
		name string
		port int
		want bool
	}{
		{"own listener", l.Addr().(*net.TCPAddr).Port, true},
		{"own connection's local port", c.LocalAddr().(*net.TCPAddr).Port, false},
		{"nobody listens", closed.Addr().(*net.TCPAddr).Port, false},
	} {
		got, err := listensOn(os.Getpid(), tc.port)
		if err != nil || got != tc.want {
			t.Errorf("%s: listensOn = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestDevnetPortSquatted: a node process whose JSON-RPC port another node
// already serves fails to start with errPortTaken, at once, instead of
// passing the readiness check on the other node's answer.
func TestDevnetPortSquatted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	pn := startProcNet(t, 2, 0, 500*time.Millisecond, func(s *testnetSpec) {
		port := s.port
		s.port = func(i int) (int, int, int) {
			p2p, http, ws := port(i)
			if i == 1 {
				_, http, _ = port(0) // node 0 serves it
			}
			return p2p, http, ws
		}
	})
	pn.start(0)
	os.Setenv(asChaindEnv, "1")
	defer os.Unsetenv(asChaindEnv)
	p, err := startNodeProc(pn.exe, pn.nodes[1], nil, "--log-level", "info")
	if err == nil {
		pn.procs[1] = p
		t.Fatalf("%s started on %s, which %s serves", pn.nodes[1].Name, p.http, pn.nodes[0].Name)
	}
	if !errors.Is(err, errPortTaken) || !strings.Contains(err.Error(), pn.nodes[1].Name) {
		t.Fatalf("err = %v, want errPortTaken naming %s", err, pn.nodes[1].Name)
	}
	// Node 0 is untouched and still answers.
	if _, err := pn.client(0).BlockNumber(); err != nil {
		t.Fatalf("%s after the refused start: %v", pn.nodes[0].Name, err)
	}
}
