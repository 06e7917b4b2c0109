package blocktests

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/types"
)

func vectors(t *testing.T) string {
	vec := conformance.VectorsDir("../../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping BlockchainTests")
	}
	return filepath.Join(vec, "ethereum-tests", "BlockchainTests")
}

// The suite takes about a second, so the go test runs all of it.
func TestBlockchainTests(t *testing.T) {
	r := conformance.NewReport(io.Discard)
	if err := Run(vectors(t), nil, 0, r); err != nil {
		t.Fatal(err)
	}
	if r.Failed != 0 || r.Passed == 0 {
		t.Fatalf("%d passed, %d failed", r.Passed, r.Failed)
	}
}

// load returns the one test of a vector file.
func load(t *testing.T, rel string) *btTest {
	data, err := os.ReadFile(filepath.Join(vectors(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	var tests map[string]*btTest
	if err := json.Unmarshal(data, &tests); err != nil {
		t.Fatal(err)
	}
	for _, bt := range tests {
		return bt
	}
	t.Fatal("no test in", rel)
	return nil
}

// A runner that cannot fail is worthless: every check must reject a test
// whose expectation is changed.
func TestRunRejectsWrongExpectations(t *testing.T) {
	const sideChains = "TransitionTests/bcFrontierToHomestead/blockChainFrontierWithLargerTDvsHomesteadBlockchain.json"
	const dao = "TransitionTests/bcHomesteadToDao/DaoTransactions_EmptyTransactionAndForkBlocksAhead.json"
	for _, tc := range []struct {
		name   string
		file   string
		mutate func(*btTest)
	}{
		{"other head", sideChains, func(bt *btTest) { bt.LastBlockHash = types.Hash{1} }},
		{"head of the lighter branch", sideChains, func(bt *btTest) {
			// The second branch's last valid block (number 4): the first
			// branch reaches 5 blocks of the same difficulty and stays head.
			raw, _ := decodeHex(bt.Blocks[8].RLP)
			b, err := types.DecodeBlock(raw)
			if err != nil {
				t.Fatal(err)
			}
			bt.LastBlockHash = b.Hash()
		}},
		{"valid block marked invalid", dao, func(bt *btTest) { bt.Blocks[0].ExpectException = "BlockException.X" }},
		{"other post state", dao, func(bt *btTest) { h := types.Hash{2}; bt.PostState, bt.PostStateHash = nil, &h }},
		{"unknown network", dao, func(bt *btTest) { bt.Network = "Nowhere" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bt := load(t, tc.file)
			tc.mutate(bt)
			cfg, ok := Network(bt.Network)
			if !ok {
				return // reported as skipped by runFile, never as passed
			}
			if err := bt.run(cfg); err == nil {
				t.Fatal("test with a wrong expectation passed")
			}
		})
	}
}
