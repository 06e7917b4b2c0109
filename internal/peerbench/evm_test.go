package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEVMAgreement(t *testing.T) {
	for _, in := range evmBenchInputs {
		raw, err := os.ReadFile(filepath.Join(evmBenchDir(), in.file))
		if err != nil {
			t.Skipf("evm-bench inputs not available: %v", err)
		}
		code, _ := hex.DecodeString(strings.TrimSpace(string(raw)))
		input, _ := hex.DecodeString(in.input)
		if err := checkEVMAgreement(code, input); err != nil {
			t.Errorf("%s: %v", in.name, err)
		}
	}
}
