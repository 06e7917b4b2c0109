package staking

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the ABI and Solidity files")

// The ABI JSON and Solidity interfaces shipped in abi/ are exactly what
// the method tables give: go test -update rewrites them.
func TestABIFiles(t *testing.T) {
	for _, c := range Specs() {
		for name, want := range map[string][]byte{
			c.Name + ".abi.json":  c.ABI(),
			"I" + c.Name + ".sol": c.Solidity(),
		} {
			path := filepath.Join("abi", name)
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale: run go test ./internal/staking -run TestABIFiles -update", path)
			}
		}
	}
}
