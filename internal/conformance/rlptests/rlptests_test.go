package rlptests

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
)

// The suite is tiny, so the go test runs all of it.
func TestRLPTests(t *testing.T) {
	vec := conformance.VectorsDir("../../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping RLPTests")
	}
	r := conformance.NewReport(io.Discard)
	if err := Run(filepath.Join(vec, "ethereum-tests", "RLPTests"), r); err != nil {
		t.Fatal(err)
	}
	if r.Failed != 0 || r.Passed == 0 {
		t.Fatalf("%d passed, %d failed", r.Passed, r.Failed)
	}
}

func TestRunCaseRejects(t *testing.T) {
	// A runner that cannot fail is worthless: feed it wrong expectations.
	for _, tc := range []testCase{
		{In: []byte(`"dog"`), Out: "0x83646f68"},
		{In: []byte(`"INVALID"`), Out: "0x80"},
		{In: []byte(`"VALID"`), Out: "0x8100"},
		{In: []byte(`[1, 2]`), Out: "0xc20103"},
	} {
		if err := runCase(tc); err == nil {
			t.Errorf("case %s -> %s passed", tc.In, tc.Out)
		}
	}
}
