package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/node"
)

func parseOps(t *testing.T, args ...string) (node.OpsConfig, error) {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var o opsFlags
	o.define(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var cfg node.OpsConfig
	return cfg, o.apply(&cfg)
}

func TestOpsFlags(t *testing.T) {
	t.Setenv(passphraseEnv, "")
	cfg, err := parseOps(t)
	if err != nil || cfg.DebugPassphrase != nil {
		t.Fatalf("defaults: %v, passphrase %q", err, cfg.DebugPassphrase)
	}
	if l := cfg.Limits; l.PerSecond != 10 || l.PerMinute != 600 || l.Conns != 5 || l.Batch != 1000 || l.BodyBytes != 5<<20 ||
		l.ResponseBytes != 25<<20 || l.LogRange != 10_000 || l.LogResults != 10_000 || l.CallGas != 50_000_000 || l.CallTimeout != 5*time.Second {
		t.Fatalf("default limits %+v", l)
	}
	if l := cfg.Limits; l.H2Resets != 100 || l.H2Control != 1000 {
		t.Fatalf("default HTTP/2 limits %d resets, %d control frames a second", l.H2Resets, l.H2Control)
	}
	if cfg, err = parseOps(t, "--limits.h2-resets", "5", "--limits.h2-control", "50"); err != nil || cfg.Limits.H2Resets != 5 || cfg.Limits.H2Control != 50 {
		t.Fatalf("set HTTP/2 limits: %v %+v", err, cfg.Limits)
	}
	cfg, err = parseOps(t, "--limits.rps", "3", "--limits.body", "1", "--limits.call-timeout", "2s", "--trusted-proxies", "10.0.0.0/8, 192.0.2.1")
	if err != nil || cfg.Limits.PerSecond != 3 || cfg.Limits.BodyBytes != 1<<20 || cfg.Limits.CallTimeout != 2*time.Second || len(cfg.TrustedProxies) != 2 || cfg.TrustedProxies[1].Bits() != 32 {
		t.Fatalf("set limits: %v %+v", err, cfg)
	}
	if cfg.Limits.TxPoolBytes != 256<<20 {
		t.Fatalf("default pool bound %d bytes", cfg.Limits.TxPoolBytes)
	}
	if cfg, err = parseOps(t, "--limits.txpool", "32"); err != nil || cfg.Limits.TxPoolBytes != 32<<20 {
		t.Fatalf("set pool bound: %v %d", err, cfg.Limits.TxPoolBytes)
	}
	for _, bad := range [][]string{{"--limits.txpool", "0"}, {"--limits.txpool", "100000"}, {"--limits.rps", "0"}, {"--limits.body", "5000"}, {"--trusted-proxies", "proxy.example"}, {"--debug.capture-size", "0"}, {"--limits.h2-resets", "0"}, {"--limits.h2-control", "-1"}} {
		if _, err := parseOps(t, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}

	// The passphrase comes from a file (its trailing newline dropped) or
	// the environment, never from a flag's value.
	file := filepath.Join(t.TempDir(), "pass")
	os.WriteFile(file, []byte("from the file\n"), 0o600)
	if cfg, err = parseOps(t, "--debug.passphrase-file", file); err != nil || string(cfg.DebugPassphrase) != "from the file" {
		t.Fatalf("file: %v %q", err, cfg.DebugPassphrase)
	}
	t.Setenv(passphraseEnv, "from the environment")
	if cfg, err = parseOps(t); err != nil || string(cfg.DebugPassphrase) != "from the environment" {
		t.Fatalf("env: %v %q", err, cfg.DebugPassphrase)
	}
	t.Setenv(passphraseEnv, "short")
	if _, err = parseOps(t); err == nil || !strings.Contains(err.Error(), "at least 8") {
		t.Fatalf("short passphrase: %v", err)
	}
	if _, err = parseOps(t, "--debug.passphrase-file", filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing passphrase file accepted")
	}
}
