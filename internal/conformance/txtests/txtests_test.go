package txtests

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/txpool"
)

// A small subset; `make conformance` runs the whole folder through the CLI.
func TestSubset(t *testing.T) {
	vec := conformance.VectorsDir("../../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping TransactionTests")
	}
	for _, sub := range []string{"ttEIP1559", "ttEIP2930", "ttSignature", "ttWrongRLP"} {
		r := conformance.NewReport(io.Discard)
		if err := Run(filepath.Join(vec, "ethereum-tests", "TransactionTests", sub), "Cancun", r); err != nil {
			t.Fatal(err)
		}
		if r.Failed != 0 || r.Passed == 0 {
			t.Errorf("%s: %d passed, %d failed, %d skipped", sub, r.Passed, r.Failed, r.Skipped)
		}
	}
}

func TestRunCaseCanFail(t *testing.T) {
	// Frontier-style legacy transaction from the vectors' own set of shapes:
	// an empty input must be rejected, and claiming it valid must fail.
	if err := runCase("0x", forkResult{Hash: "0x00", Sender: "0x00", IntrinsicGas: "0x5208"}, cancun(t)); err == nil {
		t.Fatal("empty transaction accepted")
	}
	if err := runCase("0x", forkResult{Exception: "X"}, cancun(t)); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownFork(t *testing.T) {
	if err := Run(".", "Nope", conformance.NewReport(io.Discard)); err == nil {
		t.Fatal("unknown fork accepted")
	}
}

func cancun(t *testing.T) txpool.StatelessRules {
	r, ok := Rules("Cancun")
	if !ok {
		t.Fatal("no rules for Cancun")
	}
	return r
}
