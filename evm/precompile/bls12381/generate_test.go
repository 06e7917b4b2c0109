package bls12381

import (
	"os"
	"os/exec"
	"testing"
)

// g2.go must be exactly what gen_g2.go derives from g1.go, so a fix made
// to one group law is made to both.
func TestG2IsGeneratedFromG1(t *testing.T) {
	// Read both here so that go test's cache knows the result depends on
	// them (the generator's reads, in another process, are not seen).
	for _, f := range []string{"g1.go", "g2.go", "gen_g2.go"} {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("go", "run", "gen_g2.go", "-check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}
