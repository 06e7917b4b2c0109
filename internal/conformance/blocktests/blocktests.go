// Package blocktests runs the BlockchainTests of ethereum/tests: a genesis
// and pre-state, then blocks imported one by one through the node's own
// import path (chain.Chain.InsertBlock, the call `chaind import` makes for
// every block). Blocks marked with an expected exception must be refused,
// every other block must import, and afterwards the canonical head must be
// the test's lastblockhash and its state the test's post state.
package blocktests

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// Main is the entry point of "chaind conformance blockchain DIR [--run REGEX]".
func Main(dir string, args []string, r *conformance.Report) error {
	fs := flag.NewFlagSet("conformance blockchain", flag.ContinueOnError)
	run := fs.String("run", "", "run only tests whose name matches this regular expression")
	workers := fs.Int("workers", 0, "files run in parallel (default: number of CPUs)")
	if err := conformance.ParseFlags(fs, args); err != nil {
		return err
	}
	var filter *regexp.Regexp
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return fmt.Errorf("--run: %w", err)
		}
		filter = re
	}
	return Run(dir, filter, *workers, r)
}

// Run executes every blockchain test below dir and records each in r, in
// file order.
func Run(dir string, filter *regexp.Regexp, workers int, r *conformance.Report) error {
	files, err := conformance.JSONFiles(dir)
	if err != nil {
		return err
	}
	conformance.RunFiles(files, workers, nil, func(path string) []conformance.Outcome { return runFile(dir, path, filter) }, r)
	return nil
}

// btTest is one test of a BlockchainTests file.
type btTest struct {
	Network       string          `json:"network"`
	GenesisRLP    string          `json:"genesisRLP"`
	Pre           chain.Alloc     `json:"pre"`
	Blocks        []btBlock       `json:"blocks"`
	PostState     json.RawMessage `json:"postState"`
	PostStateHash *types.Hash     `json:"postStateHash"`
	LastBlockHash types.Hash      `json:"lastblockhash"`
	SealEngine    string          `json:"sealEngine"`
}

type btBlock struct {
	RLP             string `json:"rlp"`
	ExpectException string `json:"expectException"`
}

func runFile(root, path string, filter *regexp.Regexp) []conformance.Outcome {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		rel = filepath.Base(path)
	}
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return []conformance.Outcome{conformance.Failed(rel, "%v", err)}
	}
	var tests map[string]*btTest
	if err := json.Unmarshal(data, &tests); err != nil {
		return []conformance.Outcome{conformance.Failed(rel, "parse: %v", err)}
	}
	names := make([]string, 0, len(tests))
	for n := range tests {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []conformance.Outcome
	for _, n := range names {
		name := rel + "/" + n
		if filter != nil && !filter.MatchString(name) {
			continue
		}
		t := tests[n]
		cfg, ok := Network(t.Network)
		if !ok {
			out = append(out, conformance.Skipped(name, "network "+t.Network+" not known to this runner"))
			continue
		}
		if err := t.run(cfg); err != nil {
			out = append(out, conformance.Failed(name, "%v", err))
		} else {
			out = append(out, conformance.Passed(name))
		}
	}
	return out
}

func decodeHex(s string) ([]byte, error) {
	return hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
}

// run imports the test's blocks and checks the outcome.
func (t *btTest) run(cfg *chain.Config) error {
	raw, err := decodeHex(t.GenesisRLP)
	if err != nil {
		return fmt.Errorf("genesisRLP: %w", err)
	}
	gb, err := types.DecodeBlock(raw)
	if err != nil {
		return fmt.Errorf("genesisRLP: %w", err)
	}
	g := GenesisOf(cfg, gb.HeaderRef(), t.Pre)
	c, err := chain.Open(g, store.NewMem(), nil)
	if err != nil {
		return fmt.Errorf("genesis: %w", err)
	}
	if c.Genesis().Hash() != gb.Hash() {
		return fmt.Errorf("genesis hash %s, test says %s", c.Genesis().Hash(), gb.Hash())
	}
	for i, blk := range t.Blocks {
		err := insert(c, blk.RLP)
		switch {
		case blk.ExpectException != "" && err == nil:
			return fmt.Errorf("block %d imported, test expects %s", i, blk.ExpectException)
		case blk.ExpectException == "" && err != nil:
			return fmt.Errorf("block %d: %w", i, err)
		}
	}
	head := c.Head()
	if head.Hash() != t.LastBlockHash {
		return fmt.Errorf("head %d %s, test says %s", head.Number(), head.Hash(), t.LastBlockHash)
	}
	want, err := t.postRoot(cfg)
	if err != nil {
		return err
	}
	if head.Root() != want {
		return fmt.Errorf("post state root %s, test's post state gives %s", head.Root(), want)
	}
	return nil
}

// insert decodes one block and imports it. A block that does not decode is
// refused like one that fails validation.
func insert(c *chain.Chain, rlpHex string) error {
	raw, err := decodeHex(rlpHex)
	if err != nil {
		return fmt.Errorf("rlp hex: %w", err)
	}
	b, err := types.DecodeBlock(raw)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	_, err = c.InsertBlock(b)
	return err
}

// postRoot is the state root the test expects: postStateHash when given,
// else the root of the postState accounts.
func (t *btTest) postRoot(cfg *chain.Config) (types.Hash, error) {
	if len(t.PostState) == 0 || string(t.PostState) == "null" {
		if t.PostStateHash == nil {
			return types.Hash{}, errors.New("test has neither postState nor postStateHash")
		}
		return *t.PostStateHash, nil
	}
	var post chain.Alloc
	if err := json.Unmarshal(t.PostState, &post); err != nil {
		return types.Hash{}, fmt.Errorf("postState: %w", err)
	}
	g := &chain.Genesis{Config: cfg, Alloc: post}
	b, err := g.Commit(trie.NewMemoryDB())
	if err != nil {
		return types.Hash{}, fmt.Errorf("postState: %w", err)
	}
	return b.Root(), nil
}
