package statetests

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/types"
)

// TestSmallCategories runs a few small categories end to end. The whole
// suite runs through "make conformance"; this only guards the runner.
func TestSmallCategories(t *testing.T) {
	vec := conformance.VectorsDir("../../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); state tests not run")
	}
	base := filepath.Join(vec, "ethereum-tests", "GeneralStateTests")
	for _, dir := range []string{"stExample", "stSLoadTest", "stChainId", "Shanghai/stEIP3855-push0"} {
		var out bytes.Buffer
		r := conformance.NewReport(&out)
		if err := Run(filepath.Join(base, dir), Options{Fork: "Cancun"}, r); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if r.Failed > 0 || r.Passed == 0 {
			t.Errorf("%s: %d passed, %d failed\n%s", dir, r.Passed, r.Failed, out.String())
		}
	}
}

// TestFilterAndFork checks that --run and --fork select cases and that a
// fork the EVM does not know is reported as skipped, never as passed.
func TestFilterAndFork(t *testing.T) {
	vec := conformance.VectorsDir("../../..")
	if vec == "" {
		t.Skip("shared vectors absent")
	}
	dir := filepath.Join(vec, "ethereum-tests", "GeneralStateTests", "stExample")
	r := conformance.NewReport(nil)
	if err := Run(dir, Options{Filter: regexp.MustCompile(`/add11/`)}, r); err != nil {
		t.Fatal(err)
	}
	if r.Passed != 1 || r.Failed != 0 {
		t.Fatalf("add11 only: %d passed %d failed", r.Passed, r.Failed)
	}
}

func TestLogsHashOfNoLogs(t *testing.T) {
	want := "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"
	if got := LogsHash(nil).Hex(); got != want {
		t.Fatalf("empty logs hash %s", got)
	}
}

func TestBlockHashConvention(t *testing.T) {
	// keccak256("0"): the hash the reference runners give block 0.
	if got := testBlockHash(0).Hex(); !strings.HasPrefix(got, "0x044852b2a670ade5407e78fb2863c51de9fcb96542a07186fe3aeda6bb8a116d") {
		t.Fatalf("BLOCKHASH(0) = %s", got)
	}
}

func TestParseLenient(t *testing.T) {
	for in, want := range map[string]uint64{"0x00": 0, "0x0a": 10, "0x": 0, "": 0, "0x000100": 256} {
		got, err := parseU64(in)
		if err != nil || got != want {
			t.Errorf("parseU64(%q) = %d, %v", in, got, err)
		}
	}
	if _, err := parseU64("0x010000000000000000"); err == nil {
		t.Error("2^64 parsed as uint64")
	}
	h, err := parseHash("0x01")
	if err != nil || h != (types.Hash{31: 1}) {
		t.Errorf("short hash: %s %v", h, err)
	}
}
